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

import asyncio
import inspect
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from .context import HookContext, NoUI
from .errors import HookError, HookTimeout, PluginError, UnknownHookError
from .event import HookEvent
from .hookspecs import specs
from .hookspecs.catalogue import BY_NAME, HookDef, unknown_hook_message
from .hookspecs.markers import PROJECT
from .reducer import LoopState, Reduction
from .timeouts import call_with_timeout
from .validation import check_payload

log = logging.getLogger("agent_hooks")
log.addHandler(logging.NullHandler())

DEFAULT_TIMEOUT = 30.0

#: the fields whose truthy value means the action does not happen, and the decision name
_STOPS = (("denied", "denied"), ("block", "blocked"), ("cancel", "blocked"), ("handled", "blocked"))
#: combined-result fields that describe rather than change
_NEUTRAL = frozenset({"denied", "reason", "message", "tools", "fallback_source"})


@dataclass
class Outcome:
    """What one hook call produced."""

    hook: str
    event: HookEvent
    """the event as the last handler saw it (chained fields applied)"""
    data: dict[str, Any] | None
    """the combined result as a plain dict (None for observe hooks)"""
    errors: list[HookError] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    """plugins whose answer counted, in order"""
    handlers: list[str] = field(default_factory=list)
    """plugins that were called, in order"""
    duration: float = 0.0
    """seconds"""
    notes: list[str] = field(default_factory=list)
    native: Any = None
    """the result in a dialect's own shape, when fired with ``dialect=`` (chibi, pi, omp)"""

    @property
    def result(self) -> Any:
        """The combined result as this hook's pydantic result model (None for observe hooks)."""
        if self.data is None:
            return None
        from .hookspecs.models import RESULTS

        model = RESULTS[self.hook]
        return model.model_validate(self.data) if model is not None else None

    @property
    def decision(self) -> str:
        """denied, blocked, modified, allowed (or observed for observe hooks)."""
        data = self.data
        if data is None:
            return "observed"
        for name, decision in _STOPS:
            if data.get(name):
                return decision
        if data.get("fallback_source") == "default":
            data = {k: v for k, v in data.items() if k != "fallback"}
        if self.hook == "pre_api_tools":
            return "modified" if ("include" in data or "exclude" in data) else "allowed"
        return "modified" if any(k not in _NEUTRAL for k in data) else "allowed"

    @property
    def reason(self) -> str | None:
        data = self.data or {}
        return data.get("reason") or data.get("message")

    def to_dict(self) -> dict[str, Any]:
        return {
            "hook": self.hook, "decision": self.decision, "result": self.data,
            "answered": self.answered, "errors": [e.to_dict() for e in self.errors],
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

    def args(self, event: Any) -> tuple[Any, ...]:
        mode = self.mode
        if mode == 2:
            return (event, self.ctx)
        if mode == 1:
            return (self.ctx,) if self.call_ctx else (event,)
        return ()


class Runtime:
    """Loads plugins, fires hooks, combines answers. See DESIGN.md's host API."""

    def __init__(
        self,
        plugins: Iterable[Any] = (),
        *,
        cwd: str | None = None,
        hook_timeout: float | None = DEFAULT_TIMEOUT,
        timeouts: dict[str, float | None] | None = None,
        order: Iterable[str] = (),
        ui: Any = None,
        has_ui: bool | None = None,
        session_file: str | None = None,
        session_id: str | None = None,
        host: str = "python",
        plugin_config: dict[str, Any] | None = None,
        default_fallback: str | None = None,
        on_send_message: Callable[[dict[str, Any]], None] | None = None,
        on_append_entry: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        import os

        self.cwd = cwd or os.getcwd()
        self.hook_timeout = hook_timeout
        self.timeouts: dict[str, float | None] = dict(timeouts or {})
        self.order = list(order)
        self.ui = ui if ui is not None else NoUI()
        self.has_ui = bool(ui is not None) if has_ui is None else has_ui
        self.session_file = session_file
        self.session_id = session_id
        self.host = host
        self.plugin_config: dict[str, Any] = dict(plugin_config or {})
        self.loop_state = LoopState(default_fallback)
        #: messages and entries plugins sent, when the host gave no callback for them
        self.outbox: list[dict[str, Any]] = []
        self.entries: list[dict[str, Any]] = []
        self._sinks = {"send_message": on_send_message, "append_entry": on_append_entry}
        #: problems found while loading plugins (filled by discovery)
        self.load_errors: list[HookError] = []
        #: what discovery learned about each plugin (name -> PluginInfo); empty for explicit lists
        self.plugin_info: dict[str, Any] = {}
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(specs)
        self._load_index: dict[str, int] = {}
        self._external: set[str] = set()
        self._contexts: dict[str, HookContext] = {}
        self._handlers: dict[str, list[Handler]] = {}
        self._meta: list[Handler] = []
        self._active = threading.local()
        for plugin in plugins:
            if isinstance(plugin, tuple):
                self.register(plugin[1], name=plugin[0])
            else:
                self.register(plugin)

    # -- construction from settings ---------------------------------------------------------

    @classmethod
    def from_settings(cls, cwd: str | None = None, **options: Any) -> Runtime:
        """Entry-point plugins, local hook files and settings (user, then project) -> a Runtime."""
        from .discovery import load_runtime

        return load_runtime(cwd=cwd, **options)

    # -- plugins -----------------------------------------------------------------------------

    def register(self, plugin: Any, name: str | None = None, *, external: bool = False) -> str:
        """Register a module, class instance or object with ``@hookimpl`` functions; returns its name."""
        name = name or _plugin_name(plugin)
        if self.pm.has_plugin(name) or self.pm.is_registered(plugin):
            raise PluginError(f"plugin {name!r} is already registered")
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin {name!r}: {exc}") from None
        except ValueError as exc:
            raise PluginError(f"plugin {name!r}: {exc}") from None
        try:
            self._check_plugin(name, plugin)
        except PluginError:
            self.pm.unregister(plugin, name=name)
            raise
        self._load_index[name] = len(self._load_index)
        self._contexts[name] = HookContext(self, name, self.plugin_config.get(name))
        if external:
            self._external.add(name)
        self._rebuild()
        return name

    def _check_plugin(self, name: str, plugin: Any) -> None:
        for caller in self.pm.get_hookcallers(plugin) or []:
            if caller.spec is None:
                raise PluginError(f"plugin {name!r}: {unknown_hook_message(caller.name)}")
            for impl in caller.get_hookimpls():
                if impl.plugin_name != name:
                    continue
                if impl.hookwrapper or impl.wrapper:
                    raise PluginError(f"plugin {name!r}: {caller.name} is a hook wrapper; "
                                      "implement hook_called to observe every call instead")
                Handler(name, impl.function, tuple(impl.argnames), self._contexts.get(name)
                        or HookContext(self, name))

    def unregister(self, name: str) -> None:
        self.pm.unregister(name=name)
        self._load_index.pop(name, None)
        self._contexts.pop(name, None)
        self._rebuild()

    def set_config(self, name: str, config: Any) -> None:
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

    def _rebuild(self) -> None:
        """Pre-compute every hook's handler list in call order (no reflection per call)."""
        handlers: dict[str, list[Handler]] = {}
        for hook_name in [*BY_NAME, "hook_called"]:
            caller = getattr(self.pm.hook, hook_name)
            impls = sorted(
                caller.get_hookimpls(),
                key=lambda i: (0 if i.tryfirst else 2 if i.trylast else 1, *self._rank(i.plugin_name)),
            )
            handlers[hook_name] = [
                Handler(i.plugin_name, i.function, tuple(i.argnames), self._contexts[i.plugin_name],
                        i.plugin_name in self._external)
                for i in impls
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

    def call_runtime_hook(self, hook: str, **kwargs: Any) -> list[Any]:
        """Call one of the runtime's own collect-all hooks (register_commands, host_event, ...).

        Errors are isolated like any hook's and returned as HookError items in the list. A ``ctx``
        argument not given in ``kwargs`` is each plugin's own context.
        """
        results: list[Any] = []
        caller = getattr(self.pm.hook, hook)
        for impl in reversed(caller.get_hookimpls()):
            try:
                value = impl.function(*[
                    self._contexts[impl.plugin_name] if a == "ctx" and "ctx" not in kwargs else kwargs[a]
                    for a in impl.argnames
                ])
                if value is not None:
                    results.append(value)
            except Exception as exc:
                results.append(HookError(impl.plugin_name, hook, _describe(exc)))
        return results

    # -- firing ------------------------------------------------------------------------------

    def _prepare(self, hook: str, payload: Any) -> tuple[HookDef, Reduction, list[Handler], list[str]]:
        hd = BY_NAME.get(hook)
        if hd is None:
            raise UnknownHookError(unknown_hook_message(hook))
        data = check_payload(hook, {} if payload is None else payload)
        handlers = self._handlers[hook]
        notes: list[str] = []
        active = self._active.__dict__
        if active.get(hook):
            inner = [h for h in handlers if h.external]
            if len(inner) != len(handlers):
                notes.append(f"re-entrant {hook}: in-process handlers skipped")
            handlers = inner
        return hd, Reduction(hd, data, self.loop_state), handlers, notes

    def _timeout(self, hd: HookDef) -> float | None:
        if hd.name in self.timeouts:
            return self.timeouts[hd.name]
        return self.hook_timeout if hd.timeout else None

    def fire(self, hook: str, payload: Any = None, *, dialect: str | None = None) -> Outcome:
        """Call every handler of ``hook`` with ``payload`` and combine their answers.

        Raises :class:`UnknownHookError` or :class:`~agent_hooks_core.errors.PayloadError` for a bad
        call; a handler's failure never raises, it is recorded in ``Outcome.errors``.
        """
        if dialect not in (None, "canonical"):
            from .dialects import fire_dialect

            return fire_dialect(self, dialect, hook, payload)  # type: ignore[no-any-return]
        start = time.perf_counter()
        hd, red, handlers, notes = self._prepare(hook, payload)
        timeout = self._timeout(hd)
        active = self._active.__dict__
        active[hook] = active.get(hook, 0) + 1
        try:
            for h in handlers:
                event = red.event
                try:
                    if h.is_async:
                        answer = _run_coroutine(h.func(*h.args(event)), timeout)
                    elif timeout is None:
                        answer = h.func(*h.args(event))
                    else:
                        answer = call_with_timeout(h.func, h.args(event), timeout)
                except HookTimeout:
                    if red.fail(h.plugin, f"timed out after {timeout:g}s", "timeout"):
                        break
                    continue
                except Exception as exc:
                    if red.fail(h.plugin, _describe(exc)):
                        break
                    continue
                if red.accept(h.plugin, answer):
                    break
        finally:
            active[hook] -= 1
        return self._finish(hd, red, handlers, notes, start)

    async def afire(self, hook: str, payload: Any = None, *, dialect: str | None = None) -> Outcome:
        """Like :meth:`fire`; ``async def`` handlers are awaited in the same order as sync ones."""
        if dialect not in (None, "canonical"):
            from .dialects import afire_dialect

            return await afire_dialect(self, dialect, hook, payload)  # type: ignore[no-any-return]
        start = time.perf_counter()
        hd, red, handlers, notes = self._prepare(hook, payload)
        timeout = self._timeout(hd)
        active = self._active.__dict__
        active[hook] = active.get(hook, 0) + 1
        try:
            for h in handlers:
                event = red.event
                try:
                    if h.is_async:
                        answer = await asyncio.wait_for(h.func(*h.args(event)), timeout)
                    elif timeout is None:
                        answer = h.func(*h.args(event))
                    else:
                        answer = call_with_timeout(h.func, h.args(event), timeout)
                except (HookTimeout, asyncio.TimeoutError):
                    if red.fail(h.plugin, f"timed out after {timeout:g}s", "timeout"):
                        break
                    continue
                except Exception as exc:
                    if red.fail(h.plugin, _describe(exc)):
                        break
                    continue
                if red.accept(h.plugin, answer):
                    break
        finally:
            active[hook] -= 1
        return self._finish(hd, red, handlers, notes, start)

    def _finish(self, hd: HookDef, red: Reduction, handlers: list[Handler], notes: list[str],
                start: float) -> Outcome:
        outcome = Outcome(hd.name, red.event, red.finish(len(handlers)), red.errors, red.answered,
                          [h.plugin for h in handlers], 0.0, notes)
        for err in red.errors:
            log.warning("%s", err)
        outcome.duration = time.perf_counter() - start
        if self._meta:
            self._emit_meta(outcome)
        return outcome

    def _emit_meta(self, outcome: Outcome) -> None:
        active = self._active.__dict__
        if active.get("hook_called"):
            return  # a meta handler firing hooks does not recurse into the meta hook
        active["hook_called"] = 1
        try:
            for h in self._meta:
                try:
                    h.func(*h.args(outcome))
                except Exception as exc:
                    outcome.errors.append(HookError(h.plugin, "hook_called", _describe(exc)))
        finally:
            active["hook_called"] = 0

    def _deliver(self, kind: str, message: dict[str, Any]) -> None:
        sink = self._sinks.get(kind)
        if sink is not None:
            sink(message)
        else:
            (self.outbox if kind == "send_message" else self.entries).append(message)


def _run_coroutine(coro: Any, timeout: float | None) -> Any:
    """Run an async handler from sync ``fire``: in a fresh loop, or a worker thread if one runs."""
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            return asyncio.run(bounded())
        except asyncio.TimeoutError:
            raise HookTimeout() from None
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(bounded())
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join()
    if "error" in box:
        if isinstance(box["error"], asyncio.TimeoutError):
            raise HookTimeout()
        raise box["error"]
    return box.get("value")


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _plugin_name(plugin: Any) -> str:
    name = getattr(plugin, "__name__", None)
    if isinstance(name, str):
        return name
    return type(plugin).__name__
