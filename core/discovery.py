"""Discovery: which plugins a Runtime built from settings holds, and in what order.

``load_runtime`` (what ``Runtime.from_settings`` calls) does, without importing anything it
does not load:

1. reads the settings (:mod:`agent_hooks_core.settings`) and the environment;
2. plans the candidates, in **load order**:

   a. project hook files: ``<project>/.agent-hooks/hooks/*.py`` (sorted by file name), then the
      project settings' ``hooks`` entries; both only when trusted (:mod:`agent_hooks_core.trust`);
   b. user hook files: ``<user dir>/hooks/*.py`` (sorted), then the user settings' ``hooks``;
   c. ``--hook PATH`` files (``hook_paths=``), in the order given;
   d. entry-point plugins (group ``agent_hooks``), sorted by entry-point name, then distribution;
   e. chibi subprocess plugins (``chibi_plugins`` setting or ``--chibi-plugins DIR``);

   a path met twice loads once, at its first loadable place;
3. decides each candidate's status before importing it: ``disabled`` (settings, the
   ``AGENT_HOOKS_PLUGINS`` selection, autoload switched off) and ``untrusted`` candidates are
   never imported;
4. imports and registers the rest one by one: an import error, an invalid hookimpl or an invalid
   ``[plugins.<name>]`` section marks that plugin ``failed`` (recorded in ``rt.load_errors`` as a
   ``HookError(kind="load")``) and loading goes on.

Call order is then pluggy's ``tryfirst``/``trylast`` groups, inside each the settings' ``order``
first, then load order (see :mod:`agent_hooks_core.runtime`).

A plugin's **name** is its entry-point name (``guard`` for ``agent-hooks-guard``) or, for a hook
file, the file's stem. Settings may name a plugin by its name or its distribution name.

The entry-point scan is cached (``<cache dir>/entry-points-*.json``), keyed on the modification
times of the ``sys.path`` entries, which change whenever a distribution is installed, upgraded or
removed. A cache hit does not import ``importlib.metadata`` at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
import weakref
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import HookError, PluginError
from .hookspecs.markers import hookimpl
from .runtime import Runtime
from .settings import (
    ENV_TRACE,
    Settings,
    cache_dir,
    env_flag,
    load_settings,
    normalize_name,
    user_dir,
)

GROUP = "agent_hooks"
CACHE_VERSION = 1

#: the statuses a plugin can have
LOADED, DISABLED, FAILED, UNTRUSTED = "loaded", "disabled", "failed", "untrusted"
#: the reason of a plugin switched off for one run (``disabled_extra``, ``-p no:NAME``)
RUN_DISABLED = "disabled for this run (-p no:NAME)"


@dataclass(frozen=True)
class EntryPointRecord:
    """One ``agent_hooks`` entry point of an installed distribution."""

    name: str
    value: str
    dist: str
    version: str


@dataclass
class PluginInfo:
    """What discovery knows about one plugin (``rt.plugin_info[name]``)."""

    name: str
    source: str
    """entry-point, file, chibi or builtin"""
    status: str
    """loaded, disabled, failed or untrusted"""
    distribution: str | None = None
    version: str | None = None
    path: str | None = None
    """the hook file, or the plugin module's file"""
    entry_point: str | None = None
    """``module:attr`` of an entry-point plugin"""
    scope: str | None = None
    """where a hook file came from: project, user or cli"""
    reason: str | None = None
    """why it is not loaded (or a note, e.g. a rename)"""
    hooks: list[str] = field(default_factory=list)
    order: int | None = None
    """1-based position in the effective call order (loaded plugins)"""
    load_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def info_dict(info: Any) -> dict[str, Any]:
    """``rt.plugin_info`` values as dicts (other loaders may store dicts or their own objects)."""
    if isinstance(info, dict):
        return dict(info)
    if hasattr(info, "to_dict"):
        return dict(info.to_dict())
    return dict(vars(info))


# -- entry points -----------------------------------------------------------------------------

_MEMO: tuple[Any, list[EntryPointRecord]] | None = None


