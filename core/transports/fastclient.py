"""The fast client: ``python -S -I fastclient.py --socket PATH [...] -- HOST [HOST-ARGS...]``.

Run by command hosts once per event. It forwards stdin to ``agenthooks serve`` over the unix
socket (HTTP/1.0, ``POST /hosts/HOST/command``) and writes the server's answer: stdout, stderr and
the exit code. It imports nothing beyond what ``python -S`` has already loaded plus ``_socket``:
its start-up is the hook's latency.

When the server cannot be reached (no socket, refused, the server died mid-request, a reply it
cannot read) it answers with the per-event process instead, with the same bytes on stdin, and with
``--autostart`` starts the server for the next event.

One deadline per event (``--timeout``, counted from the client's start) is shared by every stage:
the wait for the server, then the per-event process, which is told what is left
(``AGENT_HOOKS_ANSWER_BY``) and is killed, with its process group, when it overruns. So
the answer, a deny on gating events, arrives before the host's own timeout.

On a ``--gating`` event every failure is a block: a failure of the client itself, and any exit
status other than 0 and 2 (the documented ones) from the server's answer or the per-event process
(an interpreter that cannot import us exits 1, a signal death would be 247) become exit 2 with one
line on stderr, and the output of a process that failed is dropped (it may be half an answer).

``--ensure-server`` (the SessionStart hook of the http transport) asks the server for its status
and exits 0 when it answers (keeping it: a server the per-event command started would otherwise
exit when idle, and serves HTTP only once kept); only when it does not is the full CLI run
(``serve start --quiet``).

Options (written by ``agent_hooks_core.transports.client.command_for``):
  --socket PATH        the server's unix socket
  --isolation FLAGS    interpreter flags for the per-event process (comma-separated, e.g. -I)
  --gating             the event decides whether an action runs
  --autostart          start the server when it is down (as an autostarted server: it exits when
                       idle; not with AGENT_HOOKS_SERVE_AUTOSTART=0)
  --ensure-server      start the server unless it answers; no event
  --timeout SECONDS    the event's whole budget (default 55, under the hosts' 60 s)
  --python PATH        the interpreter of the per-event process (default: this one)

The event read from stdin is bounded: at most 64 MiB (``dispatch.MAX_EVENT_BYTES``), and stdin must
be closed within the deadline; either failure exits like every other failure of ours (2 on a gating
event). The native client (``clients/native``, the ``agent-hooks-client`` distribution) implements
this file's protocol and exits in C; both run against one table of failures (tests/transports).
"""

import _socket
import posix
import sys
import time

DEFAULT_TIMEOUT = 55.0
MAX_REPLY = 256 << 20
#: the largest event read from stdin (``dispatch.MAX_EVENT_BYTES``; this file imports nothing of ours)
MAX_EVENT = 64 << 20
#: exit statuses an answer to a gating event may have: 0 (the answer is on stdout) and 2 (block)
GATING_CODES = (0, 2)
#: seconds of the budget kept for the per-event process to write its answer and exit after its
#: own deadline, before the client kills it
MARGIN = 0.5


class Unreachable(Exception):
    """No usable answer from the server: answer with the per-event process."""


class Overrun(Exception):
    """The event's deadline passed."""


class Options:
    """The client's own options (a plain class: annotations of builtins cost nothing at run time)."""

    def __init__(self) -> None:
        self.socket: str | None = None
        self.isolation = "-I"
        self.gating = False
        self.autostart = False
        self.ensure_server = False
        self.timeout = DEFAULT_TIMEOUT
        #: the interpreter of the per-event process and of ``serve start``
        self.python = sys.executable

    def flags(self) -> "list[str]":
        """The interpreter flags of the per-event process."""
        return [f for f in self.isolation.split(",") if f]


def _parse(argv: "list[str]") -> "tuple[Options, str | None, list[str]]":
    """[client options] -- HOST [HOST-ARGS...] -> (options, host, host args).

    ``HOST [client options] [-- HOST-ARGS...]`` is read too."""
    opts = Options()
    host = None
    i = 0
    if argv and not argv[0].startswith("-"):
        host = argv[0]
        i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest = argv[i + 1:]
            if host is not None:
                return opts, host, rest
            if not rest:
                raise ValueError("no host after --")
            return opts, rest[0], rest[1:]
        if arg == "--gating":
            opts.gating = True
        elif arg == "--autostart":
            opts.autostart = True
        elif arg == "--ensure-server":
            opts.ensure_server = True
        elif arg in ("--socket", "--isolation", "--timeout", "--python"):
            if i + 1 >= len(argv):
                raise ValueError(arg + " needs a value")
            i += 1
            if arg == "--timeout":
                value = float(argv[i])
                if not value > 0:
                    raise ValueError("--timeout must be a positive number of seconds")
                opts.timeout = value
            elif arg == "--socket":
                opts.socket = argv[i]
            elif arg == "--python":
                opts.python = argv[i]
            else:
                opts.isolation = argv[i]
        else:
            raise ValueError("unknown option " + repr(arg))
        i += 1
    if host is None and not opts.ensure_server:
        raise ValueError("no -- HOST in the command")
    return opts, host, []


