"""Timeouts a hung handler cannot defeat.

Sync handlers in the main thread: a watchdog thread polls a stack of deadlines ("frames") and,
once one passes, sends SIGALRM to the main thread; the signal handler raises
:class:`~agent_hooks_core.errors.HookTimeout` inside the handler (it interrupts sleeps and busy
loops alike). Arming a frame costs a few attribute writes, so the in-process ``fire`` stays
cheap. Frames nest: a handler that fires another hook keeps its own deadline, and a timeout that
belongs to an outer frame travels through the inner call (``HookTimeout.token``).

Elsewhere (no signals off the main thread) the handler runs in a daemon thread that the caller
stops waiting for at the deadline; the thread gets a copy of the caller's context variables so
the re-entrancy guard still sees it.

Async handlers are awaited in a task that is cancelled at the deadline; in the main thread each
step of the coroutine also runs under a watchdog frame, so an ``async def`` that blocks (a sync
HTTP call, a busy loop) is interrupted too.
"""

from __future__ import annotations

import atexit
import contextvars
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, cast

from .errors import HandlerExit, HookTimeout

if TYPE_CHECKING:
    import asyncio
    from types import FrameType

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., object])

try:  # the C function: signal.getsignal's enum wrapping of a Python handler costs ~4 us per fire
    from _signal import getsignal as _getsignal
except ImportError:  # pragma: no cover - not CPython
    _getsignal = signal.getsignal

_TICK = 0.02
#: a handler that swallowed HookTimeout (bare ``except:``) gets another one this often
_REFIRE = 0.25
#: how long a cancelled task or an abandoned worker thread gets to finish, beyond the timeout
GRACE = 0.25

_HAS_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "pthread_kill")
_MAIN_IDENT = threading.main_thread().ident


class _Watchdog:
    def __init__(self) -> None:
        self.frames: tuple[tuple[int, float], ...] = ()  # (token, deadline), outermost first
        self.counter = 0
        self.pending: int | None = None  # the token a signal in flight is for
        self.sent: tuple[int, float] = (-1, 0.0)
        self.thread: threading.Thread | None = None
        self.previous: object = None  # whatever signal.getsignal returned
        self.handler = self._on_signal  # one bound method, compared by identity-cheap equality

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        token = self.pending
        if token is None:  # not ours: whoever had SIGALRM before us gets it
            prev = self.previous
            if callable(prev):
                prev(signum, frame)
            return
        self.pending = None
        for t, _ in self.frames:
            if t == token:
                raise HookTimeout(token)
        # the frame ended before the signal arrived: nothing to interrupt

    def _loop(self) -> None:
        while True:
            time.sleep(_TICK)
            frames = self.frames
            if not frames or self.pending is not None:
                continue
            now = time.monotonic()
            for token, deadline in frames:
                if now > deadline:
                    last_token, last_at = self.sent
                    if token != last_token or now - last_at > _REFIRE:
                        self.sent = (token, now)
                        self.pending = token
                        assert _MAIN_IDENT is not None
                        signal.pthread_kill(_MAIN_IDENT, signal.SIGALRM)
                    break  # the outermost expired frame owns the timeout

    def ensure(self) -> bool:
        """Install the signal handler and start the thread (main thread only)."""
        current = _getsignal(signal.SIGALRM)
        if current != self.handler:
            self.previous = current
            signal.signal(signal.SIGALRM, self.handler)
        if self.thread is None:
            self.thread = threading.Thread(target=self._loop, name="agent-hooks-watchdog", daemon=True)
            self.thread.start()
        return True

    def call(self, func: Callable[..., T], args: tuple[object, ...], deadline: float) -> T:
        """``func(*args)`` under a frame with ``deadline``; HookTimeout() (token None) when it passes."""
        self.counter += 1
        token = self.counter
        saved = self.frames
        self.frames = (*saved, (token, deadline))
        try:
            try:
                value = func(*args)
            finally:
                self.frames = saved
            if self.sent[0] == token:  # it swallowed the interrupt (bare except): discard its answer
                raise HookTimeout(token)
            return value
        except HookTimeout as exc:
            self.frames = saved  # the signal may have landed before the inner finally ran
            if exc.token == token:
                raise HookTimeout() from None
            raise  # an outer frame's deadline: keep unwinding


_WATCHDOG: _Watchdog | None = None


def _main_watchdog() -> _Watchdog | None:
    """The watchdog when called in the main thread on a platform with SIGALRM, else None."""
    global _WATCHDOG
    if not _HAS_ALARM or threading.get_ident() != _MAIN_IDENT:
        return None
    wd = _WATCHDOG
    if wd is None:
        wd = _WATCHDOG = _Watchdog()
    wd.ensure()
    return wd


def is_foreign(exc: HookTimeout) -> bool:
    """True when ``exc`` belongs to an enclosing call's deadline (it must keep unwinding)."""
    if isinstance(exc, HandlerAbandoned):
        return True
    wd = _WATCHDOG
    return exc.token is not None and wd is not None and any(t == exc.token for t, _ in wd.frames)


