/* agenthooks-client: the fast client without an interpreter start.
 *
 * It speaks exactly what agent_hooks_core/transports/fastclient.py speaks (that file's docstring
 * is the contract; the two are run against one table of failures in tests/transports): read the
 * event from stdin (bounded in size and time), send it to `agenthooks serve` over the per-user
 * unix socket (HTTP/1.0, POST /hosts/HOST/command), write the server's stdout, stderr and exit
 * code. When the server cannot be reached it runs the per-event process (`PYTHON FLAGS -m
 * agent_hooks_core HOST ARGS`, told the rest of the budget in AGENT_HOOKS_ANSWER_BY) and kills it
 * with its process group at the deadline. On a --gating event every failure of ours exits 2.
 *
 * Options: the Python client's, plus --python PATH (the interpreter of the per-event process and
 * of `serve start`; the Python client uses its own).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_TIMEOUT 55.0
#define MAX_REPLY ((size_t)256 << 20)
#define MAX_EVENT ((size_t)64 << 20) /* dispatch.MAX_EVENT_BYTES */
#define MARGIN 0.5
#define PREFIX "agent-hooks fast client: "

enum { OK = 0, UNREACHABLE = 1, OVERRUN = 2, FAILED = 3 };

typedef struct {
    const char *socket;
    const char *isolation;
    const char *python;
    int gating, autostart, ensure_server;
    double timeout;
} options;

typedef struct {
    char *data;
    size_t len, cap;
} buffer;

static char note[512];   /* why the server was not used */
static double until;     /* the deadline, monotonic seconds */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* milliseconds left for poll(), or -1 when the deadline has passed */
static int left_ms(void) {
    double left = until - now();
    if (left <= 0) return -1;
    if (left > 2e6) return 2000000000;
    int ms = (int)(left * 1000.0);
    return ms > 0 ? ms : 1;
}

static void say(const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dprintf(2, PREFIX "%s\n", line);
}

static int fail(int gating, const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dprintf(2, PREFIX "%s\n", line);
    return gating ? 2 : 1;
}

static int append(buffer *b, const char *data, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
    return 0;
}

static void write_all(int fd, const char *data, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;
        }
        data += w;
        n -= (size_t)w;
    }
}

/* ---- the command line -------------------------------------------------------------------- */

static const char *host;
static char **host_args;
static int n_host_args;

static int parse(int argc, char **argv, options *o, char *why, size_t why_len) {
    int i = 0;
    o->socket = NULL;
    o->isolation = "-I";
    o->python = NULL;
    o->gating = o->autostart = o->ensure_server = 0;
    o->timeout = DEFAULT_TIMEOUT;
    host = NULL;
    host_args = argv + argc;
    n_host_args = 0;
    if (argc > 0 && argv[0][0] != '-') {
        host = argv[0];
        i = 1;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            if (host != NULL) {
                host_args = argv + i + 1;
                n_host_args = argc - i - 1;
                return 0;
            }
            if (i + 1 >= argc) {
                snprintf(why, why_len, "no host after --");
                return -1;
            }
            host = argv[i + 1];
            host_args = argv + i + 2;
            n_host_args = argc - i - 2;
            return 0;
        }
        if (strcmp(a, "--gating") == 0) o->gating = 1;
        else if (strcmp(a, "--autostart") == 0) o->autostart = 1;
        else if (strcmp(a, "--ensure-server") == 0) o->ensure_server = 1;
        else if (!strcmp(a, "--socket") || !strcmp(a, "--isolation") || !strcmp(a, "--timeout") ||
                 !strcmp(a, "--python")) {
            if (i + 1 >= argc) {
                snprintf(why, why_len, "%s needs a value", a);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--timeout")) {
                char *end;
                errno = 0;
                double t = strtod(v, &end);
                while (*end == ' ' || *end == '\t') end++;
                if (end == v || *end || errno == ERANGE) {
                    snprintf(why, why_len, "could not convert string to float: '%s'", v);
                    return -1;
                }
                if (!(t > 0)) {
                    snprintf(why, why_len, "--timeout must be a positive number of seconds");
                    return -1;
                }
                o->timeout = t;
            } else if (!strcmp(a, "--socket")) o->socket = v;
            else if (!strcmp(a, "--python")) o->python = v;
            else o->isolation = v;
        } else {
            snprintf(why, why_len, "unknown option '%s'", a);
            return -1;
        }
    }
    if (host == NULL && !o->ensure_server) {
        snprintf(why, why_len, "no -- HOST in the command");
        return -1;
    }
    return 0;
}