def _header_safe(text: str) -> bool:
    return "\r" not in text and "\n" not in text and text.isprintable()


def _left(until: float) -> float:
    remaining = until - time.monotonic()
    if remaining <= 0:
        raise Overrun()
    return remaining


def _exchange(path: str, request: bytes, until: float) -> bytes:
    """The raw reply to ``request`` on the unix socket ``path``, or Unreachable."""
    try:
        st = posix.stat(path)
    except OSError as exc:
        raise Unreachable("no server socket (" + (exc.strerror or str(exc)) + ")") from None
    if (st.st_mode & 0o170000) != 0o140000 or st.st_uid != posix.getuid():
        raise Unreachable(path + " is not a socket of this user")
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    chunks: list[bytes] = []
    try:
        sock.settimeout(_left(until))
        try:
            sock.connect(path)
        except _socket.timeout:
            raise Overrun() from None
        except OSError as exc:
            raise Unreachable("cannot connect (" + (exc.strerror or str(exc)) + ")") from None
        try:
            sock.sendall(request)
            size = 0
            while True:
                sock.settimeout(_left(until))
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_REPLY:
                    raise Unreachable("the reply is too large")
        except _socket.timeout:
            raise Overrun() from None
        except OSError as exc:
            raise Unreachable("the connection failed (" + (exc.strerror or str(exc)) + ")") from None
    finally:
        sock.close()
    return b"".join(chunks)


def command_request(host: str, args: "list[str]", raw: bytes, extra: "list[str] | None" = None) -> bytes:
    """The HTTP request that asks the server to answer ``raw`` as ``agenthooks HOST ARGS`` would;
    Unreachable when an argument cannot travel in a header. ``extra``: more header lines."""
    if not all(_header_safe(a) for a in [*args, *(extra or [])]) or not _header_safe(host):
        raise Unreachable("an argument cannot travel in a header")
    head = ["POST /hosts/" + host + "/command HTTP/1.0", "Host: localhost",
            "Content-Length: " + str(len(raw)), "Connection: close"]
    head += ["X-Agent-Hooks-Arg: " + a for a in args]
    head += extra or []
    return ("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape") + raw


def _ask_server(path: str, host: str, args: "list[str]", raw: bytes, until: float) -> "tuple[int, bytes, bytes]":
    """(exit code, stdout bytes, stderr bytes) from the server, or Unreachable / Overrun."""
    return command_reply(_exchange(path, command_request(host, args, raw), until))


def command_reply(reply: bytes) -> "tuple[int, bytes, bytes]":
    """(exit code, stdout bytes, stderr bytes) of the server's whole reply to :func:`command_request`;
    Unreachable when it is not a full answer (its message names the status line when there is one)."""
    end = reply.find(b"\r\n\r\n")
    if end < 0:
        raise Unreachable("the server closed the connection without a full answer")
    lines = reply[:end].split(b"\r\n")
    status = lines[0].split(b" ")
    if len(status) < 2 or status[1] != b"200":
        raise Unreachable("the server answered " + lines[0].decode("latin-1"))
    code: int | None = None
    out_len: int | None = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"x-agent-hooks-exit-code":
            code = int(value)
        elif name == b"x-agent-hooks-stdout-length":
            out_len = int(value)
    body = reply[end + 4:]
    if code is None or out_len is None or not 0 <= out_len <= len(body):
        raise Unreachable("the server's answer is incomplete")
    return code, body[:out_len], body[out_len:]


def _server_answers(path: str, until: float) -> bool:
    """True when the server answers; it is kept from then on (no idle exit: an http session
    relies on it; ``serve/server.py``)."""
    try:
        reply = _exchange(path, b"GET /status HTTP/1.0\r\nHost: localhost\r\nX-Agent-Hooks-Keep: 1\r\n\r\n", until)
    except (Unreachable, Overrun):
        return False
    return reply.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200"))


