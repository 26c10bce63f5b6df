"""The hook-call engine: the walk over one call's handlers, written once, and its drivers.

:class:`HandlerCalls` holds one call's failure policy: which handler comes next, and what a
handler's answer or exception does to the call (kept, recorded as an error or a timeout, ends the
call, or must keep unwinding because it is not the handler's). The drivers only perform the calls:

* :func:`run_here`: in the calling thread; sync handlers directly or under the SIGALRM watchdog
  (``timed``), async ones on a kept loop. A hook without a timeout (``pre_tool`` in-process) runs here.
* :func:`run_bounded`: the same walk on a worker thread the caller abandons when a handler passes
  its deadline; the caller records the timeout and goes on with the next handler on a fresh
  worker. Whatever the handler does (a bare ``except:`` retry loop, its own SIGALRM handler, a
  regex deep in C code), the call returns by its deadline. Handlers declared
  :func:`~agent_hooks_core.timeouts.cheap` are called in the main thread under the SIGALRM
  watchdog instead: a thread hand-off costs more than they do.
* :func:`run_async`: ``afire``; async handlers are awaited on the host's loop, sync ones are
  called through ``timed``.

The same walk serves ``hook_called`` (:class:`MetaSink`: every handler runs, errors go on the
outcome).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar

from .errors import HookError, HookTimeout, describe
from .timeouts import (
    CHEAP,
    GRACE,
    Watch,
    await_with_timeout,
    is_foreign,
    main_watchdog,
    run_coroutine,
    run_watched,
)

if TYPE_CHECKING:
    from .runtime import Handler, Outcome

Q = TypeVar("Q")
R = TypeVar("R")

#: ``timed(func, args)``: a sync handler's call under a deadline
Timed = Callable[[Callable[..., object], tuple[object, ...]], object]


class Sink(Protocol):
    """Where answers and failures go: a :class:`~agent_hooks_core.reducer.Reduction`, or :class:`MetaSink`."""

    def accept(self, plugin: str, answer: object) -> bool: ...

    def fail(self, plugin: str, message: str, kind: str = "error") -> bool: ...


class MetaSink:
    """``hook_called``: answers are ignored, failures are recorded on the outcome, nothing stops."""

    __slots__ = ("outcome",)

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome

    def accept(self, plugin: str, answer: object) -> bool:
        return False

    def fail(self, plugin: str, message: str, kind: str = "error") -> bool:
        self.outcome.errors.append(HookError(plugin, "hook_called", message, kind))
        return False


class HandlerCalls:
    """One hook call's walk over its handlers (see the module docstring)."""

    __slots__ = ("aio", "called", "current", "handlers", "sink", "stopped", "subject", "timeout")

    def __init__(self, handlers: list[Handler], sink: Sink, subject: object, timeout: float | None,
                 *, aio: bool = False) -> None:
        self.handlers = handlers
        self.sink = sink
        #: what handlers receive: the event (updated in place by chained answers) or the outcome
        self.subject = subject
        self.timeout = timeout
        #: inside ``afire``: a cancellation of the host's task is the host's, not the handler's
        self.aio = aio
        self.called = 0
        self.current: Handler | None = None
        self.stopped = False

    @property
    def finished(self) -> bool:
        return self.stopped or self.called >= len(self.handlers)

    def next(self) -> Handler | None:
        """The next handler to call, or None when the call is over."""
        if self.stopped or self.called >= len(self.handlers):
            return None
        h = self.current = self.handlers[self.called]
        self.called += 1
        return h

    def limit(self, h: Handler) -> float:
        """How long a watching caller gives ``h``: async ones get a grace to be cancelled in."""
        assert self.timeout is not None
        return self.timeout + GRACE if h.is_async else self.timeout

    def record(self, h: Handler, answer: object, exc: BaseException | None) -> None:
        """Apply what calling ``h`` gave; re-raise what is not the handler's failure."""
        sink = self.sink
        if exc is None:
            try:
                stop = sink.accept(h.plugin, answer)
            except Exception as bad:  # an answer that lies about being a dict or a model
                stop = sink.fail(h.plugin, f"invalid answer: {describe(bad)}", "invalid")
        elif isinstance(exc, HookTimeout):
            if is_foreign(exc):
                raise exc  # an outer call's deadline passed: it is abandoned, not this handler
            stop = sink.fail(h.plugin, timed_out(self.timeout), "timeout")
        elif isinstance(exc, KeyboardInterrupt) or (self.aio and _is_cancellation(exc) and _host_cancelled()):
            raise exc  # the user's or the host's: not the handler's failure
        else:  # whatever a plugin raises (even SystemExit) is its error
            stop = sink.fail(h.plugin, describe(exc))
        if stop:
            self.stopped = True


