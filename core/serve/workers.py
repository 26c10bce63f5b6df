"""The server's pool of worker processes: plugin code never runs in the process that answers.

:class:`Workers` starts :func:`pool_size` warm workers (:mod:`.worker`) when the server starts and
hands each request to an idle one: the answering loop (loop.py) a whole HTTP request, whose
response the worker writes; a handler thread (:meth:`Workers.call`) the raw event, whose answer
it turns into the response. Either way:

* a worker that gives no answer by the request's deadline (a hung plugin, a regex holding the GIL
  in C, a plugin that closed its descriptors and blocks) is killed with its whole process group
  (children a plugin forked, too) and replaced, while the request gets the caller's failure (a
  deny on gating events);
* a worker that dies (a plugin called ``os._exit``) is replaced the same way;
* a worker is retired after :data:`RECYCLE_AFTER` requests (what plugins leak goes with it);
* workers run in their own session and never inherit the server's sockets or lock.

Throughput grows with the number of workers: each answers one request at a time in its own
interpreter (its own GIL).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("agent_hooks.serve")

#: ``AGENT_HOOKS_SERVE_WORKERS``: how many worker processes (default: one per core, 2 to 8)
ENV_WORKERS = "AGENT_HOOKS_SERVE_WORKERS"
#: requests a worker answers before it is replaced
RECYCLE_AFTER = 2000
#: the largest answer we read from a worker (answers can carry a rewritten event)
MAX_ANSWER = 256 << 20


def pool_size() -> int:
    try:
        value = int(os.environ.get(ENV_WORKERS, ""))
    except ValueError:
        value = 0
    if value > 0:
        return min(value, 64)
    return max(2, min(os.cpu_count() or 2, 8))


class WorkerGone(Exception):
    """The worker gave no answer (one line: why)."""

    #: False when the worker was gone before it got the request (it may go to another one)
    delivered = True


class DeadOnArrival(WorkerGone):
    delivered = False


class Worker:
    def __init__(self) -> None:
        from ..transports.client import python

        self.proc = subprocess.Popen(
            [python(), *_our_flags(), "-c", _BOOT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, start_new_session=True,
            close_fds=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        os.set_blocking(self.wfd, False)
        self.served = 0
        self.buf = bytearray()
        self.ready = False
        self.pool: dict[str, Any] | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill(self) -> None:
        """The worker and every process in its group (what a plugin forked), now."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            try:
                self.proc.kill()
            except OSError:
                pass
        self.close()

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        # reaped by a thread: a worker that ignores EOF must not hold the caller
        threading.Thread(target=self._reap, daemon=True, name="agent-hooks-reap").start()

    def _reap(self) -> None:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()

    # -- one exchange ---------------------------------------------------------------------------

    def _send(self, data: bytes, until: float) -> None:
        view = memoryview(data)
        while view:
            remaining = until - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if not select.select([], [self.wfd], [], remaining)[1]:
                continue
            try:
                view = view[os.write(self.wfd, view):]
            except BlockingIOError:
                continue
            except OSError as exc:
                raise WorkerGone(f"the worker stopped reading ({exc.strerror or exc})") from None

    def _fill(self, until: float, want: int) -> None:
        """Read what the worker sent (up to ``want`` bytes more) into the buffer, by ``until``."""
        while True:
            remaining = until - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if select.select([self.rfd], [], [], min(remaining, 0.5))[0]:
                break
            if self.proc.poll() is not None:  # EOF never comes while a plugin's child holds the pipe
                raise WorkerGone(ended(self.proc.returncode))
        chunk = os.read(self.rfd, max(want, 1 << 16))
        if not chunk:
            try:  # EOF: the worker is ending (or a plugin closed the pipe: then it is killed)
                code: int | None = self.proc.wait(timeout=min(max(until - time.monotonic(), 0), 0.5))
            except subprocess.TimeoutExpired:
                code = None
            raise WorkerGone(ended(code) if code is not None else "the worker closed its answer pipe")
        self.buf += chunk

    def _read(self, size: int, until: float) -> bytes:
        while len(self.buf) < size:
            self._fill(until, min(size - len(self.buf), 1 << 20))
        data, self.buf = self.buf[:size], self.buf[size:]
        return bytes(data)

    def _read_frame(self, until: float) -> dict[str, Any]:
        while b"\n" not in self.buf[:41]:
            if len(self.buf) > 40:
                raise WorkerGone("the worker's answer is malformed")
            self._fill(until, 1 << 16)
        newline = self.buf.index(b"\n")
        line = self._read(newline + 1, until)
        try:
            hsize, psize = (int(x) for x in line.split())
        except ValueError:
            raise WorkerGone("the worker's answer is malformed") from None
        if not 0 <= hsize <= MAX_ANSWER or psize != 0:
            raise WorkerGone("the worker's answer is malformed")
        try:
            data = json.loads(self._read(hsize, until))
        except ValueError:
            raise WorkerGone("the worker's answer is unreadable") from None
        if not isinstance(data, dict):
            raise WorkerGone("the worker's answer is malformed")
        return data

    def exchange(self, header: dict[str, object], payload: bytes, until: float) -> dict[str, Any]:
        try:
            if not self.ready:
                hello = self._read_frame(until)
                if not hello.get("ready"):
                    raise WorkerGone("the worker did not start")
                self.ready = True
            elif self.proc.poll() is not None:
                raise WorkerGone(ended(self.proc.returncode))
        except WorkerGone as exc:
            raise DeadOnArrival(str(exc)) from None
        data = json.dumps(header).encode("utf-8")
        self._send(b"%d %d\n" % (len(data), len(payload)) + data + payload, until)
        reply = self._read_frame(until)
        self.served += 1
        if isinstance(reply.get("pool"), dict):
            self.pool = reply["pool"]
        return reply


