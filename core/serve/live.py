"""A host-embedded runtime that follows its settings: the same watcher and reload rule as the warm
server and ``serve --stdio``, for a program that keeps a :class:`~agent_hooks_core.Runtime` for its
whole life and opts in::

    from agent_hooks_core.serve.live import LiveRuntime

    live = LiveRuntime(cwd=project)          # Runtime.from_settings(...) keyword arguments
    outcome = live.fire("pre_tool", payload)  # the policy on disk now (checked before each call)

Before each call the inputs that decide what runs are compared with what the runtime was built
from (serve/inputs.py: a few ``stat()`` calls); after a change the runtime is rebuilt, atomically:
the old one answers until the new one is built, a change that does not load keeps the last good
runtime (``live.error`` says why), and a gating plugin that disappeared makes gating hooks deny
(serve/pool.py ``successor``). Per-session state (the fallback loop state) carries over.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ..runtime import Outcome, Runtime
from . import inputs
from .pool import Entry, successor


class LiveRuntime:
    def __init__(self, cwd: str | None = None, settings_path: str | None = None, **options: Any) -> None:
        self.cwd = os.fspath(cwd) if cwd is not None else os.getcwd()
        self.settings = os.fspath(settings_path) if settings_path is not None else None
        extra = {"settings_path": self.settings} if self.settings is not None else {}
        self._build = lambda: Runtime.from_settings(cwd=self.cwd, **extra, **options)
        self._lock = threading.Lock()
        self._entry: Entry = successor(None, self._build, self.cwd, self.settings)

    @property
    def runtime(self) -> Runtime:
        """The runtime in force for the inputs on disk now."""
        entry = self._entry
        if inputs.stamp_of(entry.rt, self.cwd, self.settings) != entry.stamp:
            with self._lock:
                old = self._entry
                if inputs.stamp_of(old.rt, self.cwd, self.settings) != old.stamp:
                    new = successor(old, self._build, self.cwd, self.settings)
                    if new is not old:
                        new.rt.loop_state = old.rt.loop_state
                        self._entry = new
        return self._entry.rt

    @property
    def error(self) -> str | None:
        """Why the last change was not taken (the last good runtime is in force), or None."""
        return self._entry.error

    @property
    def policy(self) -> str:
        """The content hash of the policy in force (as ``serve status`` shows it)."""
        return self._entry.policy

    def fire(self, hook: str, payload: object = None, **kwargs: Any) -> Outcome:
        return self.runtime.fire(hook, payload, **kwargs)

    async def afire(self, hook: str, payload: object = None, **kwargs: Any) -> Outcome:
        return await self.runtime.afire(hook, payload, **kwargs)
