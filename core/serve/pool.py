"""Runtimes kept warm: one per (cwd, host, hook files, settings file), rebuilt when their inputs change.

**Per-request state.** A runtime holds a few fields that belong to one call, not to the plugins:
``ui``/``has_ui`` (Claude Code's UI records which plugin asked), ``session_id``/``session_file``,
the ``outbox``/``entries`` plugins send to, and the fallback ``loop_state`` (per session). A pooled
runtime's class is swapped for :class:`PooledRuntime`, whose properties read those fields from the
current request (a context variable, which the runtime copies into handler threads), so concurrent
requests on one runtime never see each other's state.

**Hot reload.** Each entry keeps a *stamp* of every input that decides what runs
(:mod:`.inputs`: organisation policy, user and project settings, trust, hook files, ``sys.path``
directories). A request whose stamp differs rebuilds the runtime through the same discovery code
as the per-event process, so trust rules are identical; entry-point modules already imported stay
imported (``sys.modules``), only what changed is loaded anew. The swap is atomic and never
weakens the gate: until the new runtime is built the old one answers; a new runtime that failed to
load a gating plugin the old one had, or whose settings do not load, is refused (the old one stays,
with the error in ``serve status``); a gating plugin that is gone altogether (between the
uninstall and the install of an upgrade) makes every gating hook deny until it is back.

**Idle entries** are dropped after :data:`IDLE_SECONDS` without a request; at most
:data:`MAX_ENTRIES` are kept (least recently used first out).
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..reducer import LoopState
from ..runtime import Runtime
from . import inputs

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
        self.outbox: list[dict[str, object]] = []
        self.entries: list[dict[str, object]] = []
        self.loop_state = loop_state


_CURRENT: ContextVar[RequestState | None] = ContextVar("agent_hooks_serve_request", default=None)


def _per_request(name: str) -> property:
    def get(self: Runtime) -> object:
        state = _CURRENT.get()
        if state is not None and state.rt is self:
            return getattr(state, name)
        return self.__dict__[name]

    def put(self: Runtime, value: object) -> None:
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
    def __init__(self, rt: Runtime, stamp: tuple[object, ...], built: float, policy: str = "") -> None:
        self.rt = rt
        self.stamp = stamp
        self.built = built
        self.used = built
        self.loaded_at = time.time()
        #: the content hash of the policy this runtime enforces (inputs.policy_hash)
        self.policy = policy
        #: why the last reload was refused (this runtime is the last good one), or None
        self.error: str | None = None
        #: gating plugins that disappeared since an earlier runtime of this key (they deny)
        self.missing: set[str] = set()
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

    def describe(self, cwd: str, settings: str | None) -> dict[str, Any]:
        """What ``serve status`` shows for this runtime."""
        return {"cwd": cwd, "policy": self.policy, "loaded_at": self.loaded_at,
                "matches_disk": inputs.stamp_of(self.rt, cwd, settings) == self.stamp,
                "plugins": list(self.rt.plugins), "error": self.error, "missing": sorted(self.missing)}


def gating_plugins(rt: Runtime) -> set[str]:
    """The loaded plugins (not our own gates) that implement a hook that fails closed."""
    from ..discovery.gate import GATING_HOOKS
    from ..plugininfo import LOADED

    return {name for name, info in rt.plugin_info.items()
            if info.status == LOADED and info.source != "builtin" and set(info.hooks) & set(GATING_HOOKS)}


def successor_problem(old: Runtime, new: Runtime) -> tuple[str | None, set[str]]:
    """(why ``new`` must not replace ``old``, the gating plugins of ``old`` that are gone).

    A gating plugin of ``old`` that ``new`` failed to load (a half-written upgrade, a syntax error)
    keeps ``old`` in service; an installed one that is gone altogether (uninstalled) is returned so
    the caller makes every gating hook deny until it is back; one the settings disabled, or a hook
    file that was removed, is a choice."""
    from ..plugininfo import FAILED

    failed, gone = [], set()
    for name in sorted(gating_plugins(old)):
        info = new.plugin_info.get(name)
        if info is None:
            if old.plugin_info[name].source == "entry-point":  # a removed hook file is a person's edit
                gone.add(name)
        elif info.status == FAILED:
            failed.append(f"{name}: {info.reason or 'failed to load'}")
    return ("; ".join(failed) or None), gone


#: the plugin that denies gating hooks while a gating plugin is missing
RELOAD_GATE = "reload-gate"


def gate_missing(rt: Runtime, missing: set[str]) -> None:
    from ..discovery.gate import RequiredGate
    from ..plugininfo import LOADED, PluginInfo

    gate = RequiredGate([f"gating plugin {', '.join(sorted(missing))} disappeared while agent-hooks was "
                         "running (an upgrade in progress?): gating hooks deny until it is installed again "
                         "or the server or session is restarted"])
    rt.register(gate, name=RELOAD_GATE)
    rt.plugin_info[RELOAD_GATE] = PluginInfo(RELOAD_GATE, "builtin", LOADED, reason=gate.reason)


def successor(old: Entry | None, build: Callable[[], Runtime], cwd: str, settings: str | None,
              on_error: Callable[[str], None] | None = None) -> Entry:
    """The entry that answers from now on: a new runtime from ``build()``, or ``old`` when the new
    one must not replace it (see :func:`successor_problem`); the same rule for every long-lived
    runtime (the server's workers, ``serve --stdio``)."""
    importlib.invalidate_caches()  # a distribution installed since the last build
    before = inputs.stamp_of(None, cwd, settings)
    try:
        rt = build()
        problem, gone = successor_problem(old.rt, rt) if old is not None else (None, set())
    except Exception as exc:
        if old is None:
            raise
        from ..errors import describe

        problem, gone = f"could not load: {describe(exc)}", set()
    if problem is not None and old is not None:
        old.error = f"reload refused, still enforcing the policy loaded before: {problem}"
        old.stamp = inputs.stamp_of(old.rt, cwd, settings)  # retried on the next change
        if on_error is not None:
            on_error(old.error)
        return old
    missing = {n for n in (old.missing if old is not None else set()) | gone if n not in rt.plugin_info}
    if missing:
        gate_missing(rt, missing)
        if on_error is not None:
            on_error(f"gating plugin {', '.join(sorted(missing))} disappeared: gating hooks deny")
    stamp = inputs.stamp_of(rt, cwd, settings)
    if inputs.stamp_of(None, cwd, settings) != before:
        stamp = (None,)  # something changed while we built: build again next time
    new = Entry(rt, stamp, time.monotonic(), inputs.policy_hash(rt, cwd, settings))
    new.missing = missing
    return new


Builder = Callable[[dict[str, Any]], Runtime]


class Pool:
    """The warm runtimes. ``request(options, build)`` is a context manager giving the runtime for
    one request, with that request's state installed."""

    def __init__(self, idle: float = IDLE_SECONDS, max_entries: int = MAX_ENTRIES) -> None:
        self.idle = idle
        self.max_entries = max_entries
        self.entries: OrderedDict[tuple[object, ...], Entry] = OrderedDict()
        self.where: dict[tuple[object, ...], tuple[str, str | None]] = {}
        self.lock = threading.Lock()
        self.key_locks: dict[tuple[object, ...], threading.Lock] = {}
        self.builds = 0
        self.last_reload: float | None = None
        self.last_error: str | None = None

    @staticmethod
    def key(options: dict[str, Any]) -> tuple[object, ...]:
        rest = {k: v for k, v in options.items() if k not in PER_REQUEST}
        return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in rest.items()))

    def _entry(self, options: dict[str, Any], build: Builder) -> Entry:
        key = self.key(options)
        cwd, settings = str(options.get("cwd") or os.getcwd()), options.get("settings")
        with self.lock:
            entry = self.entries.get(key)
            key_lock = self.key_locks.setdefault(key, threading.Lock())
        if entry is not None and inputs.stamp_of(entry.rt, cwd, settings) == entry.stamp:
            return entry
        with key_lock:  # one build per key at a time; others wait for it
            with self.lock:
                entry = self.entries.get(key)
            if entry is not None and inputs.stamp_of(entry.rt, cwd, settings) == entry.stamp:
                return entry

            def make() -> Runtime:
                rt = build({k: v for k, v in options.items() if k not in PER_REQUEST})
                rt.__class__ = PooledRuntime
                return rt

            new = successor(entry, make, cwd, settings, self._note_error)
            with self.lock:
                self.entries[key] = new
                self.where[key] = (cwd, settings)
                if new is not entry:
                    self.builds += 1
                    if entry is not None:
                        self.last_reload = time.time()
        return new

    def _note_error(self, message: str) -> None:
        self.last_error = message

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
                self.where.pop(key, None)

    def plugins(self) -> list[str]:
        with self.lock:
            return sorted({p for e in self.entries.values() for p in e.rt.plugins})

    def policies(self) -> list[dict[str, Any]]:
        """Per warm runtime: the policy it enforces and whether that is what is on disk."""
        with self.lock:
            items = [(self.where.get(k, ("?", None)), e) for k, e in self.entries.items()]
        return [e.describe(cwd, settings) for (cwd, settings), e in items]

    def __len__(self) -> int:
        return len(self.entries)
