"""The fast client: ``python -S -I fastclient.py --socket PATH [...] -- HOST [HOST-ARGS...]``.

Run by command-only hosts once per event. It forwards stdin to ``agenthooks serve`` over the unix
socket (HTTP/1.0, ``POST /hosts/HOST/command``) and writes the server's answer: stdout, stderr and
the exit code. It imports nothing beyond what ``python -S`` has already loaded plus ``_socket``:
its start-up is the hook's latency.

When the server cannot be reached (no socket, refused, the server died mid-request, a reply it
cannot read) it answers with the per-event process instead, with the same bytes on stdin, and with
``--autostart`` starts the server for the next event. On any failure of its own on a ``--gating``
event it exits 2 with the reason on stderr: a block in every host whatever its failure setting.

Options (written by ``agent_hooks_core.transports.client.command_for``):
  --socket PATH        the server's unix socket
  --isolation FLAGS    interpreter flags for the per-event process (comma-separated, e.g. -I)
  --gating             the event decides whether an action runs
  --autostart          start the server when it is down
  --timeout SECONDS    how long to wait for the server's answer (default 58)
"""

import _socket
import posix
import sys

DEFAULT_TIMEOUT = 58.0
MAX_REPLY = 256 << 20


class Unreachable(Exception):
    """No usable answer from the server: answer with the per-event process."""


def _parse(argv):
    """[client options] -- HOST [HOST-ARGS...] -> (options, host, host args).

    ``HOST [client options] [-- HOST-ARGS...]`` is read too."""
    opts = {"socket": None, "isolation": "-I", "gating": False, "autostart": False, "timeout": DEFAULT_TIMEOUT}
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
        if arg in ("--gating", "--autostart"):
            opts[arg[2:]] = True
        elif arg in ("--socket", "--isolation", "--timeout"):
            if i + 1 >= len(argv):
                raise ValueError(arg + " needs a value")
            i += 1
            opts[arg[2:]] = float(argv[i]) if arg == "--timeout" else argv[i]
        else:
            raise ValueError("unknown option " + repr(arg))
        i += 1
    if host is None:
        raise ValueError("no -- HOST in the command")
    return opts, host, []


def _header_safe(text):
    return "\r" not in text and "\n" not in text and text.isprintable()


def _ask_server(path, host, args, raw, timeout):
    """(exit code, stdout bytes, stderr bytes) from the server, or Unreachable."""
    try:
        st = posix.stat(path)
    except OSError as exc:
        raise Unreachable("no server socket (" + (exc.strerror or str(exc)) + ")") from None
    if (st.st_mode & 0o170000) != 0o140000 or st.st_uid != posix.getuid():
        raise Unreachable(path + " is not a socket of this user")
    if not all(_header_safe(a) for a in args) or not _header_safe(host):
        raise Unreachable("an argument cannot travel in a header")
    head = ["POST /hosts/" + host + "/command HTTP/1.0", "Host: localhost",
            "Content-Length: " + str(len(raw)), "Connection: close"]
    head += ["X-Agent-Hooks-Arg: " + a for a in args]
    request = ("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape") + raw
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except OSError as exc:
            raise Unreachable("cannot connect (" + (exc.strerror or str(exc)) + ")") from None
        try:
            sock.sendall(request)
            chunks = []
            size = 0
            while True:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_REPLY:
                    raise Unreachable("the reply is too large")
        except _socket.timeout:
            raise TimeoutError(f"the server gave no answer within {timeout:g} s") from None
        except OSError as exc:
            raise Unreachable("the connection failed (" + (exc.strerror or str(exc)) + ")") from None
    finally:
        sock.close()
    reply = b"".join(chunks)
    end = reply.find(b"\r\n\r\n")
    if end < 0:
        raise Unreachable("the server closed the connection without a full answer")
    lines = reply[:end].split(b"\r\n")
    status = lines[0].split(b" ")
    if len(status) < 2 or status[1] != b"200":
        raise Unreachable("the server answered " + lines[0].decode("latin-1"))
    code = out_len = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"x-agent-hooks-exit-code":
            code = int(value)
        elif name == b"x-agent-hooks-stdout-length":
            out_len = int(value)
    body = reply[end + 4:]
    if code is None or out_len is None or out_len > len(body):
        raise Unreachable("the server's answer is incomplete")
    return code, body[:out_len], body[out_len:]


def _spawn(argv, stdin_fd=None, detach=False):
    actions = []
    if stdin_fd is not None:
        actions.append((posix.POSIX_SPAWN_DUP2, stdin_fd, 0))
    if detach:
        devnull = posix.open("/dev/null", posix.O_RDWR)
        actions += [(posix.POSIX_SPAWN_DUP2, devnull, 0), (posix.POSIX_SPAWN_DUP2, devnull, 1),
                    (posix.POSIX_SPAWN_DUP2, devnull, 2)]
    try:
        return posix.posix_spawn(argv[0], argv, posix.environ, file_actions=actions, setsid=detach)
    finally:
        if detach:
            posix.close(devnull)


def _in_process(opts, host, args, raw):
    """The exit code of the per-event process answering ``raw``."""
    flags = [f for f in opts["isolation"].split(",") if f]
    argv = [sys.executable, *flags, "-m", "agent_hooks_core", host, *args]
    r, w = posix.pipe()
    try:
        pid = _spawn(argv, stdin_fd=r)
    finally:
        posix.close(r)
    try:
        view = memoryview(raw)
        while view:
            view = view[posix.write(w, view):]
    except OSError:
        pass  # it stopped reading (bad input, or it answered already): its answer stands
    finally:
        posix.close(w)
    _, status = posix.waitpid(pid, 0)
    return posix.waitstatus_to_exitcode(status)


def _autostart(opts):
    flags = [f for f in opts["isolation"].split(",") if f]
    try:
        _spawn([sys.executable, *flags, "-m", "agent_hooks_core", "serve", "start", "--quiet"], detach=True)
    except OSError:
        pass  # the event is answered anyway; doctor says why the server is down


def _fail(gating, message):
    sys.stderr.write("agent-hooks fast client: " + message + "\n")
    sys.stderr.flush()
    return 2 if gating else 1


def main(argv):
    try:
        opts, host, args = _parse(argv)
    except ValueError as exc:
        return _fail("--gating" in argv, "bad command line: " + str(exc))
    gating = opts["gating"]
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError) as exc:
        return _fail(gating, "cannot read stdin (" + str(exc) + ")")
    note = None
    if opts["socket"]:
        try:
            code, out, err = _ask_server(opts["socket"], host, args, raw, opts["timeout"])
        except Unreachable as exc:
            note = str(exc)
        except TimeoutError as exc:
            return _fail(gating, str(exc))
        except Exception as exc:  # never a traceback, never a silent allow
            note = "client error: " + type(exc).__name__ + ": " + str(exc)
        else:
            if err:
                sys.stderr.buffer.write(err)
                sys.stderr.flush()
            if out:
                sys.stdout.buffer.write(out)
                sys.stdout.flush()
            return code
    if opts["autostart"] and note is not None and note.startswith(("no server", "cannot connect")):
        _autostart(opts)
    try:
        return _in_process(opts, host, args, raw)
    except Exception as exc:
        reason = "no server (" + str(note) + ") and the per-event process failed: " + str(exc)
        return _fail(gating, reason)


if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except BaseException as exc:  # the last line of defence: a gating event still blocks
        code = _fail("--gating" in sys.argv, "internal error: " + type(exc).__name__ + ": " + str(exc))
    sys.stdout.flush()
    sys.exit(code)
