"""Timeouts a hung synchronous handler cannot defeat.

In the main thread a watchdog thread polls the current deadline and, once it passes, sends
SIGALRM to the main thread; the signal handler raises :class:`HookTimeout` inside the handler
(it interrupts sleeps and busy loops alike). Arming costs two attribute writes per handler, so
the in-process ``fire`` stays cheap. Elsewhere (no signals off the main thread) the handler runs
in a daemon thread that the caller stops waiting for at the deadline.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from .errors import HookTimeout

_TICK = 0.02


class _Watchdog:
    def __init__(self) -> None:
        self.token = 0
        self.deadline = 0.0  # 0.0: disarmed
        self.fired = -1
        self.main_ident = threading.main_thread().ident
        self.thread: threading.Thread | None = None
        self.previous: Any = None

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self.deadline and self.fired == self.token:
            self.deadline = 0.0
            raise HookTimeout()
        prev = self.previous
        if callable(prev):
            prev(signum, frame)

    def _loop(self) -> None:
        while True:
            time.sleep(_TICK)
            token = self.token  # read the token before the deadline: see _on_signal
            deadline = self.deadline
            if deadline and time.monotonic() > deadline and self.fired != token:
                self.fired = token
                assert self.main_ident is not None
                signal.pthread_kill(self.main_ident, signal.SIGALRM)

    def ensure(self) -> bool:
        """Install the signal handler and start the thread; False where that cannot be done."""
        current = signal.getsignal(signal.SIGALRM)
        if current != self._on_signal:
            if threading.current_thread() is not threading.main_thread():
                return False
            self.previous = current
            signal.signal(signal.SIGALRM, self._on_signal)
        if self.thread is None:
            self.thread = threading.Thread(target=self._loop, name="agent-hooks-watchdog", daemon=True)
            self.thread.start()
        return True


_WATCHDOG: _Watchdog | None = None
_HAS_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "pthread_kill")


def call_with_timeout(func: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
    """``func(*args)``, raising :class:`HookTimeout` once ``timeout`` seconds have passed."""
    global _WATCHDOG
    if _HAS_ALARM and threading.current_thread() is threading.main_thread():
        wd = _WATCHDOG
        if wd is None:
            wd = _WATCHDOG = _Watchdog()
        if wd.ensure():
            wd.token += 1
            wd.deadline = time.monotonic() + timeout
            try:
                return func(*args)
            finally:
                wd.deadline = 0.0
    return _call_in_thread(func, args, timeout)


def _call_in_thread(func: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = func(*args)
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=run, name="agent-hooks-handler", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise HookTimeout()
    if "error" in box:
        raise box["error"]
    return box.get("value")