def _spawn(argv: "list[str]", stdin_fd: "int | None" = None, stdout_fd: "int | None" = None, detach: bool = False,
           env: "dict[bytes, bytes] | None" = None) -> int:
    actions: list[tuple[int, int, int]] = []
    if stdin_fd is not None:
        actions.append((posix.POSIX_SPAWN_DUP2, stdin_fd, 0))
    if stdout_fd is not None:
        actions.append((posix.POSIX_SPAWN_DUP2, stdout_fd, 1))
    if detach:
        devnull = posix.open("/dev/null", posix.O_RDWR)
        actions += [(posix.POSIX_SPAWN_DUP2, devnull, 0), (posix.POSIX_SPAWN_DUP2, devnull, 1),
                    (posix.POSIX_SPAWN_DUP2, devnull, 2)]
    try:
        # detached: a session of its own; else a process group of its own, so that the client can
        # kill it and whatever it forked
        group = {"setsid": True} if detach else {"setpgroup": 0}
        return posix.posix_spawn(argv[0], argv, posix.environ if env is None else env, file_actions=actions, **group)
    finally:
        if detach:
            posix.close(devnull)


def _ended(status: int) -> str:
    if posix.WIFSIGNALED(status):
        return "was killed by signal " + str(posix.WTERMSIG(status))
    return "exited with status " + str(posix.waitstatus_to_exitcode(status))


def _run_bounded(argv: "list[str]", raw: bytes, until: float,
                 env: "dict[bytes, bytes] | None" = None) -> "tuple[int, bytes]":
    """Run ``argv`` with ``raw`` on its stdin, its stdout collected; (wait status, stdout bytes).

    Overrun (after killing its process group) when it has not ended by ``until``: neither a child
    that never reads its stdin nor one that never exits can hold the client past the deadline."""
    import select

    w_in: int | None  # closed (None) once the input is written; local annotations cost nothing
    r_in, w_in = posix.pipe()
    r_out, w_out = posix.pipe()
    try:
        pid = _spawn(argv, stdin_fd=r_in, stdout_fd=w_out, env=env)
    finally:
        posix.close(r_in)
        posix.close(w_out)
    try:
        pidfd = posix.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None  # polled below instead
    posix.set_blocking(w_in, False)
    view = memoryview(raw)
    out: list[bytes] = []
    size = 0
    status: int | None = None
    reading = True
    try:
        if not view:
            posix.close(w_in)
            w_in = None
        while status is None or reading:
            try:
                remaining = _left(until)
            except Overrun:
                try:
                    posix.killpg(pid, 9)
                except OSError:
                    pass
                if status is None:
                    posix.waitpid(pid, 0)
                raise
            if status is not None and not reading:
                break
            watch = ([r_out] if reading else []) + ([pidfd] if pidfd is not None and status is None else [])
            step = remaining if pidfd is not None or status is not None else min(remaining, 0.02)
            ready, writable, _ = select.select(watch, [w_in] if w_in is not None else [], [], step)
            if w_in is not None and writable:
                try:
                    view = view[posix.write(w_in, view):]
                except BlockingIOError:
                    pass
                except OSError:
                    view = view[:0]  # it stopped reading (bad input, or it answered): its answer stands
                if not view:
                    posix.close(w_in)
                    w_in = None
            if r_out in ready:
                chunk = posix.read(r_out, 1 << 16)
                if chunk:
                    size += len(chunk)
                    if size <= MAX_REPLY:
                        out.append(chunk)
                else:
                    reading = False
            if status is None:
                done, wstatus = posix.waitpid(pid, posix.WNOHANG)
                if done:
                    status = wstatus
                    if w_in is not None:
                        posix.close(w_in)
                        w_in = None
                    # what it wrote before exiting; a process it left behind may hold the pipe
                    while reading and select.select([r_out], [], [], 0)[0]:
                        chunk = posix.read(r_out, 1 << 16)
                        if not chunk:
                            reading = False
                        elif size + len(chunk) <= MAX_REPLY:
                            size += len(chunk)
                            out.append(chunk)
                    reading = False
    finally:
        for fd in (w_in, r_out, pidfd):
            if fd is not None:
                posix.close(fd)
    return status, b"".join(out)


