"""The runtime: a pluggy plugin manager and the one typed facade that calls hooks.

``Runtime.fire`` is the only caller of hook implementations. Pluggy registers plugins, validates
their hookimpls against the hookspecs and carries the ``tryfirst``/``trylast`` markers; the
runtime then keeps, per hook, a pre-computed list of handlers in the documented order and calls
them itself, because the rules need what pluggy's multicall cannot give: each handler seeing the
previous handler's output, error isolation per handler, fail-closed answers, timeouts and async
handlers awaited in the same order as sync ones.

Order: ``tryfirst`` handlers, then the rest, then ``trylast`` ones; within each group the
plugins named in ``order`` come first (in that order), then the others in load order.
"""

from __future__ import annotations

import functools
import inspect
import re
import time
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pluggy

from . import _load_runtime
from .context import UI, HookContext, NoUI
from .engine import HandlerCalls, MetaSink, Timed, run_async, run_bounded, run_here
from .errors import ConfigError, HookError, PayloadError, PluginError, UnknownHookError, describe
from .event import HookEvent
from .hookspecs import specs
from .hookspecs.catalogue import BY_NAME, RUNTIME_HOOKS, HookDef, unknown_hook_message
from .hookspecs.markers import PROJECT
from .plugininfo import LOADED, TAMPERED, PluginInfo
from .reducer import LoopState, Reduction, decide
from .stopgate import DEFAULT_LIMIT as DEFAULT_STOP_LIMIT
from .stopgate import StopCounter
from .timeouts import call_in_thread, timed_caller
from .validation import check_payload, too_deep

if TYPE_CHECKING:
    from pluggy import HookImpl
    from pydantic import BaseModel

    from .discovery import Loaded


def _warn(err: object) -> None:
    """A plugin's error on the ``agent_hooks`` logger (silent unless the host configures it).
    ``logging`` is imported here, not with the module: ~3 ms of every bridge process's start."""
    import logging

    log = logging.getLogger("agent_hooks")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
    log.warning("%s", err)

DEFAULT_TIMEOUT = 30.0
#: a plugin's hookimpls at registration: (attribute, function, code object) each
Snapshot = tuple[tuple[str, object, object], ...]
#: the bound bridges give hooks that have no default timeout (``pre_tool``: in-process it may wait
#: for the user): a precise fail-closed answer before the transport's answer deadline (55 s) and
#: the host's own hook timeout (Claude Code: 60 s), which would otherwise decide
BRIDGE_GATE_TIMEOUT = 45.0


@dataclass
class Outcome:
    """What one hook call produced."""

    hook: str
    event: HookEvent
    """the event as the last handler saw it (chained fields applied)"""
    data: dict[str, Any] | None
    """the combined result as a plain dict (None for observe hooks); its values were checked against
    the hook's result fields, so adapters read them without narrowing each"""
    errors: list[HookError] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    """plugins whose answer counted, in order"""
    handlers: list[str] = field(default_factory=list)
    """plugins that were called, in order (a short-circuit leaves the rest out)"""
    duration: float = 0.0
    """seconds"""
    notes: list[str] = field(default_factory=list)
    """what the runtime wants the host to know (e.g. a re-entrant call skipped handlers)"""
    native: object = None
    """the result in a dialect's own shape, when fired with ``dialect=`` (chibi, pi, omp)"""
    stopped_by: str | None = None
    """the plugin that blocked, denied or handled the call (its answer or its failure on a
    fail-closed hook); None when nothing stopped it or the runtime did (no handler: denied)"""
    decided: str | None = field(default=None, repr=False)
    """the decision the reducer made (:attr:`decision` reads it)"""

    @property
    def result(self) -> BaseModel | None:
        """The combined result as this hook's pydantic result model (None for observe hooks)."""
        if self.data is None:
            return None
        from .hookspecs.models import RESULTS

        model = RESULTS[self.hook]
        return model.model_validate(self.data) if model is not None else None

    @property
    def decision(self) -> str:
        """denied, blocked, modified, allowed (or observed for observe hooks)."""
        return self.decided if self.decided is not None else decide(self.hook, self.data)

    @property
    def reason(self) -> str | None:
        data = self.data or {}
        return data.get("reason") or data.get("message")

    def to_dict(self) -> dict[str, object]:
        return {
            "hook": self.hook, "decision": self.decision, "result": self.data,
            "answered": self.answered, "stopped_by": self.stopped_by, "errors": [e.to_dict() for e in self.errors],
            "duration_ms": round(self.duration * 1000, 3),
        }