def _pending(answer: object) -> TypeGuard[Awaitable[object]]:
    """A sync def that returned a coroutine (or another awaitable) instead of an answer."""
    return answer is not None and type(answer) is not dict and inspect.isawaitable(answer)


def _call(calls: HandlerCalls, h: Handler, timed: Timed | None, watched: bool) -> object:
    args = h.args(calls.subject)
    if h.is_async:
        return run_coroutine(h.func(*args), calls.timeout, watched=watched)
    answer = h.func(*args) if timed is None else timed(h.func, args)
    return run_coroutine(answer, calls.timeout, watched=watched) if _pending(answer) else answer


def run_here(calls: HandlerCalls, timed: Timed | None = None, watch: Watch | None = None) -> None:
    """Walk ``calls`` in this thread; with ``watch``, as the worker of :func:`run_bounded`."""
    while (h := calls.next()) is not None:
        if watch is not None:
            watch.enter(calls.limit(h))
        try:
            answer, exc = _call(calls, h, timed, watch is not None), None
        except BaseException as error:
            answer, exc = None, error
        if watch is not None and not watch.leave():
            return  # abandoned: the caller owns the walk now
        calls.record(h, answer, exc)


#: handler list -> (that list, which of its handlers are cheap): the lists are the runtime's own,
#: made once per hook at registration, so this is computed once per list, not per call
_CHEAP_RUNS: dict[int, tuple[list[Handler], tuple[bool, ...]]] = {}


def _cheap_flags(handlers: list[Handler]) -> tuple[bool, ...]:
    key = id(handlers)
    known = _CHEAP_RUNS.get(key)
    if known is not None and known[0] is handlers and len(known[1]) == len(handlers):
        return known[1]
    flags = tuple(not h.is_async and getattr(h.func, CHEAP, False) is True for h in handlers)
    if len(_CHEAP_RUNS) > 1024:  # runtimes come and go in tests and reloads
        _CHEAP_RUNS.clear()
    _CHEAP_RUNS[key] = (handlers, flags)
    return flags


def _run_cheap_here(calls: HandlerCalls, flags: tuple[bool, ...], wd: Any, enter: Callable[[], object]) -> None:
    """Call the cheap handlers from here on in this thread, each under its own watchdog deadline.

    What ``_Watchdog.call`` does, written out, with one frame for the whole run whose token and
    deadline are rewritten per handler (this loop is the whole cost of a cheap handler). The
    deadline is written before the token: the watchdog never pairs a new handler with the last
    one's deadline."""
    token = enter()
    timeout = calls.timeout
    assert timeout is not None
    clock = time.monotonic
    handlers, subject, record = calls.handlers, calls.subject, calls.record
    count = len(handlers)
    saved = wd.frames
    frame = [0, _FOREVER]
    wd.frames = (*saved, frame)
    try:
        i = calls.called
        while i < count and flags[i] and not calls.stopped:
            h = handlers[i]
            i += 1
            calls.called, calls.current = i, h
            wd.counter += 1
            mine = wd.counter
            frame[1] = clock() + timeout
            frame[0] = mine
            exc: BaseException | None = None
            try:
                try:
                    answer = h.func(*h.args(subject))
                finally:
                    frame[1] = _FOREVER
                if wd.sent[0] == mine:  # it swallowed the interrupt: its answer does not count
                    raise HookTimeout(mine)
                if answer is not None and _pending(answer):
                    answer = run_coroutine(answer, timeout)
            except BaseException as error:
                frame[1] = _FOREVER  # the signal may have landed before the inner finally ran
                answer = None
                exc = HookTimeout() if isinstance(error, HookTimeout) and error.token == mine else error
            record(h, answer, exc)
    finally:
        wd.frames = saved
        var = getattr(token, "var", None)  # enter() set the re-entrancy guard: undo it here
        if var is not None:
            var.reset(token)