#: the worker's start: the current directory off ``sys.path`` first (``-c`` puts it there, and a
#: project directory must never shadow our modules), on every Python version
_BOOT = ("import sys\nif sys.path and sys.path[0] == '': del sys.path[0]\n"
         "from agent_hooks_core.serve.worker import main\nsys.exit(main())")


def _our_flags() -> list[str]:
    """The server's own interpreter flags: a worker sees the same ``sys.path`` (the same plugins)."""
    flags = sys.flags
    if flags.isolated:
        return ["-I"]
    out = ["-E"] if flags.ignore_environment else []
    if flags.no_user_site:
        out.append("-s")
    if getattr(flags, "safe_path", False):
        out.append("-P")
    return out


def parse_frame(buf: bytearray) -> tuple[dict[str, Any], bytes] | None:
    """The first whole frame in ``buf`` (taken out of it), None while it is incomplete;
    WorkerGone for a malformed one."""
    end = buf.find(b"\n", 0, 42)
    if end < 0:
        if len(buf) > 40:
            raise WorkerGone("the worker's answer is malformed")
        return None
    try:
        hsize, psize = (int(x) for x in buf[:end].split())
    except ValueError:
        raise WorkerGone("the worker's answer is malformed") from None
    if not (0 <= hsize <= MAX_ANSWER and 0 <= psize <= MAX_ANSWER):
        raise WorkerGone("the worker's answer is malformed")
    start = end + 1
    if len(buf) < start + hsize + psize:
        return None
    try:
        header = json.loads(buf[start:start + hsize])
    except ValueError:
        raise WorkerGone("the worker's answer is unreadable") from None
    if not isinstance(header, dict):
        raise WorkerGone("the worker's answer is malformed")
    payload = bytes(buf[start + hsize:start + hsize + psize])
    del buf[:start + hsize + psize]
    return header, payload


def ended(code: int | None) -> str:
    if code is not None and code < 0:
        return f"the worker was killed by signal {-code} before answering"
    return f"the worker exited (status {code}) before answering: a plugin ended the process"


