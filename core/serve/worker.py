"""One warm worker of the server (started by workers.py): where plugin code runs.

The server (:mod:`.workers`) starts a few of these and sends each one request at a time over the
worker's stdin; the answer goes back on the worker's stdout. Plugin code runs only here, so the
answering process can kill a worker that overruns its deadline (a hung plugin, a catastrophic
regex holding the GIL) and still answer on time. The worker keeps its own :class:`~.pool.Pool` of
runtimes warm between requests, and reloads them when their inputs change (:mod:`.inputs`).

Frames, both directions: ``<header length> <payload length>\\n``, a JSON header, then the payload
bytes (the raw event; in answers empty, or the whole HTTP response of a request the answering
process handed over with an ``http`` route: the worker writes it, the answering process forwards
it). Only this module's loop touches the protocol descriptors: fd 0 and 1 point at /dev/null and
stderr (the server's log) before any plugin is imported, and a child a plugin forks loses the protocol descriptors, so it can neither answer nor hold them open.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .service import Service

#: the largest frame header we read (a header is a few hundred bytes)
MAX_HEADER = 1 << 20


def write_frame(fd: int, header: dict[str, object], payload: bytes = b"") -> None:
    data = json.dumps(header).encode("utf-8")
    view = memoryview(b"%d %d\n" % (len(data), len(payload)) + data + payload)
    while view:
        view = view[os.write(fd, view):]


class Reader:
    """Frames from ``fd``, read in large chunks (one ``read`` usually holds a whole frame)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()

    def _fill(self) -> bool:
        chunk = os.read(self.fd, 1 << 16)
        self.buf += chunk
        return bool(chunk)

    def _take(self, size: int) -> bytes | None:
        while len(self.buf) < size:
            if not self._fill():
                return None
        data = bytes(self.buf[:size])
        del self.buf[:size]
        return data

    def frame(self) -> tuple[dict[str, object], bytes] | None:
        """The next frame, or None at EOF or on a malformed one."""
        while (end := self.buf.find(b"\n", 0, 42)) < 0:
            if len(self.buf) > 40 or not self._fill():
                return None
        try:
            hsize, psize = (int(x) for x in self.buf[:end].split())
        except ValueError:
            return None
        del self.buf[:end + 1]
        if not 0 <= hsize <= MAX_HEADER or psize < 0:
            return None
        head = self._take(hsize)
        payload = self._take(psize)
        if head is None or payload is None:
            return None
        header = json.loads(head)
        return (header, payload) if isinstance(header, dict) else None


_PROTOCOL: set[int] = set()


def _forget_protocol() -> None:
    """In a child a plugin forks: it must not answer, nor keep the server's pipes open."""
    for fd in list(_PROTOCOL):
        try:
            os.close(fd)
        except OSError:
            pass
    _PROTOCOL.clear()


def _orphan_watch(parent: int) -> None:
    """End the worker when the server is gone (killed with -9: nobody else will)."""
    while True:
        time.sleep(0.5)  # a poll of the parent's pid, not a synchronisation
        if os.getppid() != parent:
            os._exit(0)


def serve(rfd: int, wfd: int) -> int:
    from ..bridges.base import HostAnswer
    from ..transports import dispatch
    from .service import RequestError, Service

    service = Service(workers=None)
    write_frame(wfd, {"ready": True, "pid": os.getpid()})
    reader = Reader(rfd)
    while True:
        frame = reader.frame()
        if frame is None:
            return 0
        header, payload = frame
        if isinstance(header.get("http"), str):
            reply, body = _http(service, header, payload)
            _write(wfd, reply, body)
            continue
        op = header.get("op")
        try:
            if op == "host":
                answer: HostAnswer = service.host_event_inline(str(header["host"]), _args(header), payload)
                reply = {"answer": dispatch.answer_to_dict(answer)}
            elif op == "fire":
                reply = {"result": service.fire_inline(payload)}
            elif op == "status":
                reply = {"pool": service.pool_status()}
            else:
                reply = {"error": [400, f"unknown operation {op!r}"]}
        except RequestError as exc:
            reply = {"error": [exc.status, str(exc)]}
        except BaseException as exc:  # never leave the server without an answer
            if isinstance(exc, KeyboardInterrupt):
                return 1
            reply = {"error": [500, f"internal error: {dispatch.describe(exc)}"]}
        _write(wfd, reply, b"")


def _args(header: dict[str, object]) -> list[str]:
    args = header.get("args")
    return [str(a) for a in args] if isinstance(args, list) else []


def _write(wfd: int, reply: dict[str, object], payload: bytes) -> None:
    try:
        body = json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        body, payload = json.dumps({"error": [500, f"the answer cannot be encoded ({exc})"]}).encode(), b""
    view = memoryview(b"%d %d\n" % (len(body), len(payload)) + body + payload)
    while view:
        view = view[os.write(wfd, view):]


def _http(service: Service, header: dict[str, object], payload: bytes) -> tuple[dict[str, object], bytes]:
    """A request the answering process handed over whole (its ``http`` route: ``hook``,
    ``command`` or ``fire``): (what it counts, the HTTP response's bytes). The same answers as
    the threaded handler's (answers.py)."""
    from ..transports import dispatch
    from . import answers
    from .service import RequestError

    route = header["http"]
    meta: dict[str, object] = {}
    try:
        if route == "fire":
            result = service.fire_inline(payload)
            meta["blocked"] = result.get("decision") in ("denied", "blocked")
            resp = answers.Response(200, dispatch.encode_body(result) + b"\n", {})
        else:
            answer = service.host_event_inline(str(header["host"]), _args(header), payload)
            meta.update(blocked=answer.blocked, failed=answer.exit_code != 0)
            resp = answers.host(answer, command=route == "command")
    except RequestError as exc:
        meta["rejected"] = True
        resp = answers.error(exc.status, str(exc))
    except Exception as exc:  # never leave the server without an answer
        meta["rejected"] = True
        resp = answers.error(500, f"internal error: {dispatch.describe(exc)}")
    if resp.log:
        meta["log"] = list(resp.log)
    meta["status"] = resp.status
    return meta, answers.http(resp)


def main() -> int:
    rfd, wfd = os.dup(0), os.dup(1)
    _PROTOCOL.update((rfd, wfd))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)  # what plugins print goes to the server's log, never into an answer
    os.close(null)
    sys.stdout = sys.stderr
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_forget_protocol)
    threading.Thread(target=_orphan_watch, args=(os.getppid(),), daemon=True,
                     name="agent-hooks-orphan-watch").start()
    return serve(rfd, wfd)


if __name__ == "__main__":
    sys.exit(main())