/* ---- the server ---------------------------------------------------------------------------- */

/* what the Python client's str.isprintable() lets into a header: no control characters (C0, DEL,
 * C1) and valid UTF-8 (an undecodable argument is not printable there either) */
static int header_safe(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (*p < 0x80) {
            if (*p < 0x20 || *p == 0x7f) return 0;
            p++;
            continue;
        }
        int n = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        if (n == 0 || (n == 2 && *p < 0xc2) || (n == 4 && *p > 0xf4)) return 0;
        for (int i = 1; i < n; i++)
            if ((p[i] & 0xc0) != 0x80) return 0;
        if (n == 2 && *p == 0xc2 && p[1] <= 0x9f) return 0;                      /* C1 controls */
        if (n == 3 && ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0))) return 0; /* overlong, surrogates */
        if (n == 4 && ((*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] >= 0x90))) return 0;
        p += n;
    }
    return 1;
}

static int wait_fd(int fd, short events) {
    for (;;) {
        int ms = left_ms();
        if (ms < 0) return OVERRUN;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, ms);
        if (r > 0) return OK;
        if (r == 0) continue; /* left_ms decides */
        if (errno != EINTR) return FAILED;
    }
}

/* the raw reply to `request` on the unix socket `path` */
static int exchange(const char *path, const char *request, size_t request_len, buffer *reply) {
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(note, sizeof note, "no server socket (%s)", strerror(errno));
        return UNREACHABLE;
    }
    if (!S_ISSOCK(st.st_mode) || st.st_uid != getuid()) {
        snprintf(note, sizeof note, "%s is not a socket of this user", path);
        return UNREACHABLE;
    }
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) {
        snprintf(note, sizeof note, "cannot connect (%s)", "AF_UNIX path too long");
        return UNREACHABLE;
    }
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(note, sizeof note, "cannot connect (%s)", strerror(errno));
        return UNREACHABLE;
    }
    int rc = OK;
    if (left_ms() < 0) {
        rc = OVERRUN;
        goto out;
    }
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN) {
            snprintf(note, sizeof note, "cannot connect (%s)", strerror(errno));
            rc = UNREACHABLE;
            goto out;
        }
        if ((rc = wait_fd(fd, POLLOUT)) != OK) {
            if (rc == FAILED) {
                snprintf(note, sizeof note, "cannot connect (%s)", strerror(errno));
                rc = UNREACHABLE;
            }
            goto out;
        }
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err) {
            snprintf(note, sizeof note, "cannot connect (%s)", strerror(err));
            rc = UNREACHABLE;
            goto out;
        }
    }
    size_t sent = 0;
    while (sent < request_len) {
        ssize_t w = send(fd, request + sent, request_len - sent, MSG_NOSIGNAL);
        if (w >= 0) {
            sent += (size_t)w;
            continue;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) goto broken;
        if ((rc = wait_fd(fd, POLLOUT)) != OK) {
            if (rc == FAILED) goto broken;
            goto out;
        }
    }
    char chunk[65536];
    for (;;) {
        ssize_t r = recv(fd, chunk, sizeof chunk, 0);
        if (r == 0) break;
        if (r > 0) {
            if (append(reply, chunk, (size_t)r) != 0 || reply->len > MAX_REPLY) {
                snprintf(note, sizeof note, "the reply is too large");
                rc = UNREACHABLE;
                goto out;
            }
            continue;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) goto broken;
        if ((rc = wait_fd(fd, POLLIN)) != OK) {
            if (rc == FAILED) goto broken;
            goto out;
        }
    }
    goto out;
broken:
    snprintf(note, sizeof note, "the connection failed (%s)", strerror(errno));
    rc = UNREACHABLE;
out:
    close(fd);
    return rc;
}