def _stamps() -> list[list[Any]]:
    stamps: list[list[Any]] = []
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    for entry in sys.path:
        if entry in ("", ".", cwd):
            # the current directory (``python -m``): an agent's project, whose mtime changes with
            # every file the agent writes; only the distributions in it matter to the scan
            stamps.append([entry, _distributions_in(".")])
            continue
        try:
            mtime: int | None = os.stat(entry).st_mtime_ns
        except OSError:
            mtime = None
        stamps.append([entry, mtime])
    return stamps


def _distributions_in(directory: str) -> list[str] | None:
    try:
        with os.scandir(directory) as it:
            return sorted(e.name for e in it if e.name.endswith((".dist-info", ".egg-info")))
    except OSError:
        return None


def _cache_file() -> Path:
    # zlib, not hashlib (~2 ms of import per bridge process); a collision only costs a rescan,
    # since the file holds the sys.path entries it was made for
    raw = "\0".join([sys.executable, *sys.path]).encode()
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return cache_dir() / f"entry-points-{key}.json"


def _scan_metadata() -> list[EntryPointRecord]:
    """Read every installed distribution's ``agent_hooks`` entry points (first on sys.path wins)."""
    import importlib.metadata as md

    section = re.compile(rf"^\[{GROUP}\]\s*$", re.MULTILINE)
    seen: set[str] = set()
    records: list[EntryPointRecord] = []
    for dist in md.distributions():
        norm = getattr(dist, "_normalized_name", None)
        text = dist.read_text("entry_points.txt")
        has_group = bool(text) and bool(section.search(text or ""))
        if norm is None or has_group:
            name = dist.metadata["Name"] or ""
            norm = normalize_name(name)
        if norm in seen:
            continue
        seen.add(norm)
        if not has_group:
            continue
        for ep in dist.entry_points:
            if ep.group == GROUP:
                records.append(EntryPointRecord(ep.name, ep.value, name, dist.version or ""))
    records.sort(key=lambda r: (normalize_name(r.name), normalize_name(r.dist)))
    return records


#: a directory modified this recently may still change within the same mtime tick: not cached
RACY_SECONDS = 2.0


def scan_entry_points(use_cache: bool = True) -> list[EntryPointRecord]:
    """The ``agent_hooks`` entry points of the installed distributions, sorted by name.

    Cached in memory and on disk while no ``sys.path`` entry's mtime changes. A scan while an
    entry was modified in the last :data:`RACY_SECONDS` is not cached (an install still running,
    or a second change within the same mtime tick, would go unnoticed: git's "racy" problem).
    """
    global _MEMO
    stamps = _stamps()
    if use_cache and _MEMO is not None and _MEMO[0] == stamps:
        return list(_MEMO[1])
    path = _cache_file()
    if use_cache:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") == CACHE_VERSION and data.get("stamps") == stamps:
                records = [EntryPointRecord(*r) for r in data["records"]]
                _MEMO = (stamps, records)
                return list(records)
        except (OSError, ValueError, TypeError, KeyError):
            pass
    records = _scan_metadata()
    racy_after = time.time_ns() - int(RACY_SECONDS * 1e9)
    if any(type(m) is int and m >= racy_after for _, m in stamps):
        _MEMO = None
        return list(records)
    _MEMO = (stamps, records)
    try:
        from .settings import atomic_write

        atomic_write(path, json.dumps({"version": CACHE_VERSION, "stamps": stamps,
                                       "records": [list(asdict(r).values()) for r in records]}))
    except OSError:
        pass  # a read-only home only costs the scan next time
    return list(records)


def clear_cache() -> None:
    global _MEMO
    _MEMO = None
    with contextlib.suppress(OSError):
        _cache_file().unlink()


# -- planning -----------------------------------------------------------------------------------


@dataclass
class Candidate:
    """A plugin discovery may load: its name, where it comes from, and whether it may load."""

    name: str
    source: str
    path: Path | None = None
    record: EntryPointRecord | None = None
    scope: str | None = None
    status: str | None = None
    """None = to be loaded; else disabled/untrusted/failed, decided without importing"""
    reason: str | None = None
    note: str | None = None

    @property
    def names(self) -> list[str]:
        """Every name that identifies it: its name and, for entry points, the distribution."""
        return [self.name] + ([self.record.dist] if self.record else [])

    def matches(self, name: str) -> bool:
        key = normalize_name(name)
        return any(normalize_name(n) == key for n in self.names)


