"""HTTP/1.1 for the warm server, on 127.0.0.1 (hosts' ``http`` hooks) and on the unix socket (the
fast client, ``agenthooks serve status|stop``). Standard library ``http.server``, keep-alive
(Claude Code keeps one connection per session), no dependency to vet. With workers, the answering
loop (loop.py) serves both listeners and hands whole hook requests to the workers; every other
request reaches :class:`Handler` in a thread of its own, with what the loop read of it.

Endpoints (docs/serve.md):

* ``POST /hosts/<host>``: the body is the host's event; the answer is what the host reads from a
  command's stdout (``200`` with JSON, ``{}`` for "nothing to say"); our failure on a non-gating
  event is a ``500`` with one line (a non-blocking error), on a gating event the adapter's deny;
* ``POST /hosts/<host>/command``: the same, for the fast client: ``200`` with the exit code and the
  stdout length in ``X-Agent-Hooks-Exit-Code``/``X-Agent-Hooks-Stdout-Length``, stdout then stderr;
  with ``X-Agent-Hooks-Environment`` (a per-event process relaying its event), ``409`` when that is
  not this server's environment key and ``404`` when the host has no per-event command, before
  anything runs;
* ``POST /fire``: ``{"hook", "payload", "dialect"?, "cwd"?}`` -> the Outcome as JSON;
* ``GET /status`` (with ``X-Agent-Hooks-Keep``: no idle exit from now on); ``POST /shutdown`` (unix
  socket only).

Host options travel as ``?arg=--ask&arg=...`` or ``X-Agent-Hooks-Arg`` headers (the command's argv).
Security on TCP: the peer must be loopback, the ``Host`` header must name a loopback address
(DNS rebinding), and ``X-Agent-Hooks-Token`` (or ``Authorization: Bearer``) must carry the user's
secret. The unix socket is 0600 in a 0700 directory: reaching it is the credential.
Every refusal is one line of JSON; the server never answers empty on its own error.

Bounded input (:class:`_Bounded`): nothing of a request's body is read before it is authorised;
a request's line, headers and body must arrive within :data:`READ_TIMEOUT` of its first line (a
new connection's first request within that of connecting), or the connection is cut; an idle
keep-alive connection is closed after :data:`IDLE_TIMEOUT`; connections are capped in total and
per peer (peers.py: per user where the kernel says who it is, and another user's TCP connection is
closed before anything is read); running out of descriptors (EMFILE) sheds the pending connection
instead of spinning on it.
"""

from __future__ import annotations

import errno
import io
import json
import logging
import os
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qs, urlsplit

from ..transports import dispatch
from ..transports.relay import ENV_HEADER as RELAY_HEADER
from . import answers
from .access import IDLE_TIMEOUT, READ_TIMEOUT, allowed
from .service import RequestError, Service

if TYPE_CHECKING:
    from .peers import Caps


class Owner(Protocol):
    """The server a listener belongs to (:class:`.server.Server`): what ``/status`` and
    ``/shutdown`` ask of it."""

    def status(self) -> dict[str, object]: ...
    def request_stop(self) -> None: ...
    def touch(self, tcp: bool) -> None: ...
    def untouch(self) -> None: ...
    def keep(self) -> None: ...