static int header_int(const char *value, const char *end, long *out) {
    char tmp[32];
    while (value < end && (*value == ' ' || *value == '\t')) value++;
    while (end > value && (end[-1] == ' ' || end[-1] == '\t')) end--;
    size_t n = (size_t)(end - value);
    if (n == 0 || n >= sizeof tmp) return -1;
    memcpy(tmp, value, n);
    tmp[n] = 0;
    char *stop;
    errno = 0;
    long v = strtol(tmp, &stop, 10);
    if (*stop || errno) return -1;
    *out = v;
    return 0;
}

/* the server's answer: exit code, stdout (out..out+out_len), stderr (the rest) */
static int ask_server(const options *o, const char *raw, size_t raw_len, long *code, const char **out,
                      size_t *out_len, const char **err, size_t *err_len, buffer *reply) {
    if (!header_safe(host)) goto unsafe;
    for (int i = 0; i < n_host_args; i++)
        if (!header_safe(host_args[i])) goto unsafe;
    buffer req = {0};
    char line[4096];
    snprintf(line, sizeof line, "POST /hosts/%s/command HTTP/1.0\r\nHost: localhost\r\nContent-Length: %zu\r\n"
             "Connection: close", host, raw_len);
    if (strlen(host) > 1024) goto unsafe;
    append(&req, line, strlen(line));
    for (int i = 0; i < n_host_args; i++) {
        append(&req, "\r\nX-Agent-Hooks-Arg: ", 21);
        append(&req, host_args[i], strlen(host_args[i]));
    }
    append(&req, "\r\n\r\n", 4);
    if (append(&req, raw, raw_len) != 0) {
        free(req.data);
        snprintf(note, sizeof note, "client error: MemoryError");
        return UNREACHABLE;
    }
    int rc = exchange(o->socket, req.data, req.len, reply);
    free(req.data);
    if (rc != OK) return rc;
    const char *r = reply->data ? reply->data : "";
    const char *end = memmem(r, reply->len, "\r\n\r\n", 4);
    if (!end) {
        snprintf(note, sizeof note, "the server closed the connection without a full answer");
        return UNREACHABLE;
    }
    const char *eol = memmem(r, (size_t)(end - r) + 2, "\r\n", 2);
    const char *sp = memchr(r, ' ', (size_t)(eol - r));
    if (!sp || (size_t)(eol - sp) < 4 || memcmp(sp + 1, "200", 3) != 0 || (sp + 4 < eol && sp[4] != ' ')) {
        snprintf(note, sizeof note, "the server answered %.*s", (int)(eol - r > 200 ? 200 : eol - r), r);
        return UNREACHABLE;
    }
    int have_code = 0, have_len = 0;
    long length = 0;
    for (const char *h = eol + 2; h < end;) {
        const char *next = memmem(h, (size_t)(end - h) + 2, "\r\n", 2);
        const char *colon = memchr(h, ':', (size_t)(next - h));
        if (colon) {
            const char *n0 = h, *n1 = colon;
            while (n0 < n1 && (*n0 == ' ' || *n0 == '\t')) n0++;
            while (n1 > n0 && (n1[-1] == ' ' || n1[-1] == '\t')) n1--;
            size_t n = (size_t)(n1 - n0);
            if (n == 23 && strncasecmp(n0, "x-agent-hooks-exit-code", n) == 0) {
                if (header_int(colon + 1, next, code) != 0) goto incomplete;
                have_code = 1;
            } else if (n == 27 && strncasecmp(n0, "x-agent-hooks-stdout-length", n) == 0) {
                if (header_int(colon + 1, next, &length) != 0) goto incomplete;
                have_len = 1;
            }
        }
        h = next + 2;
    }
    const char *body = end + 4;
    size_t body_len = reply->len - (size_t)(body - r);
    if (!have_code || !have_len || length < 0 || (size_t)length > body_len) goto incomplete;
    *out = body;
    *out_len = (size_t)length;
    *err = body + length;
    *err_len = body_len - (size_t)length;
    return OK;
incomplete:
    snprintf(note, sizeof note, "the server's answer is incomplete");
    return UNREACHABLE;
unsafe:
    snprintf(note, sizeof note, "an argument cannot travel in a header");
    return UNREACHABLE;
}