def _read_event(until: float) -> bytes:
    """stdin, at most :data:`MAX_EVENT` bytes, by the deadline (a host may never close it).

    ValueError naming the problem when it is larger; Overrun when it is not closed in time."""
    import select

    chunks: list[bytes] = []
    size = 0
    while True:
        if not select.select([0], [], [], _left(until))[0]:
            continue  # _left raises once the deadline has passed
        chunk = posix.read(0, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_EVENT:
            raise ValueError("the event is larger than " + format(MAX_EVENT, ",") + " bytes")
        chunks.append(chunk)


def _in_process(opts: Options, host: str, args: "list[str]", raw: bytes, until: float) -> "tuple[int, bytes]":
    """(wait status, stdout) of the per-event process answering ``raw`` with what is left of the budget."""
    argv = [opts.python, *opts.flags(), "-m", "agent_hooks_core", host, *args]
    env = dict(posix.environ)
    left = until - time.monotonic()
    env[b"AGENT_HOOKS_ANSWER_BY"] = repr(time.time() + max(left - MARGIN, left / 2)).encode()
    return _run_bounded(argv, raw, until, env)


#: ``AGENT_HOOKS_SERVE_AUTOSTART=0`` (or false/no/off): ``--autostart`` starts nothing
ENV_AUTOSTART = b"AGENT_HOOKS_SERVE_AUTOSTART"


def _autostart(opts: Options) -> None:
    """``serve start --quiet --autostarted`` in the background: a server that exits when idle,
    unless something keeps it (``transports/autostart.py``); it also honours the user settings."""
    if posix.environ.get(ENV_AUTOSTART, b"").strip().lower() in (b"0", b"false", b"no", b"off"):
        return
    try:
        _spawn([opts.python, *opts.flags(), "-m", "agent_hooks_core", "serve", "start", "--quiet", "--autostarted"],
               detach=True)
    except OSError:
        pass  # the event is answered anyway; doctor says why the server is down


def _say(message: str) -> None:
    sys.stderr.write("agent-hooks fast client: " + message + "\n")
    sys.stderr.flush()


def _fail(gating: bool, message: str) -> int:
    _say(message)
    return 2 if gating else 1


def emit(out: bytes, err: bytes = b"") -> None:
    """Write an answer as the per-event command would: stderr, then stdout."""
    if err:
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    if out:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()


def _ensure_server(opts: Options, until: float) -> int:
    """Exit 0 when the server answers; else ``serve start --quiet`` by the full CLI, its status."""
    if opts.socket and _server_answers(opts.socket, until):
        return 0
    status, out = _run_bounded([opts.python, *opts.flags(), "-m", "agent_hooks_core", "serve", "start", "--quiet"],
                               b"", until)
    emit(out)
    code = posix.waitstatus_to_exitcode(status)
    if code != 0:
        _say("could not start the warm server: `agenthooks serve start` " + _ended(status))
        return 1
    return 0


def main(argv: "list[str]") -> int:
    until = time.monotonic() + DEFAULT_TIMEOUT
    try:
        opts, host, args = _parse(argv)
    except ValueError as exc:
        return _fail("--gating" in argv, "bad command line: " + str(exc))
    until += opts.timeout - DEFAULT_TIMEOUT
    gating = opts.gating
    if opts.ensure_server:
        try:
            return _ensure_server(opts, until)
        except Overrun:
            return _fail(False, "the warm server did not start within " + format(opts.timeout, "g") + " s")
    try:
        raw = _read_event(until)
    except Overrun:
        return _fail(gating, "stdin was not closed within the deadline")
    except ValueError as exc:
        return _fail(gating, str(exc))
    except OSError as exc:
        return _fail(gating, "cannot read stdin (" + str(exc) + ")")
    note = None
    if host is None:  # only --ensure-server goes without one (_parse)
        return _fail(gating, "bad command line: no -- HOST in the command")
    if opts.socket:
        try:
            code, out, err = _ask_server(opts.socket, host, args, raw, until)
        except Unreachable as exc:
            note = str(exc)
        except Overrun:
            return _fail(gating, "the server gave no answer within " + format(opts.timeout, "g") + " s")
        except Exception as exc:  # never a traceback, never a silent allow
            note = "client error: " + type(exc).__name__ + ": " + str(exc)
        else:
            if gating and code not in GATING_CODES:
                emit(b"", err)
                return _fail(True, "the server answered with exit status " + str(code) + ": blocked")
            emit(out, err)
            return code
    if opts.autostart and note is not None and note.startswith(("no server", "cannot connect")):
        _autostart(opts)
    try:
        status, out = _in_process(opts, host, args, raw, until)
    except Overrun:
        return _fail(gating, "no server (" + str(note) + ") and the per-event process gave no answer within "
                     + format(opts.timeout, "g") + " s: it was stopped")
    except Exception as exc:
        return _fail(gating, "no server (" + str(note) + ") and the per-event process failed: " + str(exc))
    code = posix.waitstatus_to_exitcode(status)
    if gating and (code not in GATING_CODES or posix.WIFSIGNALED(status)):
        return _fail(True, "no server (" + str(note) + ") and the per-event process " + _ended(status)
                     + ": blocked")
    emit(out)
    return code if code >= 0 else 1


if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except BaseException as exc:  # the last line of defence: a gating event still blocks
        code = _fail("--gating" in sys.argv, "internal error: " + type(exc).__name__ + ": " + str(exc))
    sys.stdout.flush()
    sys.exit(code)