log = logging.getLogger("agent_hooks.serve")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "agent-hooks"
    sys_version = ""
    server: TCPServer | UnixServer
    timeout = IDLE_TIMEOUT  # per read: an idle keep-alive connection ends
    _touched = False  # this request counts as the owner's work in flight (touch/untouch)

    # -- plumbing -------------------------------------------------------------------------------

    def setup(self) -> None:
        super().setup()
        prefix, self._until = self.server.handed.pop(self.connection, (b"", None))
        if prefix:  # what the answering loop read of the request before handing it over
            self.rfile.close()
            self.rfile = io.BufferedReader(_Replay(prefix, self.connection))
        self.server.watch(self.connection, self._until)  # the first request must arrive in time too

    def parse_request(self) -> bool:
        # from its first line, the request must arrive in time (a handed-over one: from when its
        # first bytes came to the loop)
        self.server.watch(self.connection, self._until)
        self._until = None
        return bool(super().parse_request())

    def address_string(self) -> str:
        return str(self.client_address[0]) if self.client_address else "unix"

    def log_message(self, format: str, *args: object) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str) -> None:
        self.server.service.stats.reject()
        log.info("%s %s %s: %d %s", self.address_string(), self.command, self.path, status, message)
        self._reply(answers.error(status, message))

    def _reply(self, resp: answers.Response) -> None:
        self._send(resp.status, resp.body, resp.headers, resp.content_type)

    def _allowed(self) -> str | None:
        """None when the request may be served, else why not (TCP only: see the module docstring)."""
        if not self.server.tcp:
            return None
        return allowed(str(self.client_address[0]), self.headers.get("Host"), self.headers.get("X-Agent-Hooks-Token"),
                       self.headers.get("Authorization"), self.server.token)

    def _body(self) -> bytes | None:
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            self._error(411, "send a Content-Length (no chunked bodies)")
            self.close_connection = True
            return None
        try:
            size = int(length) if length is not None else 0
        except ValueError:
            self._error(400, f"bad Content-Length {length!r}")
            self.close_connection = True
            return None
        if size < 0 or size > dispatch.MAX_EVENT_BYTES:
            self._error(413, f"the body is larger than {dispatch.MAX_EVENT_BYTES:,} bytes")
            self.close_connection = True
            return None
        return self.rfile.read(size) if size else b""

    # -- routes ---------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def do_PUT(self) -> None:
        self._route("PUT")

    def do_DELETE(self) -> None:
        self._route("DELETE")

    def _route(self, method: str) -> None:
        self._touched = False
        try:
            self._serve(method)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # never an empty answer on our own error
            log.exception("internal error on %s %s", method, self.path)
            try:
                self._error(500, f"internal error: {dispatch.describe(exc)}")
            except OSError:
                self.close_connection = True
        finally:
            if self._touched:
                self.server.owner.untouch()

    def _serve(self, method: str) -> None:
        why = self._allowed()
        if why is not None:
            self.close_connection = True  # nothing of an unauthorised body is read
            self._error(403, why)
            return
        self.server.owner.touch(self.server.tcp)  # busy, not idle; kept when on TCP (server.py)
        self._touched = True
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        service: Service = self.server.service
        if parts == ["status"] and method == "GET":
            self.server.unwatch(self.connection)
            if self.headers.get("X-Agent-Hooks-Keep"):  # server.KEEP_HEADER
                self.server.owner.keep()
            self._send(200, json.dumps(self.server.status()).encode() + b"\n")
            return
        if method != "POST":
            self._body()
            self._error(405 if parts in (["fire"], ["shutdown"]) or parts[:1] == ["hosts"] else 404,
                        f"{method} {url.path} is not served")
            return
        body = self._body()
        if body is None:
            return
        self.server.unwatch(self.connection)  # read in time: the work has its own deadline
        if parts == ["shutdown"]:
            if self.server.tcp:
                self._error(403, "shutdown is only served on the unix socket")
                return
            self._send(200, b'{"stopping": true}\n')
            self.server.on_shutdown()
            return
        if parts == ["fire"]:
            try:
                result = service.fire(body)
            except RequestError as exc:
                self._error(exc.status, str(exc))
                return
            self._send(200, dispatch.encode_body(result) + b"\n")
            return
        if parts[:1] == ["hosts"] and len(parts) in (2, 3) and (len(parts) == 2 or parts[2] == "command"):
            args = parse_qs(url.query).get("arg", []) + self.headers.get_all("X-Agent-Hooks-Arg", [])
            relayed = self.headers.get(RELAY_HEADER)
            if relayed is not None and len(parts) == 3:
                refused = service.refuse_relay(parts[1], relayed)
                if refused is not None:
                    self._error(*refused)
                    return
            try:
                answer = service.host_event(parts[1], args, body)
            except RequestError as exc:
                self._error(exc.status, str(exc))
                return
            resp = answers.host(answer, command=len(parts) == 3)
            for line in resp.log:
                log.info("%s: %s", parts[1], line)
            self._reply(resp)
            return
        self._error(404, f"no endpoint {url.path} (see docs/serve.md)")


class _Replay(io.RawIOBase):
    """A connection's bytes, ``prefix`` first: a request the answering loop began to read."""

    def __init__(self, prefix: bytes, sock: socket.socket) -> None:
        super().__init__()
        self.prefix = prefix
        self.raw = socket.SocketIO(sock, "rb")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:  # io's own signature
        if self.prefix:
            size = min(len(buffer), len(self.prefix))
            buffer[:size] = self.prefix[:size]
            self.prefix = self.prefix[size:]
            return size
        return self.raw.readinto(buffer)

    def close(self) -> None:
        self.raw.close()
        super().close()


class TCPHandler(Handler):
    #: headers and body are two writes: without TCP_NODELAY, Nagle's algorithm and the client's
    #: delayed ACK hold the body back ~40 ms on a keep-alive connection
    disable_nagle_algorithm = True


#: a connection (the name ``socket`` is the listener's attribute inside the server classes)
_Sock = socket.socket


