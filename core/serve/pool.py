"""Runtimes kept warm: one per (cwd, host, hook files, settings file), rebuilt when their inputs change.

**Per-request state.** A runtime holds a few fields that belong to one call, not to the plugins:
``ui``/``has_ui`` (Claude Code's UI records which plugin asked), ``session_id``/``session_file``,
the ``outbox``/``entries`` plugins send to, and the fallback ``loop_state`` (per session). A pooled
runtime's class is swapped for :class:`PooledRuntime`, whose properties read those fields from the
current request (a context variable, which the runtime copies into handler threads), so concurrent
requests on one runtime never see each other's state.

**Hot reload.** Each entry keeps a *stamp*: ``stat()`` of the files its plugin set was built from
(the user and project settings files, the project's ``.agent-hooks`` directory, the trust store,
every hook file loaded, and every ``sys.path`` directory: installing or removing a distribution
changes its directory). A request whose stamp differs rebuilds the runtime through the same
discovery code as the per-event process, so trust rules are identical; entry-point modules
already imported stay imported (``sys.modules``), only what changed is loaded anew.

**Idle entries** are dropped after :data:`IDLE_SECONDS` without a request; at most
:data:`MAX_ENTRIES` are kept (least recently used first out).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ..reducer import LoopState
from ..runtime import Runtime

IDLE_SECONDS = 15 * 60
MAX_ENTRIES = 64
MAX_SESSIONS = 256

#: keyword arguments of runtime_options that belong to one request, not to the runtime
PER_REQUEST = ("ui", "has_ui", "session_id", "session_file")


class RequestState:
    __slots__ = ("entries", "has_ui", "loop_state", "outbox", "rt", "session_file", "session_id", "ui")

    def __init__(self, rt: Runtime, options: dict[str, Any], loop_state: LoopState) -> None:
        from ..context import NoUI

        self.rt = rt
        ui = options.get("ui")
        self.ui = ui if ui is not None else NoUI()
        has_ui = options.get("has_ui")
        self.has_ui = bool(ui is not None) if has_ui is None else bool(has_ui)
        self.session_id = options.get("session_id")
        self.session_file = options.get("session_file")
        self.outbox: list[dict[str, Any]] = []
        self.entries: list[dict[str, Any]] = []
        self.loop_state = loop_state


_CURRENT: ContextVar[RequestState | None] = ContextVar("agent_hooks_serve_request", default=None)


def _per_request(name: str) -> property:
    def get(self: Runtime) -> Any:
        state = _CURRENT.get()
        if state is not None and state.rt is self:
            return getattr(state, name)
        return self.__dict__[name]

    def put(self: Runtime, value: Any) -> None:
        state = _CURRENT.get()
        if state is not None and state.rt is self:
            setattr(state, name, value)
        else:
            self.__dict__[name] = value

    return property(get, put)


class PooledRuntime(Runtime):
    """A Runtime whose per-call fields come from the current request (see the module docstring)."""

    ui = _per_request("ui")
    has_ui = _per_request("has_ui")
    session_id = _per_request("session_id")
    session_file = _per_request("session_file")
    outbox = _per_request("outbox")
    entries = _per_request("entries")
    loop_state = _per_request("loop_state")


class Entry:
    def __init__(self, rt: Runtime, stamp: tuple[Any, ...], built: float) -> None:
        self.rt = rt
        self.stamp = stamp
        self.built = built
        self.used = built
        self.sessions: OrderedDict[str, LoopState] = OrderedDict()
        self.lock = threading.Lock()

    def loop_state(self, session_id: str | None) -> LoopState:
        default = self.rt.__dict__["loop_state"].default_fallback
        if session_id is None:
            return LoopState(default)
        with self.lock:
            state = self.sessions.pop(session_id, None) or LoopState(default)
            self.sessions[session_id] = state
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return state


def _stat(path: str | os.PathLike[str] | None) -> Any:
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def stamp_of(rt: Runtime | None, cwd: str, settings: str | None) -> tuple[Any, ...]:
    """What the runtime for ``cwd`` was (or would be) built from, as stat results."""
    from .. import trust
    from ..settings import PROJECT_DIR, SETTINGS_FILE, find_project_root, user_settings_path

    user = Path(settings).expanduser() if settings else user_settings_path()
    root = find_project_root(cwd)
    files: list[Any] = [user, trust.store_path()]
    if root is not None:
        files += [root / PROJECT_DIR, root / PROJECT_DIR / SETTINGS_FILE]
    if rt is not None:
        files += sorted(i.path for i in rt.plugin_info.values() if getattr(i, "path", None) and i.source == "file")
    files += [p for p in sys.path if p]
    return (str(root), *(_stat(f) for f in files))


Builder = Callable[[dict[str, Any]], Runtime]


class Pool:
    """The warm runtimes. ``request(options, build)`` is a context manager giving the runtime for
    one request, with that request's state installed."""

    def __init__(self, idle: float = IDLE_SECONDS, max_entries: int = MAX_ENTRIES) -> None:
        self.idle = idle
        self.max_entries = max_entries
        self.entries: OrderedDict[tuple[Any, ...], Entry] = OrderedDict()
        self.lock = threading.Lock()
        self.key_locks: dict[tuple[Any, ...], threading.Lock] = {}
        self.builds = 0
        self.last_reload: float | None = None

    @staticmethod
    def key(options: dict[str, Any]) -> tuple[Any, ...]:
        rest = {k: v for k, v in options.items() if k not in PER_REQUEST}
        return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in rest.items()))

    def _entry(self, options: dict[str, Any], build: Builder) -> Entry:
        key = self.key(options)
        cwd, settings = str(options.get("cwd") or os.getcwd()), options.get("settings")
        with self.lock:
            entry = self.entries.get(key)
            key_lock = self.key_locks.setdefault(key, threading.Lock())
        if entry is not None and stamp_of(entry.rt, cwd, settings) == entry.stamp:
            return entry
        with key_lock:  # one build per key at a time; others wait for it
            with self.lock:
                entry = self.entries.get(key)
            if entry is not None and stamp_of(entry.rt, cwd, settings) == entry.stamp:
                return entry
            reload = entry is not None
            importlib.invalidate_caches()  # a distribution installed since the last build
            before = stamp_of(None, cwd, settings)
            rt = build({k: v for k, v in options.items() if k not in PER_REQUEST})
            rt.__class__ = PooledRuntime
            stamp = stamp_of(rt, cwd, settings)
            if stamp_of(None, cwd, settings) != before:
                stamp = (None,)  # something changed while we built: build again next time
            new = Entry(rt, stamp, time.monotonic())
            with self.lock:
                self.entries[key] = new
                self.builds += 1
                if reload:
                    self.last_reload = time.time()
        return new

    @contextmanager
    def request(self, options: dict[str, Any], build: Builder) -> Iterator[Runtime]:
        entry = self._entry(options, build)
        now = time.monotonic()
        with self.lock:
            entry.used = now
            key = self.key(options)
            if key in self.entries:
                self.entries.move_to_end(key)
            self._evict(now)
        session = options.get("session_id")
        state = RequestState(entry.rt, options, entry.loop_state(session if isinstance(session, str) else None))
        token = _CURRENT.set(state)
        try:
            yield entry.rt
        finally:
            _CURRENT.reset(token)

    def _evict(self, now: float) -> None:
        for key, entry in list(self.entries.items()):
            if now - entry.used > self.idle or len(self.entries) > self.max_entries:
                del self.entries[key]
                self.key_locks.pop(key, None)

    def plugins(self) -> list[str]:
        with self.lock:
            return sorted({p for e in self.entries.values() for p in e.rt.plugins})

    def __len__(self) -> int:
        return len(self.entries)