@dataclass
class Plan:
    settings: Settings
    candidates: list[Candidate]
    chibi_dir: tuple[Path, str] | None
    """(directory, scope) of chibi subprocess plugins to load, if any"""
    chibi_reason: str | None
    errors: list[HookError]
    warnings: list[str]

    def find(self, name: str) -> list[Candidate]:
        return [c for c in self.candidates if c.matches(name)]


def plan(settings: Settings, *, hook_paths: Sequence[str | os.PathLike[str]] = (),
         chibi_plugins: str | os.PathLike[str] | None = None, autoload: bool | None = None,
         use_cache: bool = True, disabled_extra: Iterable[str] = ()) -> Plan:
    """Every candidate plugin in load order with its status, importing nothing.

    ``disabled_extra`` disables plugins for this run only (``agenthooks -p no:NAME``), over
    any settings file.
    """
    extra_off = list(disabled_extra)
    from . import trust
    from .trust import expand_hook_path

    errors: list[HookError] = []
    warnings: list[str] = list(settings.warnings)
    files: list[tuple[Path, str, bool]] = []  # (path, scope, named by the project settings)
    trust_state = None

    def trust_of() -> trust.TrustState:
        nonlocal trust_state
        if trust_state is None:
            trust_state = trust.state(settings)
        return trust_state

    root = settings.project_root
    if root is not None:
        files.extend((p, "project", False) for p in trust.project_hook_files(root))
        for hp in settings.hook_paths("project"):
            files.extend((p, "project", True) for p in expand_hook_path(hp.path))
    udir = user_dir() / "hooks"
    if udir.is_dir():
        files.extend((p, "user", False) for p in sorted(udir.glob("*.py")) if p.is_file())
    for hp in settings.hook_paths("user"):
        files.extend((p, "user", False) for p in expand_hook_path(hp.path))
    for raw in hook_paths:
        files.extend((p, "cli", False) for p in expand_hook_path(Path(raw).expanduser()))

    records = scan_entry_points(use_cache=use_cache)
    taken = {normalize_name(r.name) for r in records} | {"trace"}
    candidates: list[Candidate] = []
    by_path: dict[str, Candidate] = {}
    for path, scope, from_settings in files:
        key = _path_key(path)
        previous = by_path.get(key)
        if previous is not None:
            if previous.status == UNTRUSTED and scope != "project":
                # trusted by being named explicitly (user settings or --hook): load it there
                candidates.remove(previous)
                taken.discard(normalize_name(previous.name))
            else:
                continue
        stem = path.parent.name if path.name == "__init__.py" else path.stem
        name, n = stem, 1
        while normalize_name(name) in taken:
            n += 1
            name = f"{stem}-{n}"
        taken.add(normalize_name(name))
        cand = Candidate(name, "file", path=path, scope=scope)
        if name != stem:
            cand.note = f"named {name!r}: {stem!r} is already taken"
        if not path.is_file():
            cand.status, cand.reason = FAILED, "no such file"
            errors.append(HookError(name, "file", f"{path}: no such file", "load"))
        elif scope == "project":
            reason = (trust_of().settings_reason(settings) if from_settings else None) or \
                trust_of().file_reason(path)
            if reason:
                cand.status, cand.reason = UNTRUSTED, reason
        if cand.status is None:
            enabled, why = settings.plugin_state([name])
            if not enabled:
                cand.status, cand.reason = DISABLED, why
            elif any(cand.matches(n) for n in extra_off):
                cand.status, cand.reason = DISABLED, RUN_DISABLED
        by_path[key] = cand
        candidates.append(cand)

    env = settings.plugins_env
    auto = settings.autoload if autoload is None else autoload
    seen_names: dict[str, EntryPointRecord] = {}
    for rec in records:
        cand = Candidate(rec.name, "entry-point", record=rec)
        first = seen_names.get(normalize_name(rec.name))
        if first is not None:
            cand.status = FAILED
            cand.reason = f"entry point name {rec.name!r} is already used by {first.dist}; skipped"
            errors.append(HookError(rec.name, "entry-point", f"{rec.dist}: {cand.reason}", "load"))
            cand.name = f"{rec.name} ({rec.dist})"
            candidates.append(cand)
            continue
        seen_names[normalize_name(rec.name)] = rec
        if env is not None:
            if not any(cand.matches(n) for n in env):
                cand.status, cand.reason = DISABLED, "not selected by AGENT_HOOKS_PLUGINS"
        elif not auto:
            cand.status = DISABLED
            cand.reason = ("plugin autoload is off (AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD=1)"
                           if autoload is None else "plugin autoload is off")
        if cand.status is None:
            enabled, why = settings.plugin_state(cand.names)
            if not enabled:
                cand.status, cand.reason = DISABLED, why
            elif any(cand.matches(n) for n in extra_off):
                cand.status, cand.reason = DISABLED, RUN_DISABLED
        candidates.append(cand)
    for selected in env or ():
        if not any(c.matches(selected) for c in candidates if c.source == "entry-point"):
            errors.append(HookError(selected, "select",
                                    f"AGENT_HOOKS_PLUGINS names {selected!r}, which is not installed", "load"))

    chibi_dir: tuple[Path, str] | None = None
    chibi_reason = None
    if chibi_plugins is not None:
        chibi_dir = (Path(chibi_plugins).expanduser(), "cli")
    else:
        configured = settings.chibi_plugins()
        if configured is not None:
            chibi_dir = (configured[0], configured[1])
            if configured[1] == "project":
                chibi_reason = trust_of().settings_reason(settings)
                if chibi_reason is None and configured[0].is_dir():
                    chibi_reason = trust_of().dir_reason(configured[0])

    for name in extra_off:
        if not any(c.matches(name) for c in candidates):
            warnings.append(f"-p no:{name} names {name!r}, which matches no plugin")
    for name, where, origin in settings.names_mentioned():
        if not any(c.matches(name) for c in candidates):
            warnings.append(f"{origin}: {where} names {name!r}, which matches no plugin")
    return Plan(settings, candidates, chibi_dir, chibi_reason, errors, warnings)