_FOREVER = float("inf")


def run_bounded(calls: HandlerCalls, enter: Callable[[], object]) -> None:
    """Walk ``calls`` on worker threads; a handler past its deadline is abandoned, the rest go on.

    ``enter`` runs first on each worker (in its copy of the caller's context): the runtime's
    re-entrancy guard (it returns the ``ContextVar`` token). Handlers declared cheap are called
    here instead, in the main thread (:func:`_run_cheap_here`).
    """
    assert calls.timeout is not None
    flags = _cheap_flags(calls.handlers)
    wd = main_watchdog() if True in flags else None
    while not calls.finished:
        if wd is not None and flags[calls.called]:
            _run_cheap_here(calls, flags, wd, enter)
            continue
        watch = Watch(calls.timeout)

        def walk(watch: Watch = watch) -> None:
            enter()
            run_here(calls, None, watch)

        try:
            run_watched(walk, watch)
        except HookTimeout as exc:
            if is_foreign(exc) or calls.current is None:
                raise
            calls.record(calls.current, None, HookTimeout())


async def run_async(calls: HandlerCalls, timed: Timed | None) -> None:
    """Walk ``calls`` in ``afire``: async handlers awaited here, sync ones through ``timed``."""
    while (h := calls.next()) is not None:
        try:
            answer, exc = await _acall(calls, h, timed), None
        except BaseException as error:
            answer, exc = None, error
        calls.record(h, answer, exc)


async def _acall(calls: HandlerCalls, h: Handler, timed: Timed | None) -> object:
    args = h.args(calls.subject)
    if h.is_async:
        return await await_with_timeout(h.func(*args), calls.timeout)
    answer = h.func(*args) if timed is None else timed(h.func, args)
    if _pending(answer):
        return await await_with_timeout(answer, calls.timeout)
    return answer


def timed_out(timeout: float | None) -> str:
    return f"timed out after {timeout:g}s" if timeout is not None else "timed out"


def _is_cancellation(exc: BaseException) -> bool:
    import asyncio  # afire runs in a loop, so asyncio is imported already: this costs nothing

    return isinstance(exc, asyncio.CancelledError)


def _host_cancelled() -> bool:
    """True when the task running afire is being cancelled (before 3.11: assume so)."""
    import asyncio

    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return True if cancelling is None else bool(cancelling())



# -- step generators: a sequence of calls written once, performed sync or async ------------------

#: a generator that yields requests (``Q``), receives each one's result (or has its exception thrown
#: in) and returns the sequence's result (``R``): HookToolWrapper's pre_tool -> tool -> pre_tool_output -> post_tool
Steps = Generator[Q, object, R]


def drive(steps: Steps[Q, R], perform: Callable[[Q], object]) -> R:
    """Run ``steps`` with a sync ``perform(request)``."""
    value: object = None
    error: Exception | None = None
    while True:
        try:
            request = steps.send(value) if error is None else steps.throw(error)
        except StopIteration as stop:
            result: R = stop.value
            return result
        try:
            value, error = perform(request), None
        except Exception as exc:  # thrown into the generator, which decides
            value, error = None, exc


async def adrive(steps: Steps[Q, R], perform: Callable[[Q], Awaitable[object]]) -> R:
    """Run ``steps`` with an async ``perform(request)``."""
    value: object = None
    error: Exception | None = None
    while True:
        try:
            request = steps.send(value) if error is None else steps.throw(error)
        except StopIteration as stop:
            result: R = stop.value
            return result
        try:
            value, error = await perform(request), None
        except Exception as exc:
            value, error = None, exc