class _Bounded:
    """Connection caps, read deadlines and EMFILE shedding for both listeners."""

    socket: _Sock
    caps: Caps

    def _bounded_init(self) -> None:
        from .peers import Caps

        self.caps = Caps()
        self._keys: dict[int, str] = {}
        self._deadlines: dict[_Sock, float] = {}
        self._deadline_lock = threading.Lock()
        self._reserve: int | None = _reserve()
        self._closing = threading.Event()
        #: connections the answering loop handed over: (what it read, the request's deadline)
        self.handed: dict[_Sock, tuple[bytes, float | None]] = {}
        self._stop = threading.Event()
        self._looped = threading.Event()
        threading.Thread(target=self._reap, daemon=True, name="agent-hooks-read-deadlines").start()

    # the answering loop ---------------------------------------------------------------------

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """With workers, the answering loop serves this listener (loop.py); else a thread per
        connection, as ``socketserver`` does."""
        loop = self.service.answering_loop()  # type: ignore[attr-defined]
        if loop is None:
            super().serve_forever(poll_interval)  # type: ignore[misc]
            return
        try:
            if not self._stop.is_set():
                loop.attach(self)
                self._stop.wait()
                loop.detach(self)
        finally:
            self._looped.set()

    def shutdown(self) -> None:
        if self.service.workers is None:  # type: ignore[attr-defined]
            super().shutdown()  # type: ignore[misc]
            return
        self._stop.set()
        self._looped.wait()

    def hand_over(self, conn: _Sock, address: object, prefix: bytes, until: float | None) -> None:
        """A connection from the answering loop, to a thread of its own (socketserver's)."""
        self.handed[conn] = (prefix, until)
        try:
            self.process_request(conn, address)  # type: ignore[attr-defined]
        except Exception:  # no thread to be had: the connection ends, its count with it
            log.exception("no thread for a connection")
            self.handed.pop(conn, None)
            self.shutdown_request(conn)

    # deadlines ------------------------------------------------------------------------------

    def watch(self, conn: _Sock, until: float | None = None) -> None:
        with self._deadline_lock:
            self._deadlines[conn] = time.monotonic() + READ_TIMEOUT if until is None else until

    def unwatch(self, conn: _Sock) -> None:
        with self._deadline_lock:
            self._deadlines.pop(conn, None)

    def _reap(self) -> None:
        while not self._closing.wait(0.25):
            now = time.monotonic()
            with self._deadline_lock:
                late = [c for c, until in self._deadlines.items() if until <= now]
                for c in late:
                    del self._deadlines[c]
            for conn in late:
                log.info("a request did not arrive within %g s: connection cut", READ_TIMEOUT)
                try:
                    conn.shutdown(socket.SHUT_RDWR)  # the handler's read returns: it ends
                except OSError:
                    pass

    # caps -----------------------------------------------------------------------------------

    def verify_request(self, request: Any, client_address: Any) -> bool:  # socketserver's own types
        from .peers import own_uid, peer_key

        key, uid = peer_key(request, client_address)
        own = own_uid()
        if uid is not None and own is not None and uid != own:
            log.warning("refused a connection from another user (uid %d)", uid)
            return False
        why = self.caps.take(key)
        if why is not None:
            log.warning("refused a connection: %s", why)
            return False
        self._keys[id(request)] = key
        return True

    def shutdown_request(self, request: Any) -> None:
        key = self._keys.pop(id(request), None)
        if key is not None:
            self.caps.give(key)
        self.unwatch(request)
        super().shutdown_request(request)  # type: ignore[misc]

    # descriptors ----------------------------------------------------------------------------

    def get_request(self) -> Any:
        try:
            return super().get_request()  # type: ignore[misc]
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                self._shed()
            raise

    def _shed(self) -> None:
        """Out of descriptors: accept the pending connection with the one kept in reserve and
        close it at once, so the listener is not ready again for the same connection (a spin)."""
        log.warning("out of file descriptors: shedding a connection")
        if self._reserve is not None:
            os.close(self._reserve)
            self._reserve = None
        try:
            conn, _ = self.socket.accept()
            conn.close()
        except OSError:
            time.sleep(0.05)  # not even one descriptor: back off instead of spinning
        self._reserve = _reserve()

    def server_close(self) -> None:
        closing = getattr(self, "_closing", None)  # absent when binding failed in __init__
        if closing is not None:
            closing.set()
        if getattr(self, "_reserve", None) is not None:
            os.close(self._reserve)  # type: ignore[arg-type]
            self._reserve = None
        super().server_close()  # type: ignore[misc]


def _reserve() -> int | None:
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


class TCPServer(_Bounded, ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # hosts fire hooks in parallel: the stdlib's 5 resets connections
    allow_reuse_address = True  # restart while old connections are in TIME_WAIT (never shares a listener on Linux)
    tcp = True

    def __init__(self, address: tuple[str, int], service: Service, token: str, owner: Owner) -> None:
        super().__init__(address, TCPHandler)
        self.service = service
        self.token = token
        self.owner = owner
        self._bounded_init()

    def status(self) -> dict[str, object]:
        return dict(self.owner.status())

    def on_shutdown(self) -> None:
        self.owner.request_stop()


class UnixServer(_Bounded, socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 256
    tcp = False
    token = ""

    def __init__(self, path: str, service: Service, owner: Owner) -> None:
        super().__init__(path, Handler)
        self.service = service
        self.owner = owner
        self._bounded_init()

    def status(self) -> dict[str, object]:
        return dict(self.owner.status())

    def on_shutdown(self) -> None:
        self.owner.request_stop()
