"""The per-event command hands its event to the warm server when one runs for the same inputs.

``agenthooks <host>`` (one process per event: Claude Code ``--transport command``, Codex, Gemini
CLI...) pays for importing pluggy, the runtime and every plugin. When this user's server is up
(``agenthooks serve start``, or started in the background by an earlier event that found none:
:mod:`.autostart`), its workers already hold that runtime warm, so :func:`relay` sends the event
there the way the fast client does (``POST /hosts/<host>/command`` on the unix socket, ``fastclient``'s
request and reply) and writes the server's answer. It runs before the host's record is read, so
a relayed event imports none of pluggy, pydantic or the runtime.

When it answers, and when the process answers itself as before:

* **in this process** (``None``: nothing reached a plugin): no server socket, or one whose place an
  agent could choose (:func:`agent_hooks_core.runpaths.server_socket`); a socket that refuses, or
  whose listener is another user; a server that says it runs for another environment
  (``409``: :func:`agent_hooks_core.runpaths.environment_key` differs, e.g. other settings
  directories, hosts' config variables or ``sys.path``) or that the host has no per-event
  command (``404``); an event it would not answer the same way (no ``cwd`` directory in it: the
  server's working directory is not the agent's; a relative ``--hook``/``--settings``); ``--help``;
  a fast client's fallback (``AGENT_HOOKS_ANSWER_BY`` set: it has tried the server already);
  ``AGENT_HOOKS_RELAY=0``. The bytes already read from stdin are handed on. When no server
  listens at all (no socket, or one that refuses), the process starts one after it has answered
  (:mod:`.autostart`), for the next events.
* **the server's answer**: what the per-event process would have written (the server runs the
  same adapter on the same inputs, in a worker that is killed at the deadline with a deny).
* **the host's failure answer** (a deny/block on gating events): once the whole request was sent,
  the server may be running plugins for it, so a lost answer (the connection cut, an unreadable or
  non-answer reply, no reply by the deadline) is never retried here: running it again could double
  its effects, and a failure of ours never becomes an allow.

Standard library only at import time, like the fast client.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

from . import fastclient

#: ``AGENT_HOOKS_RELAY=0``: always answer in this process
ENV_RELAY = "AGENT_HOOKS_RELAY"
#: set by the fast clients for their per-event fallback (``process.ENV_ANSWER_BY``)
ENV_ANSWER_BY = "AGENT_HOOKS_ANSWER_BY"
#: seconds; the same override as the per-event process and the server (``process.ENV_DEADLINE``)
ENV_DEADLINE = "AGENT_HOOKS_ANSWER_DEADLINE"
#: the per-event process's deadline (``process.DEFAULT_DEADLINE``, every first-party adapter's)
DEADLINE = 55.0
#: the header carrying :func:`agent_hooks_core.runpaths.environment_key`
ENV_HEADER = "X-Agent-Hooks-Environment"
#: statuses with which the server says it ran nothing for this request
NOT_RUN = (b"404", b"409")

_HOSTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bridges", "hosts")


class NotSent(Exception):
    """The server did not get the whole request: nothing of it ran there."""

    def __init__(self, message: str, down: bool = False) -> None:
        super().__init__(message)
        #: no server listens (the socket refuses or is gone), as opposed to one we would not use
        self.down = down


#: set when :func:`relay` found no server listening for this user and environment (no socket, or
#: one that refuses): the process answers, then may start one (:mod:`.autostart`)
found_no_server = False


class Lost(Exception):
    """The server got the request but its answer did not come back (one line: why)."""


def relay(argv: list[str]) -> int | None:
    """``agenthooks HOST ARGS`` answered by the warm server: the exit code, after writing its
    answer; None when this process answers (see the module docstring)."""
    if not argv or os.environ.get(ENV_RELAY, "1") == "0" or os.environ.get(ENV_ANSWER_BY):
        return None
    host, args = argv[0], list(argv[1:])
    if not _first_party_host(host) or not _same_meaning(args):
        return None
    try:
        if os.isatty(0):
            return None  # typed at a terminal: the command says what it reads
        from .. import runpaths

        sock = runpaths.server_socket()
        key = runpaths.environment_key()
    except Exception:  # a run directory we cannot read: the process answers, as without a server
        return None
    if sock is None:
        _no_server()
        return None
    raw = _read_stdin()
    if raw is None or not _has_cwd(raw):
        return None
    try:
        request = fastclient.command_request(host, args, raw, [f"{ENV_HEADER}: {key}"])
    except fastclient.Unreachable:
        return None
    until = time.monotonic() + _deadline()
    try:
        reply = _exchange(sock, request, until)
    except NotSent as exc:
        if exc.down:
            _no_server()
        return None
    except Lost as exc:
        return _failure(host, args, raw, str(exc))
    status = reply[:reply.find(b"\r\n")].split(b" ")
    if len(status) > 1 and status[1] in NOT_RUN:
        return None
    try:
        code, out, err = fastclient.command_reply(reply)
    except (fastclient.Unreachable, ValueError) as exc:
        return _failure(host, args, raw, f"the warm server's answer is unreadable ({exc})")
    fastclient.emit(out, err)
    return code


def _no_server() -> None:
    global found_no_server
    found_no_server = True


def _first_party_host(name: str) -> bool:
    """True for a host of :mod:`agent_hooks_core.bridges.hosts` (the registry's rule for reading
    one record from its own module); third-party hosts answer in this process."""
    module = name.replace("-", "_")
    return module.isidentifier() and not module.startswith("_") and os.path.isfile(os.path.join(_HOSTS, module + ".py"))


def _same_meaning(args: list[str]) -> bool:
    """False when the server would read ``args`` differently (a relative path is the server's
    working directory's) or when they ask for the usage."""
    expect_path = False
    for arg in args:
        if expect_path:
            if not os.path.isabs(arg):
                return False
            expect_path = False
        elif arg in ("--help", "-h"):
            return False
        elif arg in ("--hook", "--settings"):
            expect_path = True
        elif arg.startswith(("--hook=", "--settings=")) and not os.path.isabs(arg.partition("=")[2]):
            return False
    return True


def _read_stdin() -> bytes | None:
    """The event, read once; this process gets the same bytes as its stdin when it answers
    itself. None when it is larger than an event may be (the process refuses it)."""
    import io

    try:
        raw = sys.stdin.buffer.read(fastclient.MAX_EVENT + 1)
    except (OSError, ValueError, AttributeError):
        return None
    raw = raw or b""
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
    return raw if len(raw) <= fastclient.MAX_EVENT else None


def _has_cwd(raw: bytes) -> bool:
    """True when the event names its working directory (a directory): an adapter without one
    takes the process's, and the server's is not the agent's."""
    import json

    try:
        event = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    cwd = event.get("cwd") if isinstance(event, dict) else None
    return isinstance(cwd, str) and os.path.isabs(cwd) and os.path.isdir(cwd)


def _deadline() -> float:
    try:
        value = float(os.environ.get(ENV_DEADLINE, ""))
    except ValueError:
        value = 0.0
    return value if value > 0 else DEADLINE


def _peer_uid(sock: _socket.socket) -> int | None:
    """The uid of the process listening on ``sock`` (``SO_PEERCRED``), None where the kernel does
    not say (the socket is then trusted for its owner and its 0700 directory alone)."""
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:  # struct ucred {pid_t pid; uid_t uid; gid_t gid}: three 32-bit integers
        creds = sock.getsockopt(_socket.SOL_SOCKET, option, 12)
    except OSError:
        return None
    return int.from_bytes(creds[4:8], sys.byteorder)


def _exchange(path: str, request: bytes, until: float) -> bytes:
    """The whole reply to ``request``; NotSent before the server has all of it, Lost after."""
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (AttributeError, OSError) as exc:  # no unix sockets here
        raise NotSent(str(exc)) from None
    try:
        try:
            sock.settimeout(max(until - time.monotonic(), 0.001))
            sock.connect(path)
        except (ConnectionRefusedError, FileNotFoundError) as exc:  # no listener: nothing was sent
            raise NotSent(str(exc), down=True) from None
        except OSError as exc:
            raise NotSent(str(exc)) from None
        uid = _peer_uid(sock)
        if uid is not None and uid != os.getuid():
            raise NotSent(f"the server socket's listener is uid {uid}")
        try:
            sock.sendall(request)
        except OSError as exc:  # the server reads the whole body before anything runs
            raise NotSent(str(exc)) from None
        chunks: list[bytes] = []
        size = 0
        while True:
            left = until - time.monotonic()
            if left <= 0:
                raise Lost(f"the warm server gave no answer within {_deadline():g} s")
            sock.settimeout(left)
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                raise Lost(f"the warm server gave no answer within {_deadline():g} s") from None
            except OSError as exc:
                raise Lost(f"the connection to the warm server failed ({exc.strerror or exc})") from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > fastclient.MAX_REPLY:
                raise Lost("the warm server's answer is too large")
    finally:
        sock.close()
    if not chunks:
        raise Lost("the warm server closed the connection without an answer")
    return b"".join(chunks)


def _failure(host: str, args: list[str], raw: bytes, problem: str) -> int:
    """The host's failure answer to ``raw`` (a deny/block on gating events), written; its exit code.
    Should even that fail, exit 2 with one line: a block in every command host."""
    try:
        return _adapter_failure(host, args, raw, problem)
    except BaseException as exc:
        sys.stderr.write(f"agenthooks {host}: {problem}; and the failure answer failed ({type(exc).__name__}: {exc})\n")
        sys.stderr.flush()
        return 2


def _adapter_failure(host: str, args: list[str], raw: bytes, problem: str) -> int:
    from ..bridges import registry
    from ..bridges.base import UsageError
    from . import dispatch, process

    adapter = registry.adapter(host)
    event_option = None
    try:
        options = adapter.parse_args(args)
        adapter, event_option = adapter.configure(options), options.event
    except UsageError:
        pass
    _, name, _ = dispatch.decode(adapter, raw, event_option)
    return process.write_answer(adapter, adapter.failure(name, problem))