static int server_answers(const char *path) {
    buffer reply = {0};
    /* the keep header: an http session relies on the server, which must not exit when idle */
    const char *req = "GET /status HTTP/1.0\r\nHost: localhost\r\nX-Agent-Hooks-Keep: 1\r\n\r\n";
    int rc = exchange(path, req, strlen(req), &reply);
    int ok = rc == OK && reply.len >= 12 &&
             (memcmp(reply.data, "HTTP/1.1 200", 12) == 0 || memcmp(reply.data, "HTTP/1.0 200", 12) == 0);
    free(reply.data);
    return ok;
}

/* ---- processes ------------------------------------------------------------------------------- */

/* argv of `PYTHON FLAGS -m agent_hooks_core WORDS... [host args]` (freed by the caller) */
static char **python_argv(const options *o, const char **words, int n_words, int with_host_args) {
    int n_flags = 0;
    char *flags = strdup(o->isolation);
    for (char *p = flags; *p; p++) n_flags += *p == ',';
    char **argv = calloc((size_t)(n_flags + n_words + n_host_args + 5), sizeof *argv);
    int k = 0;
    argv[k++] = (char *)o->python;
    for (char *save, *f = strtok_r(flags, ",", &save); f; f = strtok_r(NULL, ",", &save)) argv[k++] = f;
    argv[k++] = "-m";
    argv[k++] = "agent_hooks_core";
    for (int i = 0; i < n_words; i++) argv[k++] = (char *)words[i];
    if (with_host_args)
        for (int i = 0; i < n_host_args; i++) argv[k++] = host_args[i];
    argv[k] = NULL;
    return argv;
}

/* AGENT_HOOKS_SERVE_AUTOSTART=0 (or false/no/off): --autostart starts nothing (fastclient.py) */
static int autostart_allowed(void) {
    const char *v = getenv("AGENT_HOOKS_SERVE_AUTOSTART");
    if (v == NULL) return 1;
    while (*v == ' ' || *v == '\t') v++;
    const char *off[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        size_t n = strlen(off[i]);
        if (strncasecmp(v, off[i], n) == 0 && (v[n] == '\0' || v[n] == ' ' || v[n] == '\t')) return 0;
    }
    return 1;
}