def call_with_timeout(func: Callable[..., T], args: tuple[object, ...], timeout: float) -> T:
    """``func(*args)``, raising :class:`HookTimeout` once ``timeout`` seconds have passed."""
    wd = _main_watchdog()
    if wd is not None:
        return wd.call(func, args, time.monotonic() + timeout)
    return call_in_thread(func, args, timeout)


#: the attribute :func:`cheap` sets on a handler function
CHEAP = "agent_hooks_cheap"


def cheap(func: F) -> F:
    """Declare a sync hook handler cheap: it returns quickly and never swallows interrupts.

    A timed hook then calls it in the calling thread under the SIGALRM watchdog (main thread;
    a hung handler is still interrupted at its deadline) instead of on a worker thread the call
    can abandon: no thread hand-off, which costs more than a small handler. The promise matters:
    a cheap handler that swallows :class:`HookTimeout` (a bare ``except:`` retry loop) or replaces
    the SIGALRM handler can hold the caller. Off the main thread it runs on a worker as usual.
    Usable above or below ``@hookimpl``."""
    setattr(func, CHEAP, True)
    return func


def main_watchdog() -> _Watchdog | None:
    """The SIGALRM watchdog, in the main thread on a platform with SIGALRM; else None."""
    return _main_watchdog()


class TimedCall(Protocol):
    """``call(func, args)``: ``func(*args)`` under a deadline (what :func:`timed_caller` returns)."""

    def __call__(self, func: Callable[..., T], args: tuple[object, ...], /) -> T: ...


def timed_caller(timeout: float) -> TimedCall:
    """``call(func, args)`` running each call under its own ``timeout``, for one ``fire``.

    The thread check and the SIGALRM handler check happen once here, not per handler: with ten
    handlers that is most of what a timeout used to cost (B1 in benchmarks/).
    """
    wd = _main_watchdog()
    if wd is None:
        return lambda func, args: call_in_thread(func, args, timeout)
    call, clock = wd.call, time.monotonic
    return lambda func, args: call(func, args, clock() + timeout)


# -- worker threads a caller can abandon -------------------------------------------------------


class HandlerAbandoned(HookTimeout):
    """Raised (asynchronously) in a worker whose caller stopped waiting for it: it must unwind.

    A handler that ignores it only keeps its own abandoned thread busy; its answer is discarded.
    """


class Watch:
    """What a worker tells the caller waiting for it: the deadline of the handler it is in, if any.

    The worker calls :meth:`enter` before each handler and :meth:`leave` after it; the caller
    abandons the worker once a deadline has passed. ``leave`` is False when that happened: the
    worker must then touch nothing the caller owns.
    """

    __slots__ = ("abandoned", "deadline", "lock", "poll")

    def __init__(self, poll: float) -> None:
        self.lock = threading.Lock()
        self.deadline: float | None = None
        self.abandoned = False
        #: the shortest limit any handler of this call gets: the caller looks at least this often,
        #: so it is never late for a deadline it has not seen yet
        self.poll = poll

    def enter(self, limit: float) -> None:
        self.deadline = time.monotonic() + limit

    def leave(self) -> bool:
        with self.lock:
            self.deadline = None
            return not self.abandoned


class _Worker:
    """A reusable daemon thread; retired (left to finish alone) when its caller abandons it."""

    __slots__ = ("done", "error", "go", "job", "retired", "thread", "value")

    def __init__(self) -> None:
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.job: Callable[[], object] | None = None
        self.value: object = None
        self.error: BaseException | None = None
        self.retired = False
        self.thread = threading.Thread(target=self._loop, name="agent-hooks-handler", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        pid = os.getpid()
        try:
            while not self.retired:
                self.go.acquire()
                try:
                    job, self.job = self.job, None
                    assert job is not None
                    self.value, self.error = job(), None
                except BaseException as exc:  # handed to the caller (or dropped if it left)
                    self.value, self.error = None, exc
                finally:
                    if os.getpid() != pid:
                        # a handler forked and its child came back here: the child has no caller
                        # (only this thread survived the fork) and must not live on holding pipes
                        os._exit(0)
                    self.done.release()
        except HandlerAbandoned:
            pass  # the interrupt arrived after the handler returned: the thread ends all the same

    def interrupt(self) -> None:
        """Raise HandlerAbandoned in the worker at its next bytecode (a sleep or C call ends first)."""
        import ctypes

        ident = self.thread.ident
        if ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(HandlerAbandoned))


#: idle workers; list.append and list.pop are atomic, so threads share it without a lock
_IDLE: list[_Worker] = []
if hasattr(os, "register_at_fork"):  # a forked child has none of these threads
    os.register_at_fork(after_in_child=_IDLE.clear)
_FOREVER = float("inf")


