"""Loading: import, register and configure what the plan allows; record why anything is not loaded.

Each plugin is imported and registered on its own: an import error, an invalid hookimpl or an
invalid ``[plugins.<name>]`` section marks that plugin ``failed`` (``rt.load_errors`` gets a
``HookError(kind="load")``) and loading goes on. A ``required`` plugin that ends up not loaded
(or any other reason in :mod:`.gate`) makes every gating hook deny.

What a runtime was built from (its settings and plan) is kept on the runtime itself
(``rt.discovery``, a :class:`Loaded`), not in a side table.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import sys
import time
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import HookError, PluginError
from ..plugininfo import FAILED, LOADED, UNTRUSTED, PluginInfo
from ..runtime import Runtime
from ..settings import ENV_TRACE, Settings, env_flag, load_settings
from ..trust import read_code
from . import gate
from .entrypoints import import_entry_point
from .hookfiles import import_code
from .planning import Candidate, LoadPlan, plan
from .tracing import TracePlugin, load_line

_UNSET: Any = object()


@dataclass(frozen=True)
class Loaded:
    """What :func:`load_runtime` built a runtime from (``rt.discovery``)."""

    settings: Settings
    plan: LoadPlan


def load_runtime(
    cwd: str | os.PathLike[str] | None = None,
    *,
    settings: Settings | str | os.PathLike[str] | None = None,
    settings_path: str | os.PathLike[str] | None = None,
    hook_paths: Sequence[str | os.PathLike[str]] = (),
    chibi_plugins: str | os.PathLike[str] | None = None,
    autoload: bool | None = None,
    trace: bool | None = None,
    use_cache: bool = True,
    host: str = "python",
    session_id: str | None = None,
    ui: Any = None,
    has_ui: bool | None = None,
    hook_timeout: Any = _UNSET,
    timeouts: dict[str, float | None] | None = None,
    order: Iterable[str] | None = None,
    plugin_config: dict[str, Any] | None = None,
    disabled_extra: Iterable[str] = (),
    **runtime_options: Any,
) -> Runtime:
    """Build a :class:`Runtime` from settings, installed plugins and local hook files.

    ``settings`` is a :class:`~agent_hooks_core.settings.Settings` already read, or a path (as
    ``settings_path``: it replaces the user settings file); ``hooks=`` is an alias of ``hook_paths``.
    Explicit arguments win over settings: ``hook_timeout``, ``timeouts`` (merged per hook),
    ``order``, ``plugin_config`` (merged over each ``[plugins.<name>]`` section), ``autoload``
    (over ``AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD``), ``trace`` (over ``AGENT_HOOKS_TRACE``),
    ``disabled_extra`` (plugin names disabled for this run only, like ``-p no:NAME``).
    Other keyword arguments go to :class:`Runtime` (``session_file``, ``on_send_message``, ...).

    Raises :class:`~agent_hooks_core.settings.SettingsError` for an unreadable settings file;
    plugin problems never raise: see ``rt.load_errors`` and ``rt.plugin_info``.
    """
    cwd_str = os.fspath(cwd) if cwd is not None else os.getcwd()
    # aliases: ``hooks=[...]`` for hook_paths, ``settings="file.toml"`` for settings_path
    if "hooks" in runtime_options:
        hook_paths = [*hook_paths, *(runtime_options.pop("hooks") or ())]
    if isinstance(settings, (str, os.PathLike)):
        settings_path, settings = settings, None
    if settings is None:
        settings = load_settings(cwd_str, settings_path)
    the_plan = plan(settings, hook_paths=hook_paths, chibi_plugins=chibi_plugins, autoload=autoload,
                    use_cache=use_cache, disabled_extra=disabled_extra)
    settings = the_plan.settings  # an untrusted project's policy keys left out

    wanted_order = list(order) if order is not None else settings.order
    resolved_order: list[str] = []
    for name in wanted_order:
        for cand in the_plan.find(name):
            if cand.name not in resolved_order:
                resolved_order.append(cand.name)
    merged_timeouts = {**settings.timeouts, **(timeouts or {})}
    rt = Runtime(
        cwd=cwd_str,
        hook_timeout=settings.hook_timeout if hook_timeout is _UNSET else hook_timeout,
        timeouts=merged_timeouts,
        order=resolved_order,
        stop_gate_limit=runtime_options.pop("stop_gate_limit", settings.stop_gate_limit),
        ui=ui,
        has_ui=has_ui,
        session_id=session_id,
        host=host,
        **runtime_options,
    )
    rt.discovery = Loaded(settings, the_plan)
    rt.load_errors.extend(the_plan.errors)
    show_trace = env_flag(ENV_TRACE) if trace is None else trace
    stream = sys.stderr

    # Entry-point plugins are imported (and their hookimpls recorded) before any hook file runs,
    # so a hook file cannot replace an installed plugin's functions before it is registered.
    preloaded: dict[str, _Preloaded] = {}
    for cand in the_plan.candidates:
        if cand.status is None and cand.record is not None:
            preloaded[cand.name] = _preload(rt, cand.record.value)

    for cand in the_plan.candidates:
        info = PluginInfo(cand.name, cand.source, cand.status or LOADED, scope=cand.scope,
                          reason=cand.reason or cand.note, required=settings.required_by(cand.names))
        if cand.path is not None:
            info.path = str(cand.path)
        if cand.record is not None:
            info.distribution, info.version = cand.record.dist, cand.record.version
            info.entry_point = cand.record.value
        rt.plugin_info[cand.name] = info
        if cand.status is None:
            start = time.perf_counter()
            pre = preloaded.get(cand.name)
            error = _load_one(rt, cand, info, the_plan, plugin_config, pre)
            info.load_ms = round((time.perf_counter() - start + (pre.seconds if pre else 0.0)) * 1000, 3)
            if error is not None:
                info.status, info.reason = FAILED, error.message
                rt.load_errors.append(error)
        if show_trace:
            print(load_line(info), file=stream)

    if the_plan.chibi_dir is not None:
        _load_chibi(rt, *the_plan.chibi_dir, the_plan.chibi_reason)

    reasons = [*the_plan.gate_reasons, *_required_problems(rt, the_plan), *_gating_failures(rt)]
    if reasons:
        gatekeeper = gate.RequiredGate(reasons)
        rt.register(gatekeeper, name=gate.NAME)
        rt.plugin_info[gate.NAME] = PluginInfo(gate.NAME, "builtin", LOADED, reason=gatekeeper.reason)
        if show_trace:
            print(f"agenthooks: trace: gate: {gatekeeper.reason}", file=stream)

    if show_trace:
        rt.register(TracePlugin(stream), name="trace")
        rt.plugin_info["trace"] = PluginInfo("trace", "builtin", LOADED, reason="--trace / AGENT_HOOKS_TRACE")

    rt.tampered()  # a hook file that patched a plugin while loading: `plugins list`, `doctor` say so
    ranked = effective_order(rt)
    for name, raw in rt.plugin_info.items():
        if isinstance(raw, PluginInfo) and raw.status == LOADED and name in ranked:
            raw.hooks = rt.hooks_of(name)
            raw.order = ranked.index(name) + 1
    return rt


@dataclass
class _Preloaded:
    """An entry point imported ahead of the hook files: the object and its hookimpls then, or the error."""

    obj: Any = None
    snapshot: Any = None
    error: BaseException | None = None
    seconds: float = 0.0


def _preload(rt: Runtime, value: str) -> _Preloaded:
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(sys.stderr), _without_cwd_on_path():
            obj = import_entry_point(value)
        found = _Preloaded(obj, rt.snapshot(obj))
    except (Exception, SystemExit) as exc:
        found = _Preloaded(error=exc)
    found.seconds = time.perf_counter() - start
    return found


def _gating_failures(rt: Runtime) -> list[str]:
    """A plugin that failed to load and implements a gating hook (or may: an import error hides
    which hooks it has) would have had a say in every gating decision: without it, deny."""
    problems = []
    for name, info in rt.plugin_info.items():
        if not isinstance(info, PluginInfo) or info.status != FAILED:
            continue
        if info.hooks and not any(h in gate.GATING_HOOKS for h in info.hooks):
            continue  # known to implement no gating hook: its absence allows nothing
        problems.append(f"plugin {name!r} failed to load: {info.reason}")
    return problems


def _required_problems(rt: Runtime, the_plan: LoadPlan) -> list[str]:
    """One reason per required plugin that is not loaded."""
    problems = []
    known = [n for c in the_plan.candidates for n in c.names]
    for key, origin in the_plan.settings.required.items():
        found = [c for c in the_plan.candidates if c.matches(key)]
        infos = [rt.plugin_info[c.name] for c in found if c.name in rt.plugin_info]
        if any(isinstance(i, PluginInfo) and i.status == LOADED for i in infos):
            continue
        if not infos:
            close = difflib.get_close_matches(key, sorted(set(known)), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            message = f"required plugin {key!r} (required in {origin}) is not installed{hint}"
            rt.load_errors.append(HookError(key, "required", message, "load"))
        else:
            info = infos[0]
            message = f"required plugin {info.name!r} (required in {origin}) is {info.status}: {info.reason}"
        problems.append(message)
    return problems


def effective_order(rt: Runtime) -> list[str]:
    """Registered plugins in call order (before ``tryfirst``/``trylast``, which are per hook)."""
    loaded = rt.plugins
    return sorted(loaded, key=lambda n: (0, rt.order.index(n)) if n in rt.order else (1, loaded.index(n)))


def loaded_from(rt: Runtime) -> Loaded | None:
    found = getattr(rt, "discovery", None)
    return found if isinstance(found, Loaded) else None


def settings_of(rt: Runtime) -> Settings | None:
    """The settings a runtime from :func:`load_runtime` was built with."""
    found = loaded_from(rt)
    return found.settings if found is not None else None


def plan_of(rt: Runtime) -> LoadPlan | None:
    found = loaded_from(rt)
    return found.plan if found is not None else None


@contextlib.contextmanager
def _without_cwd_on_path() -> Iterator[None]:
    """Imports of installed plugins never come from the working directory (the agent's project)."""
    saved = list(sys.path)
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = ""
    sys.path[:] = [p for p in saved if p not in ("", ".") and os.path.realpath(p) != cwd]
    try:
        yield
    finally:
        # keep what the plugin added, put back what we took away
        added = [p for p in sys.path if p not in saved]
        sys.path[:] = added + saved


def _load_one(rt: Runtime, cand: Candidate, info: PluginInfo, the_plan: LoadPlan,
              plugin_config: dict[str, Any] | None, pre: _Preloaded | None = None) -> HookError | None:
    what = cand.record.value if cand.record is not None else str(cand.path)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout may be a protocol channel (JSON)
            if pre is not None:
                if pre.error is not None:
                    raise pre.error
                obj = pre.obj
            elif cand.record is not None:
                with _without_cwd_on_path():
                    obj = import_entry_point(cand.record.value)
            else:
                assert cand.path is not None
                code = read_code(cand.path)
                pins = {"project": the_plan.trust, "user": the_plan.user_trust}.get(cand.scope or "")
                if pins is not None:
                    untrusted = pins.code_reason(code)
                    if untrusted is not None:  # changed since planning: these bytes never run
                        info.status, info.reason = UNTRUSTED, untrusted
                        return None
                obj = import_code(code)
    except (Exception, SystemExit) as exc:
        return HookError(cand.name, "import", f"cannot import {what}: {describe_exception(exc)}", "load")
    if info.path is None:
        module: Any = obj if hasattr(obj, "__file__") else sys.modules.get(getattr(obj, "__module__", ""))
        info.path = getattr(module, "__file__", None)
    try:
        rt.register(obj, name=cand.name)
    except PluginError as exc:
        message = str(exc).removeprefix(f"plugin {cand.name!r}: ")
        info.hooks = [attr for attr, _, _ in rt.snapshot(obj)]
        return HookError(cand.name, "register", message, "load")
    if pre is not None and rt.snapshot(obj) != pre.snapshot:
        rt.mark_tampered(cand.name, "hookimpls replaced between import and registration (by a hook file?)")
    section, origins = the_plan.settings.plugin_section(cand.names)
    if plugin_config and any(k in plugin_config for k in cand.names):
        extra = next(plugin_config[k] for k in cand.names if k in plugin_config)
        section = {**(section or {}), **extra} if isinstance(extra, dict) else extra
        origins = [*origins, "plugin_config="]
    problem = configure(rt, cand.name, section, origins)
    if problem is not None:
        info.hooks = rt.hooks_of(cand.name)
        rt.unregister(cand.name)
        return HookError(cand.name, "config", problem, "load")
    return None


def configure(rt: Runtime, name: str, section: Any, origins: Sequence[str] = (), *,
              validate_empty: bool = False) -> str | None:
    """Validate ``section`` with the plugin's ``plugin_config_model()`` and set it as ``ctx.config``.

    Without a section the model is not consulted (``ctx.config`` is ``{}``), so start-up does not
    import pydantic for plugins nobody configured; ``validate_empty=True`` (``agenthooks doctor``,
    the pytest plugin) validates ``{}`` too, which finds required fields nobody set.
    Returns None, or a one-line error naming the plugin and the offending field.
    """
    config_model = rt.plugin_hook(name, "plugin_config_model")
    where = f"[plugins.{name}]" + (f" in {', '.join(origins)}" if origins else "")
    config: Any = section if section is not None else {}
    if config_model is not None and (section is not None or validate_empty):
        try:
            model = config_model()
        except Exception as exc:
            return f"plugin_config_model() failed: {describe_exception(exc)}"
        if model is not None:
            validate = getattr(model, "model_validate", None)
            if validate is None:
                return f"plugin_config_model() returned {model!r}, not a pydantic model class"
            try:
                config = validate(section if section is not None else {})
            except Exception as exc:
                return f"invalid {where}: {describe_validation_error(exc)}"
    elif section is not None and not isinstance(section, dict):
        return f"invalid {where}: expected a table"
    rt.set_config(name, config)
    return None


def describe_validation_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return describe_exception(exc)
    parts = []
    for err in errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(section)"
        msg = err.get("msg", "invalid")
        if err.get("type") == "missing":
            parts.append(f"{loc}: field required")
        elif "input" in err and err.get("type") != "extra_forbidden":
            parts.append(f"{loc}: {msg} (got {err['input']!r})")
        else:
            parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


def describe_exception(exc: BaseException) -> str:
    """``Type: message (at file:line)``: one line, with the innermost frame outside importlib."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    head = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if isinstance(exc, SyntaxError):
        return head
    here = os.path.dirname(__file__)
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "importlib" not in f.filename and os.path.dirname(f.filename) != here]
    if frames:
        head += f" (at {frames[-1].filename}:{frames[-1].lineno})"
    return head


def _load_chibi(rt: Runtime, directory: Path, scope: str, untrusted_reason: str | None) -> None:
    name = f"chibi:{directory}"
    if untrusted_reason is not None:
        rt.plugin_info[name] = PluginInfo(name, "chibi", UNTRUSTED, path=str(directory), scope=scope,
                                          reason=untrusted_reason)
        return
    if not directory.is_dir():
        message = f"chibi plugin directory {directory} does not exist"
        rt.plugin_info[name] = PluginInfo(name, "chibi", FAILED, path=str(directory), scope=scope, reason=message)
        rt.load_errors.append(HookError(name, "import", message, "load"))
        return
    # imported here, not at the top: its subprocess machinery costs start-up time in every
    # bridge process, and only chibi users need it
    from ..dialects import chibi_plugins

    try:
        chibi_plugins.load_directory(rt, directory)
    except Exception as exc:  # the loader records per-plugin errors itself; this is a bug guard
        message = f"loading chibi plugins from {directory} failed: {describe_exception(exc)}"
        rt.load_errors.append(HookError(name, "import", message, "load"))