static int spawn(char **argv, int in_fd, int out_fd, int detach, char **env, pid_t *pid) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    short flags = POSIX_SPAWN_SETSIGDEF;
    if (detach) {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0);
        posix_spawn_file_actions_adddup2(&fa, 0, 1);
        posix_spawn_file_actions_adddup2(&fa, 0, 2);
        flags |= POSIX_SPAWN_SETSID;
    } else {
        /* a process group of its own: the client kills it and whatever it forked */
        posix_spawnattr_setpgroup(&attr, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
        if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
        if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    }
    posix_spawnattr_setflags(&attr, flags);
    int rc = posix_spawn(pid, argv[0], &fa, &attr, argv, env ? env : environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

static void ended(int status, char *text, size_t len) {
    if (WIFSIGNALED(status)) snprintf(text, len, "was killed by signal %d", WTERMSIG(status));
    else snprintf(text, len, "exited with status %d", WEXITSTATUS(status));
}

static int exit_code(int status) {
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

/* run argv with `raw` on its stdin, its stdout collected; OVERRUN (after killing its process
 * group) when it has not ended by the deadline */
static int run_bounded(char **argv, const char *raw, size_t raw_len, char **env, int *status, buffer *out,
                       int *spawn_errno) {
    int in[2], outp[2];
    if (pipe2(in, O_CLOEXEC) != 0) return *spawn_errno = errno, FAILED;
    if (pipe2(outp, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return *spawn_errno = errno, FAILED;
    }
    pid_t pid;
    int rc = spawn(argv, in[0], outp[1], 0, env, &pid);
    close(in[0]);
    close(outp[1]);
    if (rc != 0) {
        close(in[1]);
        close(outp[0]);
        *spawn_errno = rc;
        return FAILED;
    }
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int w_in = in[1], r_out = outp[0];
    fcntl(w_in, F_SETFL, O_NONBLOCK);
    size_t written = 0, size = 0;
    int done = 0, reading = 1;
    if (raw_len == 0) {
        close(w_in);
        w_in = -1;
    }
    char chunk[65536];
    while (!done || reading) {
        int ms = left_ms();
        if (ms < 0) {
            kill(-pid, SIGKILL);
            if (!done) waitpid(pid, status, 0);
            rc = OVERRUN;
            goto out;
        }
        struct pollfd p[3];
        int n = 0, i_out = -1, i_pid = -1, i_in = -1;
        if (reading) p[i_out = n++] = (struct pollfd){r_out, POLLIN, 0};
        if (pidfd >= 0 && !done) p[i_pid = n++] = (struct pollfd){pidfd, POLLIN, 0};
        if (w_in >= 0) p[i_in = n++] = (struct pollfd){w_in, POLLOUT, 0};
        if (pidfd < 0 && !done && ms > 20) ms = 20;
        int r = poll(p, (nfds_t)n, ms);
        if (r < 0 && errno != EINTR) {
            kill(-pid, SIGKILL);
            if (!done) waitpid(pid, status, 0);
            *spawn_errno = errno;
            rc = FAILED;
            goto out;
        }
        if (r > 0 && i_in >= 0 && p[i_in].revents) {
            ssize_t w = write(w_in, raw + written, raw_len - written);
            if (w > 0) written += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                written = raw_len; /* it stopped reading (bad input, or it answered): its answer stands */
            if (written >= raw_len) {
                close(w_in);
                w_in = -1;
            }
        }
        if (r > 0 && i_out >= 0 && p[i_out].revents) {
            ssize_t got = read(r_out, chunk, sizeof chunk);
            if (got > 0) {
                size += (size_t)got;
                if (size <= MAX_REPLY) append(out, chunk, (size_t)got);
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                reading = 0;
            }
        }
        if (!done && waitpid(pid, status, WNOHANG) == pid) {
            done = 1;
            if (w_in >= 0) {
                close(w_in);
                w_in = -1;
            }
            /* what it wrote before exiting; a process it left behind may hold the pipe */
            while (reading) {
                struct pollfd q = {r_out, POLLIN, 0};
                if (poll(&q, 1, 0) <= 0) break;
                ssize_t got = read(r_out, chunk, sizeof chunk);
                if (got <= 0) break;
                if (size + (size_t)got <= MAX_REPLY) {
                    size += (size_t)got;
                    append(out, chunk, (size_t)got);
                }
            }
            reading = 0;
        }
    }
    rc = OK;
out:
    if (w_in >= 0) close(w_in);
    close(r_out);
    if (pidfd >= 0) close(pidfd);
    return rc;
}

static char **env_with_answer_by(double seconds_from_now) {
    int n = 0;
    while (environ[n]) n++;
    char **env = calloc((size_t)n + 2, sizeof *env);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "AGENT_HOOKS_ANSWER_BY=", 22) != 0) env[k++] = environ[i];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double by = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds_from_now;
    char *var = malloc(64);
    snprintf(var, 64, "AGENT_HOOKS_ANSWER_BY=%.6f", by);
    env[k++] = var;
    env[k] = NULL;
    return env;
}

static void emit(const char *out, size_t out_len, const char *err, size_t err_len) {
    if (err_len) write_all(2, err, err_len);
    if (out_len) write_all(1, out, out_len);
}

static int ensure_server(const options *o) {
    if (o->socket && server_answers(o->socket)) return 0;
    if (left_ms() < 0) goto overrun;
    if (!o->python) return fail(0, "could not start the warm server: no --python");
    const char *words[] = {"serve", "start", "--quiet"};
    char **argv = python_argv(o, words, 3, 0);
    int status = 0, err = 0;
    buffer out = {0};
    int rc = run_bounded(argv, "", 0, NULL, &status, &out, &err);
    if (rc == OVERRUN) goto overrun;
    if (rc != OK) return fail(0, "could not start the warm server: %s", strerror(err));
    emit(out.data, out.len, NULL, 0);
    if (exit_code(status) != 0) {
        char how[64];
        ended(status, how, sizeof how);
        say("could not start the warm server: `agenthooks serve start` %s", how);
        return 1;
    }
    return 0;
overrun:
    return fail(0, "the warm server did not start within %g s", o->timeout);
}

/* the event from stdin: at most MAX_EVENT + 1 bytes, by the deadline (a host may never close it) */
static int read_stdin(buffer *raw, char *why, size_t why_len) {
    char chunk[65536];
    for (;;) {
        int rc = wait_fd(0, POLLIN);
        if (rc == OVERRUN) {
            snprintf(why, why_len, "stdin was not closed within the deadline");
            return OVERRUN;
        }
        ssize_t r = rc == OK ? read(0, chunk, sizeof chunk) : -1;
        if (r == 0) return OK;
        if (r > 0) {
            if (append(raw, chunk, (size_t)r) != 0) {
                snprintf(why, why_len, "cannot read stdin (out of memory)");
                return FAILED;
            }
            if (raw->len > MAX_EVENT) {
                snprintf(why, why_len, "the event is larger than 67,108,864 bytes");
                return FAILED;
            }
            continue;
        }
        if (errno == EINTR || errno == EAGAIN) continue;
        snprintf(why, why_len, "cannot read stdin ([Errno %d] %s)", errno, strerror(errno));
        return FAILED;
    }
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    until = now() + DEFAULT_TIMEOUT;
    options o;
    char why[512];
    int gating_arg = 0;
    for (int i = 1; i < argc; i++) gating_arg |= strcmp(argv[i], "--gating") == 0;
    if (parse(argc - 1, argv + 1, &o, why, sizeof why) != 0) return fail(gating_arg, "bad command line: %s", why);
    until += o.timeout - DEFAULT_TIMEOUT;
    int gating = o.gating;
    if (o.ensure_server) return ensure_server(&o);
    buffer raw = {0};
    int rc = read_stdin(&raw, why, sizeof why);
    if (rc != OK) return fail(gating, "%s", why);
    if (!raw.data) append(&raw, "", 0);
    note[0] = 0;
    if (o.socket) {
        long code = 0;
        const char *out = NULL, *err = NULL;
        size_t out_len = 0, err_len = 0;
        buffer reply = {0};
        rc = ask_server(&o, raw.data, raw.len, &code, &out, &out_len, &err, &err_len, &reply);
        if (rc == OVERRUN) return fail(gating, "the server gave no answer within %g s", o.timeout);
        if (rc == OK) {
            if (gating && code != 0 && code != 2) {
                emit(NULL, 0, err, err_len);
                return fail(1, "the server answered with exit status %ld: blocked", code);
            }
            emit(out, out_len, err, err_len);
            return (int)(code & 0xff);
        }
    } else {
        snprintf(note, sizeof note, "None");
    }
    if (o.autostart && (strncmp(note, "no server", 9) == 0 || strncmp(note, "cannot connect", 14) == 0) && o.python
        && autostart_allowed()) {
        const char *words[] = {"serve", "start", "--quiet", "--autostarted"};
        pid_t pid;
        spawn(python_argv(&o, words, 4, 0), -1, -1, 1, NULL, &pid); /* the event is answered anyway */
    }
    if (!o.python)
        return fail(gating, "no server (%s) and the per-event process failed: no --python", note);
    double left = until - now();
    double give = left - MARGIN > left / 2 ? left - MARGIN : left / 2;
    char **env = env_with_answer_by(give);
    const char *words[] = {host};
    char **pargv = python_argv(&o, words, 1, 1);
    int status = 0, err = 0;
    buffer out = {0};
    rc = run_bounded(pargv, raw.data, raw.len, env, &status, &out, &err);
    if (rc == OVERRUN)
        return fail(gating, "no server (%s) and the per-event process gave no answer within %g s: it was stopped",
                    note, o.timeout);
    if (rc != OK)
        return fail(gating, "no server (%s) and the per-event process failed: [Errno %d] %s: '%s'", note, err,
                    strerror(err), o.python);
    int code = exit_code(status);
    if (gating && ((code != 0 && code != 2) || WIFSIGNALED(status))) {
        char how[64];
        ended(status, how, sizeof how);
        return fail(1, "no server (%s) and the per-event process %s: blocked", note, how);
    }
    emit(out.data, out.len, NULL, 0);
    return code >= 0 ? code : 1;
}