def run_watched(job: Callable[[], T], watch: Watch) -> T:
    """``job()`` on a worker thread (in a copy of the caller's context) while the caller watches.

    Returns what ``job`` returned or raises what it raised; raises :class:`HookTimeout` as soon as
    the handler the worker is in passes its deadline (``watch``). The worker is then abandoned:
    interrupted where Python can interrupt it, never waited for.
    """
    try:
        worker = _IDLE.pop()
    except IndexError:
        worker = _Worker()
    context = contextvars.copy_context()
    worker.job = lambda: context.run(job)
    worker.go.release()
    wait = watch.poll
    while not worker.done.acquire(True, -1 if wait == _FOREVER else wait):
        with watch.lock:
            deadline = watch.deadline
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                watch.abandoned = True
                worker.retired = True
                worker.interrupt()  # under the lock: the worker is still inside the handler
                raise HookTimeout()
        wait = watch.poll if deadline is None else deadline - now
    value, error = worker.value, worker.error
    worker.value = worker.error = None
    _IDLE.append(worker)
    if error is not None:
        raise error
    return cast("T", value)  # what this worker's job returned: job's value


def call_in_thread(func: Callable[..., T], args: tuple[object, ...], timeout: float | None) -> T:
    """``func(*args)`` on a worker thread (with the caller's context); HookTimeout at the deadline."""
    if timeout is None:
        timeout = _FOREVER
    watch = Watch(timeout)
    watch.enter(timeout)
    return run_watched(lambda: func(*args), watch)


# -- async handlers ----------------------------------------------------------------------------


class _Guarded(Generic[T]):
    """Each step of an awaitable runs under a watchdog frame (main thread only)."""

    __slots__ = ("aw", "deadline", "wd")

    def __init__(self, aw: Awaitable[T], deadline: float, wd: _Watchdog) -> None:
        self.aw = aw
        self.deadline = deadline
        self.wd = wd

    def __await__(self) -> Generator[object, object, T]:
        it = self.aw.__await__()
        wd, deadline = self.wd, self.deadline
        value: object = None
        error: BaseException | None = None
        while True:
            try:
                if error is None:
                    yielded = wd.call(it.send, (value,), deadline)
                else:
                    yielded = wd.call(it.throw, (error,), deadline)
            except StopIteration as stop:
                return stop.value
            try:
                value, error = (yield yielded), None
            except GeneratorExit:
                close = getattr(it, "close", None)
                if close is not None:
                    close()
                raise
            except BaseException as exc:  # cancellation and the like go into the handler
                value, error = None, exc


async def _no_exit(aw: Awaitable[T]) -> T:
    try:
        return await aw
    except SystemExit as exc:  # inside a task it would stop the host's event loop
        raise HandlerExit(exc.code) from None


async def await_with_timeout(aw: Awaitable[T], timeout: float | None) -> T:
    """Await ``aw``; past ``timeout`` seconds cancel it and raise :class:`HookTimeout`."""
    if timeout is None:
        try:
            return await aw
        except SystemExit as exc:
            raise HandlerExit(exc.code) from None
    import asyncio  # only async handlers need it: kept off the import of the package (~20 ms)

    wd = _main_watchdog()
    if wd is not None:
        aw = _Guarded(aw, time.monotonic() + timeout, wd)
    task = asyncio.ensure_future(_no_exit(aw))
    try:
        done, _ = await asyncio.wait((task,), timeout=timeout)
    except BaseException:  # the caller was cancelled: so is the handler
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise HookTimeout()
    return task.result()


_MAIN_LOOP: asyncio.AbstractEventLoop | None = None


def _close_main_loop() -> None:
    if _MAIN_LOOP is not None and not _MAIN_LOOP.is_closed():
        _MAIN_LOOP.close()


_LOOPS = threading.local()


def _kept_loop() -> asyncio.AbstractEventLoop:
    """This thread's kept loop (asyncio.run costs ~10x more per call)."""
    import asyncio

    global _MAIN_LOOP
    if threading.get_ident() == _MAIN_IDENT:
        loop = _MAIN_LOOP
        if loop is None or loop.is_closed():
            loop = _MAIN_LOOP = asyncio.new_event_loop()
            atexit.register(_close_main_loop)
        return loop
    loop = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        loop = _LOOPS.loop = asyncio.new_event_loop()
    return loop


def _run_in_kept_loop(coro: Awaitable[T]) -> T:
    """Run ``coro`` on this thread's kept loop."""
    import asyncio

    loop = _kept_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        pending = asyncio.all_tasks(loop)
        if pending:  # what a handler left behind is cancelled, as asyncio.run does
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.wait(pending, timeout=GRACE))


def run_coroutine(aw: Awaitable[T], timeout: float | None, *, watched: bool = False) -> T:
    """Run an async handler from sync code; HookTimeout past ``timeout`` seconds.

    Without a running loop in the main thread, or on a worker a caller watches (``watched``): on
    this thread's kept loop (in the main thread, steps guarded by the watchdog). Elsewhere
    (another thread, or a loop already running here): on a worker thread the caller stops waiting
    for at the deadline.
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if watched or threading.get_ident() == _MAIN_IDENT:
            return _run_in_kept_loop(await_with_timeout(aw, timeout))
    return call_in_thread(asyncio.run, (await_with_timeout(aw, timeout),),
                          None if timeout is None else timeout + GRACE)
