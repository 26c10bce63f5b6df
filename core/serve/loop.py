"""The answering process's loop: one thread that accepts, reads whole requests and forwards them,
so the process that answers costs next to nothing per request and the cores are the workers'.

With workers (the default), both listeners hand their sockets to one :class:`Loop` (a
``selectors`` loop in one thread):

* it accepts with the listener's own checks (another user's TCP connection is closed before one
  byte is read, connection caps, EMFILE shedding: httpserver.py, peers.py), and cuts a connection
  whose request does not arrive within ``READ_TIMEOUT`` or that stays idle past ``IDLE_TIMEOUT``,
  without a thread or a worker waiting on it;
* a request it can take as it is, a plain authorised ``POST /hosts/<host>[/command]`` or
  ``POST /fire`` with a ``Content-Length`` within the event size cap, is read whole, then handed
  with its raw body to an idle worker, which decodes it, runs the plugins and writes the whole HTTP response
  (answers.py); the loop forwards those bytes. Every other request (``/status``, ``/shutdown``,
  anything refused or unusual: an unknown host, a relay from another environment, a chunked body,
  ``Expect``, a bad header, a body over the cap) goes, with what was read of it, to a thread running the
  threaded handler (httpserver.Handler), which answers or refuses it exactly as without the loop;
* a worker that does not answer by the adapter's deadline is killed and replaced, and the request
  gets ``adapter.failure`` (a deny on gating events), built only then from the raw event; a worker
  that dies mid-request the same; one that died while idle gets the request re-queued.

Plugin code never runs here, and no worker ever holds a client's connection: a slow client costs
a buffer in the loop, never a worker.
"""

from __future__ import annotations

import json
import logging
import os
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal
from urllib.parse import parse_qs

from ..transports import dispatch
from ..transports.relay import ENV_HEADER as RELAY_HEADER
from . import access, answers
from .workers import WorkerGone, ended, parse_frame

if TYPE_CHECKING:
    from .httpserver import TCPServer, UnixServer
    from .service import Service
    from .workers import Worker

log = logging.getLogger("agent_hooks.serve")

#: the largest request head the loop reads itself
HEAD_MAX = 32 << 10
#: seconds between sweeps of the connections' deadlines
SWEEP = 0.25
_RELAY = RELAY_HEADER.lower()
#: headers that must come at most once for the loop to take the request (else the handler decides)
_SINGLE = ("content-length", "host", "x-agent-hooks-token", "authorization", "connection", _RELAY)


class _Conn:
    __slots__ = ("address", "buf", "close_after", "events", "head", "listener", "out", "scanned", "sock", "until")

    def __init__(self, sock: socket.socket, listener: TCPServer | UnixServer, address: object, until: float) -> None:
        self.sock = sock
        self.listener = listener
        self.address = address
        self.buf = bytearray()
        #: when the loop cuts it (None while a worker has its request)
        self.until: float | None = until
        self.out = b""
        self.close_after = False
        #: the parsed head of the request being read: (route, host, args, body start, length, close)
        self.head: tuple[str, str, list[str], int, int, bool] | None = None
        #: how much of ``buf`` is known to hold no end of the head (a trickled head is scanned once)
        self.scanned = 0
        self.events = 0


class _Job:
    __slots__ = ("args", "close", "conn", "deadline", "host", "out", "raw", "route", "sending", "start", "tries",
                 "until")

    def __init__(self, conn: _Conn, route: str, host: str, args: list[str], raw: bytes, close: bool,
                 deadline: float) -> None:
        self.conn = conn
        self.route = route
        self.host = host
        self.args = args
        self.raw = raw
        self.close = close
        self.start = time.monotonic()
        self.deadline = deadline
        self.until = self.start + deadline
        self.out = b""
        #: the rest of ``out`` waits for the worker's pipe to have room
        self.sending = False
        self.tries = 0