class Handler:
    """One hookimpl, ready to call."""

    __slots__ = ("call_ctx", "ctx", "external", "func", "is_async", "mode", "plugin")

    def __init__(self, plugin: str, func: Callable[..., Any], argnames: tuple[str, ...], ctx: HookContext,
                 external: bool = False) -> None:
        self.plugin = plugin
        self.func = func
        self.ctx = ctx
        self.is_async = inspect.iscoroutinefunction(func)
        # pluggy checked the names against the spec; the spec's arguments are (subject, ctx)
        if "ctx" in argnames and argnames[-1] != "ctx":
            raise PluginError(f"plugin {plugin!r}: {func.__name__}{argnames}: take ctx last")
        self.mode = len(argnames)
        self.call_ctx = "ctx" in argnames
        #: a subprocess plugin: still called on a re-entrant call (chibi rule)
        self.external = external

    def args(self, event: object) -> tuple[object, ...]:
        mode = self.mode
        if mode == 2:
            return (event, self.ctx)
        if mode == 1:
            return (self.ctx,) if self.call_ctx else (event,)
        return ()


class Runtime:
    """Loads plugins, fires hooks, combines answers. See docs/design.md (host API)."""

    def __init__(
        self,
        plugins: Iterable[object] = (),
        *,
        cwd: str | None = None,
        hook_timeout: float | None = DEFAULT_TIMEOUT,
        timeouts: dict[str, float | None] | None = None,
        order: Iterable[str] = (),
        ui: UI | None = None,
        has_ui: bool | None = None,
        session_file: str | None = None,
        session_id: str | None = None,
        host: str = "python",
        plugin_config: dict[str, object] | None = None,
        default_fallback: str | None = None,
        on_send_message: Callable[[dict[str, object]], None] | None = None,
        on_append_entry: Callable[[dict[str, object]], None] | None = None,
        bounded: bool = True,
        gate_timeout: float | None = None,
        stop_gate_limit: int = DEFAULT_STOP_LIMIT,
    ) -> None:
        import os

        self.cwd = cwd or os.getcwd()
        self.hook_timeout = _check_timeout("hook_timeout", hook_timeout)
        #: the timeout of hooks without a default one (pre_tool), unless ``timeouts`` names them;
        #: None in-process, :data:`BRIDGE_GATE_TIMEOUT` where a transport sets it
        self.gate_timeout = _check_timeout("gate_timeout", gate_timeout)
        self.timeouts: dict[str, float | None] = {}
        for name, value in (timeouts or {}).items():
            if name not in BY_NAME and name != "hook_called":
                raise ConfigError(f"timeouts: {unknown_hook_message(name)}")
            self.timeouts[name] = _check_timeout(f"timeouts.{name}", value)
        if default_fallback not in (None, "call_agent", "call_user"):
            raise ConfigError(f"default_fallback must be call_agent or call_user, not {default_fallback!r}")
        self.order = list(order)
        if isinstance(stop_gate_limit, bool) or not isinstance(stop_gate_limit, int) or stop_gate_limit < 0:
            raise ConfigError(f"stop_gate_limit must be a whole number >= 0, not {stop_gate_limit!r}")
        #: continuations in a row the stop gate may win per session
        self.stop_gate_limit = stop_gate_limit
        self._stop_counter: StopCounter | None = None
        #: plugins whose ``allow`` counts on permission_request (they declare agent_hooks_approver)
        self.approvers: set[str] = set()
        #: True: a timed hook's handlers run on worker threads the call abandons at the deadline,
        #: so it returns in time whatever a handler does. False: in the calling thread, interrupted
        #: by SIGALRM in the main thread (cheaper; a handler can defeat it).
        self.bounded = bounded
        self.ui = ui if ui is not None else NoUI()
        self.has_ui = bool(ui is not None) if has_ui is None else has_ui
        self.session_file = session_file
        self.session_id = session_id
        self.host = host
        self.plugin_config: dict[str, object] = dict(plugin_config or {})
        self.loop_state = LoopState(default_fallback)
        #: messages and entries plugins sent, when the host gave no callback for them
        self.outbox: list[dict[str, object]] = []
        self.entries: list[dict[str, object]] = []
        self._sinks = {"send_message": on_send_message, "append_entry": on_append_entry}
        #: problems found while loading plugins (filled by discovery)
        self.load_errors: list[HookError] = []
        #: what discovery learned about each plugin (name -> PluginInfo); empty for explicit lists
        self.plugin_info: dict[str, PluginInfo] = {}
        #: what discovery built this runtime from (a ``discovery.Loaded``); None for explicit lists
        self.discovery: Loaded | None = None
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(specs)
        self._load_index: dict[str, int] = {}
        self._external: set[str] = set()
        self._contexts: dict[str, HookContext] = {}
        self._handlers: dict[str, list[Handler]] = {}
        self._meta: list[Handler] = []
        #: hooks being fired in the current context (thread or task): the re-entrancy guard
        self._active: ContextVar[tuple[str, ...]] = ContextVar(f"agent_hooks_active_{id(self):x}", default=())
        #: what each registered plugin's hookimpls were at registration: (plugin, snapshot)
        self._pins: dict[str, tuple[object, Snapshot]] = {}
        #: plugins found tampered with (name -> why); sticky: a restored function is still suspect
        self._tampered: dict[str, str] = {}
        self._rebuild()  # every hook has a (possibly empty) handler list, even with no plugin
        for plugin in plugins:
            if isinstance(plugin, tuple):
                self.register(plugin[1], name=plugin[0])
            else:
                self.register(plugin)

    # -- construction from settings ---------------------------------------------------------

    # The package's _load_runtime (set below): the package sits above both this module and
    # discovery, which builds Runtimes, so the runtime never imports discovery (no cycle).
    _settings_loader: ClassVar[Callable[..., Runtime]]

    @classmethod
    def from_settings(cls, cwd: str | None = None, **options: object) -> Runtime:
        """Entry-point plugins, local hook files and settings (user, then project) -> a Runtime."""
        return cls._settings_loader(cwd=cwd, **options)

    # -- plugins -----------------------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None, *, external: bool = False) -> str:
        """Register a module, class instance or object with ``@hookimpl`` functions; returns its name."""
        name = name or _plugin_name(plugin)
        if self.pm.has_plugin(name) or self.pm.is_registered(plugin):
            raise PluginError(f"plugin {name!r} is already registered")
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(self._validation_message(name, exc)) from None
        except ValueError as exc:
            raise PluginError(f"plugin {name!r}: {exc}") from None
        try:
            self._check_plugin(name, plugin)
        except PluginError:
            self.pm.unregister(plugin, name=name)
            raise
        self._load_index[name] = len(self._load_index)
        self._pins[name] = (plugin, self.snapshot(plugin))
        if getattr(plugin, "agent_hooks_approver", False) is True:
            self.approvers.add(name)
        self._contexts[name] = HookContext(self, name, self.plugin_config.get(name))
        if external:
            self._external.add(name)
        self._rebuild()
        return name

    def _validation_message(self, name: str, exc: pluggy.PluginValidationError) -> str:
        """pluggy's three-line message as one line that says what to change."""
        text = str(exc)
        hook = re.search(r"hook '(\w+)'", text)
        hook_name = hook.group(1) if hook else "?"
        if "wrapper" in text:
            return (f"plugin {name!r}: {hook_name} is a hook wrapper; implement hook_called to observe "
                    "every call instead")
        args = re.search(r"Argument\(s\) \{(.*)\}", text)
        definition = re.search(r"hookimpl definition: (.*)", text)
        caller = getattr(self.pm.hook, hook_name, None)
        if args and definition and caller is not None and caller.spec is not None:
            takes = ", ".join(caller.spec.argnames)
            return (f"plugin {name!r}: {definition.group(1)}: unknown argument(s) {args.group(1)}; "
                    f"the arguments of {hook_name} are ({takes})")
        return f"plugin {name!r}: " + "; ".join(line.strip() for line in text.splitlines() if line.strip())

    def _check_plugin(self, name: str, plugin: object) -> None:
        for caller in self.pm.get_hookcallers(plugin) or []:
            mine = [impl for impl in caller.get_hookimpls() if impl.plugin_name == name]
            if caller.spec is None:
                if all(impl.optionalhook for impl in mine):
                    continue  # optionalhook: a hook of a newer agent-hooks; never called here
                raise PluginError(f"plugin {name!r}: {unknown_hook_message(caller.name)}")
            for impl in mine:
                if impl.hookwrapper or impl.wrapper:
                    raise PluginError(f"plugin {name!r}: {caller.name} is a hook wrapper; "
                                      "implement hook_called to observe every call instead")
                Handler(name, impl.function, tuple(impl.argnames), self._contexts.get(name)
                        or HookContext(self, name))

    def unregister(self, name: str) -> None:
        if not self.pm.has_plugin(name):
            raise PluginError(f"plugin {name!r} is not registered")
        self.pm.unregister(name=name)
        self._pins.pop(name, None)
        self._load_index.pop(name, None)
        self._contexts.pop(name, None)
        self._external.discard(name)
        self.approvers.discard(name)
        self._rebuild()

    # -- tamper detection --------------------------------------------------------------------

    def snapshot(self, plugin: object) -> Snapshot:
        """``plugin``'s hookimpls as they are now: (attribute, function, code object) each."""
        out = []
        for attr in dir(plugin):
            try:
                value = getattr(plugin, attr)
            except Exception:  # a property that raises is no hookimpl
                continue
            if self.pm.parse_hookimpl_opts(plugin, attr) is None:
                continue
            out.append((attr, value, getattr(getattr(value, "__func__", value), "__code__", None)))
        return tuple(out)

    def mark_tampered(self, name: str, why: str) -> None:
        """Record that plugin ``name`` is not what was loaded: its gating hooks deny from now on."""
        self._tampered.setdefault(name, why)
        info = self.plugin_info.get(name)
        if isinstance(info, PluginInfo):
            info.status, info.reason = TAMPERED, why

    def tampered(self) -> dict[str, str]:
        """Plugins whose registered hookimpls changed since registration (name -> why).

        Compares what each plugin's hookimpl attributes and their code objects are now with the
        snapshot taken when it was registered, and whether every plugin discovery loaded is still
        registered as that same object: a monkeypatched function, a swapped ``__code__``,
        ``pm.unregister``/``register`` games. Cheap enough for every gating call.
        """
        for name, (plugin, snap) in self._pins.items():
            if name in self._tampered:
                continue
            if self.pm.get_plugin(name) is not plugin:
                self.mark_tampered(name, "replaced in the plugin manager after it was loaded")
                continue
            for attr, value, code in snap:
                now = getattr(plugin, attr, None)
                if now is not value and now != value:
                    self.mark_tampered(name, f"hookimpl {attr} replaced after it was loaded")
                    break
                if getattr(getattr(value, "__func__", value), "__code__", None) is not code:
                    self.mark_tampered(name, f"the code of hookimpl {attr} replaced after it was loaded")
                    break
        for name, info in self.plugin_info.items():
            if (isinstance(info, PluginInfo) and info.status == LOADED and name not in self._pins
                    and name not in self._tampered):
                self.mark_tampered(name, "unregistered after it was loaded")
        return dict(self._tampered)

    def set_config(self, name: str, config: object) -> None:
        self.plugin_config[name] = config
        if name in self._contexts:
            self._contexts[name].config = config

    @property
    def plugins(self) -> list[str]:
        """Registered plugin names in load order."""
        return sorted(self._load_index, key=self._load_index.__getitem__)

    def context(self, plugin: str) -> HookContext:
        return self._contexts[plugin]

    def _rank(self, plugin: str) -> tuple[int, int]:
        if plugin in self.order:
            return (0, self.order.index(plugin))
        return (1, self._load_index.get(plugin, 1 << 30))

    def _impl_key(self, impl: HookImpl) -> tuple[int, int, int]:
        return (0 if impl.tryfirst else 2 if impl.trylast else 1, *self._rank(impl.plugin_name))

    def _rebuild(self) -> None:
        """Pre-compute every hook's handler list in call order (no reflection per call)."""
        handlers: dict[str, list[Handler]] = {}
        for hook_name in [*BY_NAME, "hook_called"]:
            caller = getattr(self.pm.hook, hook_name)
            handlers[hook_name] = [
                Handler(i.plugin_name, i.function, tuple(i.argnames), self._contexts[i.plugin_name],
                        i.plugin_name in self._external)
                for i in sorted(caller.get_hookimpls(), key=self._impl_key)
            ]
        self._meta = handlers.pop("hook_called")
        self._handlers = handlers

    def handlers(self, hook: str) -> list[Handler]:
        """The handlers of ``hook`` in call order."""
        return list(self._handlers.get(hook, ()))

    def implementers(self, hook: str) -> list[str]:
        return [h.plugin for h in self._handlers.get(hook, ())]

    def hooks_of(self, plugin: str) -> list[str]:
        return [hook for hook, hs in self._handlers.items() if any(h.plugin == plugin for h in hs)] + (
            ["hook_called"] if any(h.plugin == plugin for h in self._meta) else []
        )

    def call_runtime_hook(self, hook: str, **kwargs: object) -> list[object]:
        """Call one of the runtime's own collect-all hooks (register_commands, host_event, ...).

        Plugins are called in the runtime's order. Errors are isolated like any hook's and
        returned as HookError items in the list. A ``ctx`` argument not given in ``kwargs`` is each
        plugin's own context.
        """
        if hook not in RUNTIME_HOOKS:
            raise UnknownHookError(f"{hook!r} is not one of the runtime's own hooks ({', '.join(RUNTIME_HOOKS)})")
        results: list[object] = []
        caller = getattr(self.pm.hook, hook)
        for impl in sorted(caller.get_hookimpls(), key=self._impl_key):
            try:
                value = impl.function(*[
                    self._contexts[impl.plugin_name] if a == "ctx" and "ctx" not in kwargs else kwargs[a]
                    for a in impl.argnames
                ])
                if value is not None:
                    results.append(value)
            except (Exception, SystemExit) as exc:
                results.append(HookError(impl.plugin_name, hook, describe(exc)))
        return results

    def plugin_hook(self, plugin: str, hook: str) -> Callable[..., object] | None:
        """``plugin``'s own implementation of the runtime hook ``hook`` (None if it has none).

        For the runtime's one-plugin questions (discovery asks each plugin for its
        ``plugin_config_model``); the caller handles what it raises.
        """
        if hook not in RUNTIME_HOOKS:
            raise UnknownHookError(f"{hook!r} is not one of the runtime's own hooks ({', '.join(RUNTIME_HOOKS)})")
        impls = [i for i in getattr(self.pm.hook, hook).get_hookimpls() if i.plugin_name == plugin]
        return impls[-1].function if impls else None

    # -- firing ------------------------------------------------------------------------------

    def _prepare(self, hook: str, payload: object, reduction: type[Reduction] | None = None, aio: bool = False,
                 ) -> tuple[HookDef, Reduction, HandlerCalls, list[str]]:
        hd = BY_NAME.get(hook)
        if hd is None:
            raise UnknownHookError(unknown_hook_message(hook))
        if type(payload) is not dict:
            payload = _as_payload(hook, payload)
        if hd.bounded and isinstance(payload, dict):
            # the runtime's count, never the host's or the caller's: they could reset it
            payload = {**payload, "continuations": self._stop_count().get(), "limit": self.stop_gate_limit}
        try:
            data = check_payload(hook, payload)
            red = (reduction or Reduction)(hd, data, self.loop_state)  # deep-copies some fields
            if hd.verdict:
                red.approvers = frozenset(self.approvers)
        except RecursionError:
            raise PayloadError(too_deep(hook, payload)) from None
        handlers = self._handlers[hook]
        notes: list[str] = []
        if hd.fail_closed and (self._tampered or self._pins or self.plugin_info):
            tampered = self.tampered()
            if tampered:
                # the handlers are not the ones that were loaded: none of them decides
                for name, why in tampered.items():
                    red.fail(name, f"tampered: {why}", "tampered")
                return hd, red, HandlerCalls([], red, red.event, None, aio=aio), notes
        if hook in self._active.get():
            # chibi's rule: a hook fired from one of its own handlers skips in-process handlers
            inner = [h for h in handlers if h.external]
            if len(inner) != len(handlers):
                skipped = ", ".join(h.plugin for h in handlers if not h.external)
                notes.append(f"re-entrant {hook}: in-process handlers skipped ({skipped})")
            handlers = inner
        return hd, red, HandlerCalls(handlers, red, red.event, self._timeout(hd), aio=aio), notes

    def _stop_count(self) -> StopCounter:
        # the session is looked up per call: a warm server's runtime serves many sessions
        if self.session_id:
            return StopCounter(self.host, self.session_id)
        if self._stop_counter is None:
            self._stop_counter = StopCounter(self.host, None)
        return self._stop_counter

    def _timeout(self, hd: HookDef) -> float | None:
        if hd.name in self.timeouts:
            return self.timeouts[hd.name]
        return self.hook_timeout if hd.timeout else self.gate_timeout

    def fire(self, hook: str, payload: object = None, *, dialect: str | None = None,
             reduction: type[Reduction] | None = None) -> Outcome:
        """Call every handler of ``hook`` with ``payload`` and combine their answers.

        Raises :class:`UnknownHookError` or :class:`~agent_hooks_core.errors.PayloadError` for a bad
        call; a handler's failure never raises, it is recorded in ``Outcome.errors``.
        ``reduction`` (a :class:`~agent_hooks_core.reducer.Reduction` subclass) replaces the hook's
        canonical combination rule for this call: the omp dialect's conflict rules use it.
        """
        if dialect not in (None, "canonical"):
            from .dialects import fire_dialect

            return fire_dialect(self, dialect, hook, payload)
        start = time.perf_counter()
        hd, red, calls, notes = self._prepare(hook, payload, reduction)
        self._run(hook, calls)
        outcome = self._outcome(hd, red, calls, notes, start)
        if self._meta and "hook_called" not in self._active.get():
            self._run("hook_called", HandlerCalls(self._meta, MetaSink(outcome), outcome, self._meta_timeout()))
        return outcome

    async def afire(self, hook: str, payload: object = None, *, dialect: str | None = None,
                    reduction: type[Reduction] | None = None) -> Outcome:
        """Like :meth:`fire`; ``async def`` handlers are awaited in the same order as sync ones."""
        if dialect not in (None, "canonical"):
            from .dialects import afire_dialect

            return await afire_dialect(self, dialect, hook, payload)
        start = time.perf_counter()
        hd, red, calls, notes = self._prepare(hook, payload, reduction, aio=True)
        await self._arun(hook, calls)
        outcome = self._outcome(hd, red, calls, notes, start)
        if self._meta and "hook_called" not in self._active.get():
            await self._arun("hook_called", HandlerCalls(self._meta, MetaSink(outcome), outcome,
                                                         self._meta_timeout(), aio=True))
        return outcome

    def _run(self, hook: str, calls: HandlerCalls) -> None:
        """The sync driver: on abandonable workers when a timeout applies (``bounded``), else here."""
        timeout = calls.timeout
        if timeout is not None and calls.handlers and self.bounded:
            active = self._active
            run_bounded(calls, lambda: active.set((*active.get(), hook)))
            return
        reset = self._active.set((*self._active.get(), hook))
        try:
            run_here(calls, None if timeout is None or not calls.handlers else timed_caller(timeout))
        finally:
            self._active.reset(reset)

    async def _arun(self, hook: str, calls: HandlerCalls) -> None:
        timeout = calls.timeout
        timed: Timed | None
        if timeout is None or not calls.handlers:
            timed = None
        elif self.bounded:
            timed = functools.partial(call_in_thread, timeout=timeout)
        else:
            timed = timed_caller(timeout)
        reset = self._active.set((*self._active.get(), hook))
        try:
            await run_async(calls, timed)
        finally:
            self._active.reset(reset)

    def _outcome(self, hd: HookDef, red: Reduction, calls: HandlerCalls, notes: list[str],
                 start: float) -> Outcome:
        data = red.finish(len(calls.handlers))
        if hd.bounded:
            counter = self._stop_count()
            counter.set(counter.get() + 1 if (data or {}).get("continue") else 0)
        outcome = Outcome(hd.name, red.event, data, red.errors, red.answered,
                          [h.plugin for h in calls.handlers[:calls.called]], 0.0, notes,
                          stopped_by=red.stopped_by, decided=red.decision)
        for err in red.errors:
            _warn(err)
        outcome.duration = time.perf_counter() - start
        return outcome

    def _meta_timeout(self) -> float | None:
        return self.timeouts.get("hook_called", self.hook_timeout)

    def _deliver(self, kind: str, message: dict[str, object]) -> None:
        sink = self._sinks.get(kind)
        if sink is not None:
            sink(message)
        else:
            (self.outbox if kind == "send_message" else self.entries).append(message)


def _as_payload(hook: str, payload: object) -> object:
    """None -> {}; an event model -> its dict (by wire name); anything else is left for validation."""
    if payload is None:
        return {}
    if isinstance(payload, dict):
        return payload
    dump = getattr(payload, "model_dump", None)
    if callable(dump):
        data = dump(by_alias=True, exclude_none=True)
        if isinstance(data, dict):
            return data
    return payload


def _check_timeout(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigError(f"{name} must be a positive number of seconds or None, not {value!r}")
    return float(value)


def _plugin_name(plugin: object) -> str:
    name = getattr(plugin, "__name__", None)
    if isinstance(name, str):
        return name
    return type(plugin).__name__


Runtime._settings_loader = _load_runtime
