"""One warm worker of the server (started by workers.py): where plugin code runs.

The server (:mod:`.workers`) starts a few of these and sends each one request at a time over the
worker's stdin; the answer goes back on the worker's stdout. Plugin code runs only here, so the
answering process can kill a worker that overruns its deadline (a hung plugin, a catastrophic
regex holding the GIL) and still answer on time. The worker keeps its own :class:`~.pool.Pool` of
runtimes warm between requests, and reloads them when their inputs change (:mod:`.inputs`).

Frames, both directions: ``<header length> <payload length>\\n``, a JSON header, then the payload
bytes (the raw event; empty in answers). Only this module's loop touches the protocol descriptors:
fd 0 and 1 point at /dev/null and stderr (the server's log) before any plugin is imported, and a
child a plugin forks loses the protocol descriptors, so it can neither answer nor hold them open.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

#: the largest frame header we read (a header is a few hundred bytes)
MAX_HEADER = 1 << 20


def write_frame(fd: int, header: dict[str, object], payload: bytes = b"") -> None:
    data = json.dumps(header).encode("utf-8")
    view = memoryview(b"%d %d\n" % (len(data), len(payload)) + data + payload)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> tuple[dict[str, object], bytes] | None:
    """The next frame, or None at EOF or on a malformed one."""
    line = b""
    while not line.endswith(b"\n"):
        ch = os.read(fd, 1)
        if not ch or len(line) > 40:
            return None
        line += ch
    try:
        hsize, psize = (int(x) for x in line.split())
    except ValueError:
        return None
    if not 0 <= hsize <= MAX_HEADER or psize < 0:
        return None
    head = _read_exact(fd, hsize)
    payload = _read_exact(fd, psize)
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
    while True:
        frame = read_frame(rfd)
        if frame is None:
            return 0
        header, payload = frame
        op = header.get("op")
        try:
            if op == "host":
                answer: HostAnswer = service.host_event_inline(str(header["host"]), [str(a) for a in args] if isinstance(args := header["args"], list) else [], payload)
                reply: dict[str, object] = {"answer": dispatch.answer_to_dict(answer)}
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
        try:
            body = json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:
            body = json.dumps({"error": [500, f"the answer cannot be encoded ({exc})"]}).encode()
        data = b"%d 0\n" % len(body) + body
        view = memoryview(data)
        while view:
            view = view[os.write(wfd, view):]


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