class Loop:
    def __init__(self, service: Service) -> None:
        assert service.workers is not None
        self.service = service
        self.workers = service.workers
        self.read_timeout = access.READ_TIMEOUT
        self.idle_timeout = access.IDLE_TIMEOUT
        self.sel = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.calls: list[Callable[[], None]] = []
        self.thread: threading.Thread | None = None
        self.ident: int | None = None
        self.listeners: set[TCPServer | UnixServer] = set()
        self.conns: dict[socket.socket, _Conn] = {}
        self.pending: deque[_Job] = deque()
        self.busy: dict[Worker, _Job] = {}
        self.next_sweep = 0.0
        self._rwake, self._wwake = os.pipe()
        os.set_blocking(self._rwake, False)
        os.set_blocking(self._wwake, False)
        self.sel.register(self._rwake, selectors.EVENT_READ, ("wake", None))
        self.workers.on_idle = self.wake

    # -- from other threads -----------------------------------------------------------------------

    def wake(self) -> None:
        if threading.get_ident() == self.ident:
            return  # the loop looks for idle workers after every round anyway
        try:
            os.write(self._wwake, b"x")
        except (BlockingIOError, OSError):
            pass  # already woken (or closing)

    def _call(self, call: Callable[[], None]) -> None:
        with self.lock:
            self.calls.append(call)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, daemon=True, name="agent-hooks-serve-loop")
                self.thread.start()
        self.wake()

    def attach(self, listener: TCPServer | UnixServer) -> None:
        """Serve ``listener``'s connections from now on."""
        def add() -> None:
            listener.socket.setblocking(False)
            self.listeners.add(listener)
            self.sel.register(listener.socket, selectors.EVENT_READ, ("listen", listener))

        self._call(add)

    def detach(self, listener: TCPServer | UnixServer) -> None:
        """Stop accepting on ``listener`` and close its connections that wait for a request;
        returns when that is done (requests in a worker are still answered)."""
        done = threading.Event()

        def remove() -> None:
            try:
                if listener in self.listeners:
                    self.listeners.discard(listener)
                    self.sel.unregister(listener.socket)
                for conn in [c for c in self.conns.values() if c.listener is listener and c.until is not None]:
                    self._close(conn)
            finally:
                done.set()

        self._call(remove)
        done.wait()

    # -- the loop ---------------------------------------------------------------------------------

    def _run(self) -> None:
        self.ident = threading.get_ident()
        while True:
            with self.lock:
                calls, self.calls = self.calls, []
                if not calls and not (self.listeners or self.conns or self.busy or self.pending):
                    self.thread = None
                    self.ident = None
                    return
            for call in calls:
                call()
            now = time.monotonic()
            timeout = self.next_sweep - now
            for job in self.busy.values():
                timeout = min(timeout, job.until - now)
            ready = self.sel.select(max(timeout, 0.0))
            # new connections last: connections that ended in the meantime give their slots back first
            ready.sort(key=lambda event: event[0].data[0] == "listen")
            for key, _ in ready:
                kind, obj = key.data
                try:
                    if kind == "conn":
                        self._on_conn(obj)
                    elif kind == "worker":
                        self._from_worker(obj)
                    elif kind == "send":
                        self._to_worker(obj)
                    elif kind == "listen":
                        self._accept(obj)
                    else:
                        while os.read(self._rwake, 512):
                            pass
                except BlockingIOError:
                    pass
                except Exception:  # a bug here must not end the loop: every connection would hang
                    log.exception("the answering loop failed on a %s event", kind)
            try:
                now = time.monotonic()
                if now >= self.next_sweep or any(job.until <= now for job in self.busy.values()):
                    self._sweep(now)
                    self.next_sweep = now + SWEEP
                self._dispatch()
            except Exception:
                log.exception("the answering loop failed")

    def _sweep(self, now: float) -> None:
        for conn in [c for c in self.conns.values() if c.until is not None and c.until <= now]:
            if conn.buf or conn.out:
                log.info("a request did not arrive within %g s: connection cut", self.read_timeout)
            self._close(conn)
        for worker, job in list(self.busy.items()):
            if job.until <= now:
                self._worker_failed(worker, f"no answer within {job.deadline:g} s (a plugin is hung?)", retry=False)
            elif worker.proc.poll() is not None:  # EOF never comes while a plugin's child holds the pipe
                self._worker_failed(worker, ended(worker.proc.returncode))
        late = [job for job in self.pending if job.until <= now]
        for job in late:
            self.pending.remove(job)
            self._fail(job, f"no answer within {job.deadline:g} s (every worker is busy)")

    # -- connections ------------------------------------------------------------------------------

    def _watch(self, conn: _Conn, events: int) -> None:
        if conn.events == events:
            return
        if not conn.events:
            self.sel.register(conn.sock, events, ("conn", conn))
        elif not events:
            self.sel.unregister(conn.sock)
        else:
            self.sel.modify(conn.sock, events, ("conn", conn))
        conn.events = events

    def _close(self, conn: _Conn) -> None:
        self._watch(conn, 0)
        if self.conns.pop(conn.sock, None) is not None:
            conn.listener.shutdown_request(conn.sock)

    def _accept(self, listener: TCPServer | UnixServer) -> None:
        """One connection a round: connections that end meanwhile give their slots back first."""
        try:
            sock, address = listener.get_request()
        except OSError:  # nothing left (or out of descriptors: shed by get_request)
            return
        if not listener.verify_request(sock, address):
            listener.shutdown_request(sock)
            return
        sock.setblocking(False)
        if listener.tcp:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = _Conn(sock, listener, address, time.monotonic() + self.read_timeout)
        self.conns[sock] = conn
        self._watch(conn, selectors.EVENT_READ)

    def _on_conn(self, conn: _Conn) -> None:
        if conn.out:
            self._flush(conn)
            return
        try:
            data = conn.sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        if not conn.buf:  # a request's first bytes: it has READ_TIMEOUT to arrive whole
            conn.until = time.monotonic() + self.read_timeout
        conn.buf += data
        self._parse(conn)

    def _parse(self, conn: _Conn) -> None:
        job = self._request(conn)
        if job is None:
            return
        if job is False:
            self._hand_over(conn)
            return
        self._watch(conn, 0)
        conn.until = None
        self.pending.append(job)

    def _hand_over(self, conn: _Conn) -> None:
        """To a handler thread, with what was read of the request (it answers or refuses it)."""
        self._watch(conn, 0)
        del self.conns[conn.sock]
        conn.sock.setblocking(True)
        conn.listener.hand_over(conn.sock, conn.address, bytes(conn.buf), conn.until)

    def _request(self, conn: _Conn) -> _Job | Literal[False] | None:
        """The request in ``conn.buf`` as a job (taken out of the buffer), None while it is
        incomplete, False when the threaded handler must have it."""
        head = conn.head
        if head is None:
            end = conn.buf.find(b"\r\n\r\n", max(conn.scanned - 3, 0), HEAD_MAX)
            if end < 0:
                conn.scanned = len(conn.buf)
                return False if len(conn.buf) >= HEAD_MAX else None
            conn.scanned = 0
            head = self._head(conn, bytes(conn.buf[:end]).decode("latin-1"), end + 4)
            if head is None:
                return False
            conn.head = head
        route, host, args, start, length, close = head
        if len(conn.buf) < start + length:
            return None
        raw = bytes(conn.buf[start:start + length])
        del conn.buf[:start + length]
        conn.head = None
        try:
            deadline = self.service.host_deadline(host) if route != "fire" else self.service.fire_deadline()
        except Exception:  # the adapter does not load: the threaded handler says so
            return False
        conn.listener.owner.touch(conn.listener.tcp)  # busy, not idle; kept when on TCP (server.py)
        return _Job(conn, route, host, args, raw, close, deadline)

    def _head(self, conn: _Conn, text: str, start: int) -> tuple[str, str, list[str], int, int, bool] | None:
        """(route, host, args, body start, length, close) of a request the loop may take as it is,
        else None: anything else is the threaded handler's, which refuses what must be refused."""
        lines = text.split("\r\n")
        first = lines[0].split(" ")
        if len(first) != 3 or first[0] != "POST" or first[2] != "HTTP/1.1" or len(lines) > 100:
            return None
        target = first[1]
        if not target.startswith("/") or target.startswith("//") or "#" in target \
                or not (target.isascii() and target.isprintable()):
            return None
        path, _, query = target.partition("?")
        parts = [p for p in path.split("/") if p]
        if parts == ["fire"]:
            route, host = "fire", ""
        elif parts[:1] == ["hosts"] and (len(parts) == 2 or (len(parts) == 3 and parts[2] == "command")):
            route, host = ("command" if len(parts) == 3 else "hook"), parts[1]
        else:
            return None
        fields: dict[str, list[str]] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep or not name or not name.isprintable() or " " in name or "\t" in name:
                return None
            fields.setdefault(name.lower(), []).append(value.lstrip(" \t"))
        if "transfer-encoding" in fields or "expect" in fields \
                or any(len(fields.get(name, ())) > 1 for name in _SINGLE):
            return None
        length = fields.get("content-length", [""])[0]
        if not (length.isascii() and length.isdecimal()) or int(length) > dispatch.MAX_EVENT_BYTES:
            return None
        listener = conn.listener
        if listener.tcp:
            peer = str(conn.address[0]) if isinstance(conn.address, tuple) and conn.address else ""
            if access.allowed(peer, fields.get("host", [None])[0], fields.get("x-agent-hooks-token", [None])[0],
                       fields.get("authorization", [None])[0], listener.token) is not None:
                return None
        args: list[str] = []
        if route != "fire":
            from ..bridges import registry

            if registry.find(host) is None:
                return None
            relayed = fields.get(_RELAY)
            if relayed is not None and route == "command" and self.service.refuse_relay(host, relayed[0]) is not None:
                return None
            args = (parse_qs(query).get("arg", []) if query else []) + fields.get("x-agent-hooks-arg", [])
        return route, host, args, start, int(length), fields.get("connection", [""])[0].lower() == "close"

    def _respond(self, conn: _Conn, data: bytes, close: bool) -> None:
        conn.close_after = close
        conn.out = data
        self._flush(conn)

    def _flush(self, conn: _Conn) -> None:
        try:
            sent = conn.sock.send(conn.out)
        except BlockingIOError:
            sent = 0
        except OSError:
            self._close(conn)
            return
        conn.out = conn.out[sent:]
        now = time.monotonic()
        if conn.out:  # the client reads slowly: it has READ_TIMEOUT to take the rest
            if conn.until is None:
                conn.until = now + self.read_timeout
            self._watch(conn, selectors.EVENT_WRITE)
            return
        if conn.close_after or conn.sock not in self.conns:
            self._close(conn)
            return
        self._watch(conn, selectors.EVENT_READ)
        conn.until = now + self.idle_timeout
        if conn.buf:  # the client sent its next request already
            conn.until = now + self.read_timeout
            self._parse(conn)

    # -- workers ----------------------------------------------------------------------------------

    def _dispatch(self) -> None:
        while self.pending:
            worker = self.workers.take()
            if worker is None:
                return
            job = self.pending.popleft()
            if worker.proc.poll() is not None or _dead(worker.pid):  # it died while idle: replaced, the request waits
                log.warning("worker %d: %s; replaced", worker.pid, ended(worker.proc.returncode))
                self.workers.retire(worker, kill=True)
                self.pending.appendleft(job)
                continue
            header = json.dumps({"http": job.route, "host": job.host, "args": job.args}).encode()
            job.out = b"%d %d\n" % (len(header), len(job.raw)) + header + job.raw
            self.busy[worker] = job
            self.sel.register(worker.rfd, selectors.EVENT_READ, ("worker", worker))
            self._to_worker(worker)

    def _to_worker(self, worker: Worker) -> None:
        job = self.busy.get(worker)
        if job is None:
            return
        try:
            sent = os.write(worker.wfd, job.out)
        except BlockingIOError:
            sent = 0
        except OSError as exc:  # EPIPE: it died before it read the whole request, so nothing ran for it
            self._worker_failed(worker, f"the worker stopped reading ({exc.strerror or exc})",
                                undelivered=isinstance(exc, BrokenPipeError))
            return
        job.out = job.out[sent:]
        if job.out and not job.sending:  # the pipe is full: the rest when the worker has read some
            self.sel.register(worker.wfd, selectors.EVENT_WRITE, ("send", worker))
        elif job.sending and not job.out:
            self.sel.unregister(worker.wfd)
        job.sending = bool(job.out)

    def _release_fds(self, worker: Worker) -> _Job:
        job = self.busy.pop(worker)
        for fd in (worker.rfd, worker.wfd) if job.sending else (worker.rfd,):
            try:
                self.sel.unregister(fd)
            except (KeyError, ValueError):
                pass
        job.sending = False
        return job

    def _from_worker(self, worker: Worker) -> None:
        if worker not in self.busy:
            return
        try:
            chunk = os.read(worker.rfd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            code = worker.proc.poll()
            self._worker_failed(worker, ended(code) if code is not None else "the worker closed its answer pipe")
            return
        worker.buf += chunk
        try:
            while True:
                frame = parse_frame(worker.buf)
                if frame is None:
                    return
                header, payload = frame
                if worker.ready:
                    break
                if not header.get("ready"):
                    raise WorkerGone("the worker did not start")
                worker.ready = True
        except WorkerGone as exc:
            self._worker_failed(worker, str(exc))
            return
        job = self._release_fds(worker)
        worker.served += 1
        if worker.served >= self.workers.recycle_after:
            self.workers.retire(worker, kill=False)
        else:
            self.workers.release(worker)
        stats = self.service.stats
        if header.get("rejected"):
            stats.reject()
        else:
            stats.record(job.host or "fire", time.monotonic() - job.start, bool(header.get("blocked")),
                         bool(header.get("failed")))
        for line in header.get("log") or ():
            log.info("%s: %s", job.host, line)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s %s: %s", job.conn.address, job.route, job.host, header.get("status"))
        self._respond(job.conn, payload, job.close)
        job.conn.listener.owner.untouch()

    def _worker_failed(self, worker: Worker, why: str, retry: bool = True, undelivered: bool = False) -> None:
        """The worker gave no answer: it is killed and replaced; its request is answered with the
        failure, or, when no plugin can have run for it (the worker was gone before it ever said it
        was ready, or before it read the whole request), it goes to another worker."""
        job = self._release_fds(worker)
        log.warning("worker %d: %s; killed and replaced", worker.pid, why)
        self.workers.retire(worker, kill=True)
        if retry and (undelivered or not worker.ready) and job.tries <= self.workers.size:
            job.tries += 1
            self.pending.appendleft(job)
            return
        self._fail(job, why)

    def _fail(self, job: _Job, why: str) -> None:
        stats = self.service.stats
        if job.route == "fire":
            stats.reject()
            resp = answers.error(504, why)
        else:
            try:
                answer = self.service.host_failure(job.host, job.args, job.raw, why)
            except Exception as exc:  # never an empty answer on our own error
                log.exception("no failure answer for %s", job.host)
                stats.reject()
                resp = answers.error(500, f"internal error: {exc}")
            else:
                stats.record(job.host, time.monotonic() - job.start, answer.blocked, answer.exit_code != 0)
                resp = answers.host(answer, command=job.route == "command")
        self._respond(job.conn, answers.http(resp), job.close)
        job.conn.listener.owner.untouch()


def _dead(pid: int) -> bool:
    """True when the worker is dead or dying though ``poll`` cannot tell yet: a process with
    threads killed by a signal shows as a zombie before it can be reaped (Linux ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return False