def _path_key(path: Path) -> str:
    return os.path.normcase(os.path.abspath(path))


# -- loading ------------------------------------------------------------------------------------

_UNSET: Any = object()


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
        ui=ui,
        has_ui=has_ui,
        session_id=session_id,
        host=host,
        **runtime_options,
    )
    _SETTINGS[rt] = settings
    _PLANS[rt] = the_plan
    rt.load_errors.extend(the_plan.errors)
    show_trace = env_flag(ENV_TRACE) if trace is None else trace
    stream = sys.stderr

    for cand in the_plan.candidates:
        info = PluginInfo(cand.name, cand.source, cand.status or LOADED, scope=cand.scope,
                          reason=cand.reason or cand.note)
        if cand.path is not None:
            info.path = str(cand.path)
        if cand.record is not None:
            info.distribution, info.version = cand.record.dist, cand.record.version
            info.entry_point = cand.record.value
        rt.plugin_info[cand.name] = info
        if cand.status is not None:
            continue
        start = time.perf_counter()
        error = _load_one(rt, cand, info, settings, plugin_config)
        info.load_ms = round((time.perf_counter() - start) * 1000, 3)
        if error is not None:
            info.status, info.reason = FAILED, error.message
            rt.load_errors.append(error)
        if show_trace:
            state = info.status if error is None else f"failed: {error.message}"
            print(f"agenthooks: trace: load {cand.name} ({cand.source}) {info.load_ms:.2f}ms {state}",
                  file=stream)

    if the_plan.chibi_dir is not None:
        _load_chibi(rt, *the_plan.chibi_dir, the_plan.chibi_reason)

    if show_trace:
        rt.register(TracePlugin(stream), name="trace")
        rt.plugin_info["trace"] = PluginInfo("trace", "builtin", LOADED, reason="--trace / AGENT_HOOKS_TRACE")

    ranked = effective_order(rt)
    for name, raw in rt.plugin_info.items():
        if isinstance(raw, PluginInfo) and raw.status == LOADED and name in ranked:
            raw.hooks = rt.hooks_of(name)
            raw.order = ranked.index(name) + 1
    return rt


def effective_order(rt: Runtime) -> list[str]:
    """Registered plugins in call order (before ``tryfirst``/``trylast``, which are per hook)."""
    loaded = rt.plugins
    return sorted(loaded, key=lambda n: (0, rt.order.index(n)) if n in rt.order else (1, loaded.index(n)))