class Workers:
    """The pool; :meth:`call` is one request."""

    def __init__(self, size: int | None = None, recycle_after: int = RECYCLE_AFTER) -> None:
        self.size = size or pool_size()
        self.recycle_after = recycle_after
        self.idle: queue.LifoQueue[Worker] = queue.LifoQueue()
        self.lock = threading.Lock()
        self.all: set[Worker] = set()
        self.replaced = 0
        self.closed = False
        self.pools: dict[int, dict[str, Any]] = {}
        #: called when a worker becomes idle (the answering loop waits for one)
        self.on_idle: Callable[[], None] | None = None
        for _ in range(self.size):
            self._add()

    def release(self, worker: Worker) -> None:
        """``worker`` is idle again."""
        self.idle.put(worker)
        if self.on_idle is not None:
            self.on_idle()

    def take(self) -> Worker | None:
        """An idle worker, now, or None."""
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            return None

    def retire(self, worker: Worker, kill: bool) -> None:
        """Replace ``worker`` (killed: it overran or failed) without holding the caller: starting
        the replacement takes a process start."""
        threading.Thread(target=self._drop, args=(worker, kill), daemon=True, name="agent-hooks-replace").start()

    def _add(self) -> None:
        with self.lock:
            if self.closed:
                return
            try:
                worker = Worker()
            except OSError as exc:  # EMFILE, ENOMEM: requests wait for the others, then fail closed
                log.error("could not start a worker: %s", exc)
                return
            self.all.add(worker)
        self.release(worker)

    def _drop(self, worker: Worker, kill: bool) -> None:
        with self.lock:
            self.all.discard(worker)
            self.pools.pop(worker.pid, None)
            self.replaced += 1
        worker.kill() if kill else worker.close()
        self._add()

    def call(self, header: dict[str, object], payload: bytes, deadline: float) -> dict[str, Any]:
        """The worker's reply to one request; WorkerGone when there is none by ``deadline``."""
        until = time.monotonic() + deadline
        why = "no worker"
        for _ in range(self.size + 2):  # bounded: workers that cannot start are not retried forever
            try:
                worker = self.idle.get(timeout=max(until - time.monotonic(), 0.0))
            except queue.Empty:
                raise WorkerGone(f"no answer within {deadline:g} s (every worker is busy)") from None
            try:
                return self._exchange(worker, header, payload, until, deadline)
            except DeadOnArrival as exc:  # it died while idle (and is replaced): the request goes to another
                why = str(exc)
        raise WorkerGone(f"no worker could take the request: {why}")

    def _exchange(self, worker: Worker, header: dict[str, object], payload: bytes, until: float,
                  deadline: float) -> dict[str, Any]:
        try:
            reply = worker.exchange(header, payload, until)
        except TimeoutError:
            log.warning("worker %d overran the %g s deadline: killed and replaced", worker.pid, deadline)
            self._drop(worker, kill=True)
            raise WorkerGone(f"no answer within {deadline:g} s (a plugin is hung?)") from None
        except WorkerGone as exc:
            log.warning("worker %d: %s; replaced", worker.pid, exc)
            self._drop(worker, kill=True)
            raise
        if worker.pool is not None:
            with self.lock:
                self.pools[worker.pid] = worker.pool
        if worker.served >= self.recycle_after:
            self._drop(worker, kill=False)
        else:
            self.release(worker)
        return reply

    def status(self, timeout: float = 2.0) -> dict[str, Any]:
        """Each idle worker's warm runtimes, asked now; a busy worker's as it last reported them."""
        asked: list[Worker] = []
        while True:
            try:
                asked.append(self.idle.get_nowait())
            except queue.Empty:
                break
        until = time.monotonic() + timeout
        for worker in asked:
            try:
                worker.exchange({"op": "status"}, b"", until)
            except (TimeoutError, WorkerGone):
                self._drop(worker, kill=True)
                continue
            with self.lock:
                if worker.pool is not None:
                    self.pools[worker.pid] = worker.pool
            self.release(worker)
        with self.lock:
            pools = {pid: dict(p) for pid, p in self.pools.items()}
            pids = sorted(w.pid for w in self.all)
        return {"workers": pids, "workers_replaced": self.replaced, "pools": pools}

    def close(self) -> None:
        with self.lock:
            self.closed = True
            workers = list(self.all)
            self.all.clear()
        for w in workers:
            w.kill()