_SETTINGS: weakref.WeakKeyDictionary[Runtime, Settings] = weakref.WeakKeyDictionary()
_PLANS: weakref.WeakKeyDictionary[Runtime, Plan] = weakref.WeakKeyDictionary()


def settings_of(rt: Runtime) -> Settings | None:
    """The settings a runtime from :func:`load_runtime` was built with."""
    return _SETTINGS.get(rt)


def plan_of(rt: Runtime) -> Plan | None:
    return _PLANS.get(rt)


def _load_one(rt: Runtime, cand: Candidate, info: PluginInfo, settings: Settings,
              plugin_config: dict[str, Any] | None) -> HookError | None:
    what = cand.record.value if cand.record is not None else str(cand.path)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout may be a protocol channel (JSON)
            obj = import_entry_point(cand.record.value) if cand.record else import_file(cand.path)  # type: ignore[arg-type]
    except (Exception, SystemExit) as exc:
        return HookError(cand.name, "import", f"cannot import {what}: {describe_exception(exc)}", "load")
    if info.path is None:
        module: Any = obj if hasattr(obj, "__file__") else sys.modules.get(getattr(obj, "__module__", ""))
        info.path = getattr(module, "__file__", None)
    try:
        rt.register(obj, name=cand.name)
    except PluginError as exc:
        message = str(exc).removeprefix(f"plugin {cand.name!r}: ")
        return HookError(cand.name, "register", message, "load")
    section, origins = settings.plugin_section(cand.names)
    if plugin_config and any(k in plugin_config for k in cand.names):
        extra = next(plugin_config[k] for k in cand.names if k in plugin_config)
        section = {**(section or {}), **extra} if isinstance(extra, dict) else extra
        origins = [*origins, "plugin_config="]
    problem = configure(rt, cand.name, section, origins)
    if problem is not None:
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
    impls = [i for i in rt.pm.hook.plugin_config_model.get_hookimpls() if i.plugin_name == name]
    where = f"[plugins.{name}]" + (f" in {', '.join(origins)}" if origins else "")
    config: Any = section if section is not None else {}
    if impls and (section is not None or validate_empty):
        try:
            model = impls[-1].function()
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
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "importlib" not in f.filename and f.filename != __file__]
    if frames:
        head += f" (at {frames[-1].filename}:{frames[-1].lineno})"
    return head


def import_entry_point(value: str) -> Any:
    import importlib

    module_name, _, attr = value.partition(":")
    module_name = module_name.strip()
    attr = re.sub(r"\[.*\]$", "", attr).strip()
    obj: Any = importlib.import_module(module_name)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


def import_file(path: Path) -> Any:
    import hashlib
    import importlib.util

    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
    stem = path.parent.name if path.name == "__init__.py" else path.stem
    modname = f"_agent_hooks_file_{re.sub(r'[^0-9A-Za-z_]', '_', stem)}_{digest}"
    package = [str(path.parent)] if path.name == "__init__.py" else None  # relative imports work
    spec = importlib.util.spec_from_file_location(modname, path, submodule_search_locations=package)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    return module


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
    try:
        from .dialects import chibi_plugins
    except ImportError:
        message = "chibi subprocess plugins are not supported by this version"
        rt.plugin_info[name] = PluginInfo(name, "chibi", FAILED, path=str(directory), scope=scope, reason=message)
        rt.load_errors.append(HookError(name, "import", message, "load"))
        return
    try:
        chibi_plugins.load_directory(rt, directory)
    except Exception as exc:  # the loader records per-plugin errors itself; this is a bug guard
        message = f"loading chibi plugins from {directory} failed: {describe_exception(exc)}"
        rt.load_errors.append(HookError(name, "import", message, "load"))


class TracePlugin:
    """``--trace`` / ``AGENT_HOOKS_TRACE=1``: one line per hook call on stderr, with timings."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream

    @hookimpl
    def hook_called(self, outcome: Any) -> None:
        stream = self.stream or sys.stderr
        line = (f"agenthooks: trace: {outcome.hook} {outcome.duration * 1000:.2f}ms "
                f"decision={outcome.decision} handlers={','.join(outcome.handlers) or '-'} "
                f"answered={','.join(outcome.answered) or '-'}")
        for err in outcome.errors:
            line += f"\n  error: {err}"
        print(line, file=stream, flush=True)
