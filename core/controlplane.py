"""The control plane: every file that decides what agent-hooks runs, and the CLI calls that change it.

The agent and the repositories it opens are untrusted. Whatever it can write, move, delete or
truncate must not change which plugins load, how they are configured, or how a host reaches us.
This module names that set, derived from the runtime's own configuration rather than kept as a
hand list, so that a new settings location or host installer is protected the day it exists:

* settings: the user directory (``settings.toml``, ``trust.json``, ``hooks/``, the serve token,
  everything below it), the project's ``.agent-hooks/`` (also where a project *would* have one),
  the organisation policy the user settings name, the user settings' ``hooks`` and
  ``chibi_plugins`` entries, and the cache directory (the entry-point cache decides which plugins
  exist);
* the environment: this interpreter's ``site-packages`` (purelib, platlib, ``site``'s list) and the
  user site as trees (``.pth`` files and ``usercustomize``/``sitecustomize`` run at every start),
  the standard library, ``pyvenv.cfg``, the directories the installed plugins are imported from
  (editable installs live outside ``site-packages``), and our console scripts and interpreters;
* the server's run directory (socket, pid file, lock);
* every host configuration ``agenthooks install`` writes: each installer's ``config_targets``.

The guard calls :func:`covering` for every path a command writes, and
:func:`weakening_subcommand` for every run of one of :func:`our_programs`. The set is computed
once per working directory and environment and cached, in the process and in the cache directory
(so a per-event process reads it back instead of importing every installer); a call costs a few
``os.path`` operations. :func:`nested_agent_weakening` and :func:`relocates_nested_agent` say which
runs of an agent host drop or move the hooks agent-hooks installed there.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import runpaths

KINDS = ("settings", "organisation", "trust", "hooks", "environment", "run", "data", "host-config")


@dataclass(frozen=True)
class ProtectedPath:
    """One protected file or tree."""

    path: str
    """absolute, normalised with ``os.path.realpath``"""
    kind: str
    """settings, organisation, trust, hooks, environment, run, data or host-config"""
    tree: bool
    """True: everything below ``path`` is protected too"""
    why: str
    """words for a deny reason, e.g. "agent-hooks user settings\""""


# -- deriving the set ----------------------------------------------------------------------------


class _Builder:
    def __init__(self) -> None:
        self.items: dict[tuple[str, bool], ProtectedPath] = {}

    def add(self, path: str | os.PathLike[str] | None, kind: str, why: str, *, tree: bool = False) -> None:
        if not path:
            return
        real = os.path.realpath(os.path.abspath(os.fspath(path)))
        key = (real, tree)
        if key not in self.items:
            self.items[key] = ProtectedPath(real, kind, tree, why)


def _user_settings(env: Mapping[str, str]) -> tuple[Path, dict[str, object]]:
    """The user settings file and its data ({} when absent or unreadable: nothing to derive)."""
    from .settings import SettingsError, read_file, user_dir

    path = user_dir(env) / "settings.toml"
    try:
        return path, read_file(path, "user").data
    except SettingsError:
        return path, {}


def _settings_paths(b: _Builder, cwd: str, env: Mapping[str, str]) -> None:
    from . import trust
    from .settings import PROJECT_DIR, SETTINGS_FILE, cache_dir, find_project_root, user_dir

    udir = user_dir(env)
    b.add(udir / SETTINGS_FILE, "settings", "agent-hooks user settings")
    b.add(udir / trust.TRUST_FILE, "trust", "agent-hooks trust store")
    b.add(udir / "hooks", "hooks", "agent-hooks user hook files", tree=True)
    b.add(udir / "serve-token", "run", "agent-hooks server token")
    b.add(udir, "settings", "agent-hooks user directory", tree=True)
    b.add(cache_dir(env), "settings", "agent-hooks cache (which plugins are installed)", tree=True)
    root = find_project_root(cwd)
    project = (root or Path(cwd)) / PROJECT_DIR
    b.add(project / SETTINGS_FILE, "settings", "agent-hooks project settings")
    b.add(project / "hooks", "hooks", "agent-hooks project hook files", tree=True)
    b.add(project, "settings", "agent-hooks project directory", tree=True)

    user_file, data = _user_settings(env)
    org = data.get("organisation")
    if isinstance(org, dict) and isinstance(org.get("path"), str):
        org_path = Path(os.path.expandvars(org["path"])).expanduser()
        b.add(org_path if org_path.is_absolute() else user_file.parent / org_path,
              "organisation", "the organisation's agent-hooks policy")
    hooks = data.get("hooks")
    for raw in hooks if isinstance(hooks, list) else ():
        if isinstance(raw, str):
            hook = Path(os.path.expandvars(raw)).expanduser()
            hook = hook if hook.is_absolute() else user_file.parent / hook
            b.add(hook, "hooks", "a hook file the agent-hooks user settings load", tree=hook.is_dir())
    chibi = data.get("chibi_plugins")
    if isinstance(chibi, str):
        chibi_dir = Path(os.path.expandvars(chibi)).expanduser()
        b.add(chibi_dir if chibi_dir.is_absolute() else user_file.parent / chibi_dir,
              "hooks", "the chibi plugin directory of the agent-hooks user settings", tree=True)


def _environment_paths(b: _Builder, env: Mapping[str, str]) -> None:
    import site
    import sysconfig

    why = "the Python environment agent-hooks runs from"
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        b.add(paths.get(key), "environment", why, tree=True)
    for entry in getattr(site, "getsitepackages", lambda: [])():
        b.add(entry, "environment", why, tree=True)
    b.add(paths.get("stdlib"), "environment", why + " (standard library, sitecustomize)", tree=True)
    b.add(paths.get("platstdlib"), "environment", why + " (standard library)", tree=True)
    try:
        user_site = site.getusersitepackages()
    except Exception:  # site can fail on odd homes; the user site is then not in use either
        user_site = None
    b.add(user_site, "environment", "the user's site-packages (.pth files, usercustomize)", tree=True)
    if sys.prefix != sys.base_prefix:
        b.add(Path(sys.prefix) / "pyvenv.cfg", "environment", why + " (pyvenv.cfg)")
    for location in _plugin_locations():
        b.add(location, "environment", "installed agent-hooks code (core or a plugin)", tree=True)
    for program in our_programs(env):
        b.add(program, "environment", "the agent-hooks command")


def _plugin_locations() -> list[str]:
    """Where agent_hooks_core and every plugin module are imported from (found, not imported)."""
    import importlib.util

    from .discovery.entrypoints import scan_entry_points

    modules = {"agent_hooks_core"}
    try:
        from .discovery.entrypoints import HOSTS_GROUP

        for group in (None, HOSTS_GROUP):  # plugins, and the modules that add hosts
            records = scan_entry_points() if group is None else scan_entry_points(group=group)
            modules.update(r.value.partition(":")[0].strip().split(".")[0] for r in records)
    except Exception:  # a broken environment: the site-packages trees still stand
        pass
    out: list[str] = []
    for name in sorted(modules):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            out.extend(spec.submodule_search_locations)
        elif spec.origin and os.path.isabs(spec.origin):
            out.append(spec.origin)
    return out


def _run_paths(b: _Builder) -> None:
    import warnings

    from .serve import paths

    try:
        with warnings.catch_warnings():  # where the run dir falls back to is serve's to report
            warnings.simplefilter("ignore")
            run = paths.runtime_dir()
    except OSError:
        return  # no run directory can be made: nothing there to protect
    b.add(run, "run", "the agent-hooks server's run directory", tree=True)


def _data_paths(b: _Builder, env: Mapping[str, str]) -> None:
    """Our data and state directories: the stable launchers host configurations run (replacing one
    changes what runs), the audit database and its loss counters (deleting them hides what happened)."""
    import platformdirs

    home = env.get("AGENT_HOOKS_HOME")
    if home:
        b.add(Path(home).expanduser() / "bin", "data", "the launchers agent-hooks' host configurations run",
              tree=True)
    b.add(platformdirs.user_data_dir("agent-hooks", appauthor=False), "data",
          "agent-hooks' data (launchers, audit database)", tree=True)
    b.add(platformdirs.user_state_dir("agent-hooks", appauthor=False), "data",
          "agent-hooks' state (audit spool and loss counters)", tree=True)


def _host_paths(b: _Builder, cwd: str, env: Mapping[str, str]) -> None:
    from .bridges import registry
    from .settings import find_project_root

    # project-scope configs of the working directory and of the project it is in, if elsewhere
    root = find_project_root(cwd)
    dirs = [cwd] + ([str(root)] if root is not None and str(root) != cwd else [])
    seen: set[str] = set()
    for record in registry.hosts():
        host = record.name
        if record.installer in seen:
            continue
        seen.add(record.installer)
        try:
            installer = record.load_installer()
        except Exception:  # a broken host distribution: doctor reports it
            continue
        for directory in dirs:
            try:
                targets = installer.config_targets(directory, env)
            except Exception:  # an installer that cannot say is a bug its own tests catch
                continue
            for target in targets:
                b.add(target, "host-config", f"{host} configuration that `agenthooks install` writes")


def _build(cwd: str, env: Mapping[str, str]) -> tuple[ProtectedPath, ...]:
    b = _Builder()
    _settings_paths(b, cwd, env)
    _environment_paths(b, env)
    _run_paths(b)
    _data_paths(b, env)
    _host_paths(b, cwd, env)
    return tuple(b.items.values())


# -- cache -------------------------------------------------------------------------------------------

#: the variables the protected set is derived from (ours, the platform's, the installers'): a
#: change of any of them is a new set. Looked up one by one: iterating os.environ costs ~50 µs.
_ENV_KEYS = runpaths.ENV_KEYS  # the warm server compares them too (runpaths.environment_key)
#: the same, for callers that pass ``env``: the protected set reads no other variable
ENV_KEYS = _ENV_KEYS
_SETTINGS_FILE: dict[tuple[str | None, ...], str] = {}
_CACHE: dict[tuple[object, ...], tuple[tuple[ProtectedPath, ...], _Index]] = {}
_CACHE_MAX = 32
_LOCK = threading.Lock()


class _Index:
    """Protected paths by exact path, for lookups that walk a path's parents."""

    def __init__(self, items: tuple[ProtectedPath, ...]) -> None:
        self.files: dict[str, ProtectedPath] = {}
        self.trees: dict[str, ProtectedPath] = {}
        for item in items:
            (self.trees if item.tree else self.files).setdefault(item.path, item)
        self.all = items
        self.heads: dict[str, frozenset[str]] = {}

    def heads_below(self, directory: str) -> frozenset[str]:
        """The names in ``directory`` that are, or lead to, a protected path (remembered)."""
        got = self.heads.get(directory)
        if got is None:
            prefix = directory.rstrip(os.sep) + os.sep
            got = self.heads[directory] = frozenset(
                item.path[len(prefix):].split(os.sep, 1)[0] for item in self.all if item.path.startswith(prefix))
        return got

    def lookup(self, path: str) -> ProtectedPath | None:
        """The most specific protected path covering ``path`` (itself, or a tree above it)."""
        hit = self.files.get(path) or self.trees.get(path)
        if hit is not None:
            return hit
        parent = os.path.dirname(path)
        while parent and parent != path:
            hit = self.trees.get(parent)
            if hit is not None:
                return hit
            path, parent = parent, os.path.dirname(parent)
        return None

    def below(self, path: str) -> ProtectedPath | None:
        """A protected path inside the directory ``path`` (a recursive change there reaches it)."""
        prefix = path.rstrip(os.sep) + os.sep
        for item in self.all:
            if item.path.startswith(prefix):
                return item
        return None


def _key(cwd: str, env: Mapping[str, str]) -> tuple[object, ...]:
    roots = tuple(env.get(k) for k in _ENV_KEYS)
    settings_file = _SETTINGS_FILE.get(roots)
    if settings_file is None:
        from .settings import user_dir

        settings_file = _SETTINGS_FILE[roots] = str(user_dir(env) / "settings.toml")
    try:  # the user settings name more paths (organisation, hooks): a change there is a new set
        st = os.stat(settings_file)
        stamp: tuple[int, ...] = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        stamp = ()
    return (cwd, roots, stamp, tuple(sys.path))


def _entry(cwd: str | None, env: Mapping[str, str] | None) -> tuple[tuple[ProtectedPath, ...], _Index]:
    environ = os.environ if env is None else env
    where = os.path.abspath(cwd if cwd is not None else os.getcwd())
    key = _key(where, environ)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is None:
            items = _stored_or_built(where, environ)
            hit = (items, _Index(items))
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            _CACHE[key] = hit
    return hit


def clear_cache() -> None:
    """Forget the set, in this process and on disk (``doctor`` and tests look at what is there now)."""
    with _LOCK:
        _CACHE.clear()
        _PROGRAMS.clear()
        _SETTINGS_FILE.clear()
        try:
            os.unlink(_stored_path(os.environ))
        except (OSError, ValueError):
            pass


# -- the set kept on disk ------------------------------------------------------------------------
# Building the set imports every host installer and reads the installed distributions' metadata
# (~100 ms): a per-event process would pay that on its first look-up. The built set is kept in
# the cache directory (itself part of the set: the agent cannot write it) under a key made of
# everything the build reads: the working directory and its project root, the variables it is
# derived from, the user settings file's stamp, the interpreter, ``sys.path`` and the stamps of
# its directories (an install, an uninstall or a new ``.pth`` changes them), this module's
# stamp and the user. Reading it back costs a few ``stat`` calls and one small JSON file.

_STORED_FILE = "controlplane.json"
_STORED_VERSION = 1
_STORED_ENTRIES = 32
_STORED_LIMIT = 4 << 20


def _stored_path(env: Mapping[str, str]) -> str:
    from .settings import cache_dir

    return os.path.join(cache_dir(env), _STORED_FILE)


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_ino)


def _stored_key(cwd: str, env: Mapping[str, str]) -> str:
    import hashlib

    from .settings import find_project_root, user_dir

    root = find_project_root(cwd)
    parts = (_STORED_VERSION, cwd, str(root), [env.get(k) for k in _ENV_KEYS],
             _stamp(str(user_dir(env) / "settings.toml")), sys.executable, sys.prefix,
             [(p, _stamp(p)) for p in sys.path], _stamp(__file__), getattr(os, "getuid", lambda: None)())
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _read_stored(path: str) -> dict[str, list[list[object]]]:
    import json

    from .fileio import read_bounded

    try:
        data = json.loads(read_bounded(path, _STORED_LIMIT))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _STORED_VERSION or not isinstance(
            data.get("entries"), dict):
        return {}
    return data["entries"]


def _decode(rows: object) -> tuple[ProtectedPath, ...] | None:
    if not isinstance(rows, list):
        return None
    out = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and row[1] in KINDS
                and isinstance(row[2], bool) and isinstance(row[3], str) and os.path.isabs(row[0])):
            return None  # not what we wrote: build afresh
        out.append(ProtectedPath(row[0], row[1], row[2], row[3]))
    return tuple(out) or None


def _stored_or_built(cwd: str, env: Mapping[str, str]) -> tuple[ProtectedPath, ...]:
    try:
        key, path = _stored_key(cwd, env), _stored_path(env)
    except Exception:  # the settings or the cache directory cannot be named: nothing to keep
        return _build(cwd, env)
    entries = _read_stored(path)
    items = _decode(entries.get(key))
    if items is not None:
        return items
    items = _build(cwd, env)
    entries.pop(key, None)
    entries[key] = [[p.path, p.kind, p.tree, p.why] for p in items]
    while len(entries) > _STORED_ENTRIES:
        entries.pop(next(iter(entries)))
    try:
        import json

        from .fileio import atomic_write

        atomic_write(Path(path), json.dumps({"version": _STORED_VERSION, "entries": entries}), mode=0o600)
    except OSError:  # a read-only cache directory: the next process builds the set again
        pass
    return items


# -- the API the guard uses ------------------------------------------------------------------------


def protected_paths(*, cwd: str | None = None, env: Mapping[str, str] | None = None) -> tuple[ProtectedPath, ...]:
    """Every protected path for an agent working in ``cwd`` (default: ours) with environment ``env``.

    ``env`` (default: this process's) supplies ``AGENT_HOOKS_HOME``, ``HOME`` and the hosts'
    configuration variables (``CODEX_HOME``, ``CLAUDE_CONFIG_DIR``, …); the platform directories,
    the run directory and the Python environment are this process's.
    """
    return _entry(cwd, env)[0]


def covering(path: str, *, cwd: str | None = None, env: Mapping[str, str] | None = None,
             recursive: bool = False) -> ProtectedPath | None:
    """The protected path a change of ``path`` would touch, or None.

    ``path`` may be relative to ``cwd``, hold ``..`` or pass through symlinks (``~`` is already
    expanded by the caller); both the path as written and where it resolves to are checked, so a
    symlink placed at a protected location and one pointing into it are both caught.
    ``recursive``: the change reaches everything below ``path`` (``rm -r``, ``mv`` of a directory,
    ``chmod -R``), so a protected path inside it counts too.
    """
    _, index = _entry(cwd, env)
    base = os.path.abspath(cwd if cwd is not None else os.getcwd())
    written = os.path.normpath(os.path.join(base, path))
    candidates = [written]
    try:
        parent_real = os.path.join(os.path.realpath(os.path.dirname(written)), os.path.basename(written))
        candidates.append(parent_real)  # the entry itself (a symlink being replaced or removed)
        candidates.append(os.path.realpath(written))  # what a write through it reaches
    except (OSError, ValueError):
        pass
    for candidate in candidates:
        hit = index.lookup(candidate)
        if hit is not None:
            return hit
    if recursive:
        for candidate in candidates:
            hit = index.below(candidate)
            if hit is not None:
                return hit
    return None


def heads(cwd: str, *, env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The names in the directory ``cwd`` that are, or lead to, a protected path (``.agent-hooks``,
    ``.claude``, …): a relative path whose first component is none of them, and no symlink, names
    nothing of the control plane. For a cheap first look at every argument of a command."""
    return _entry(cwd, env)[1].heads_below(os.path.abspath(cwd))


#: options of ``agenthooks`` itself that take a value (they come before the subcommand)
_GLOBAL_VALUE_OPTIONS = frozenset({"--hook", "--settings", "--chibi-plugins", "-p"})
#: subcommand -> its sub-subcommands that change policy ("*" = every use changes it)
_WEAKENING: dict[str, dict[str, str]] = {
    "plugins": {
        "disable": "switches a plugin off",
        "enable": "changes which plugins run",
        "install": "changes which plugins are installed",
        "uninstall": "removes a plugin",
    },
    "trust": {"*": "changes which project code and settings are trusted"},
    "uninstall": {"*": "unwires agent-hooks from a host"},
    "install": {"*": "rewires how a host reaches agent-hooks"},
    "audit": {"prune": "deletes audit records"},
    "guard": {"packs": "changes the guard's rule packs"},
}
#: options after which a command only reads
_READ_ONLY = {"trust": frozenset({"--show", "--list"}), "install": frozenset({"--dry-run"}),
              "uninstall": frozenset({"--dry-run"})}
_HELP = frozenset({"--help", "-h"})


def weakening_subcommand(args: Sequence[str]) -> str | None:
    """Why running our CLI with ``args`` (the words after the program) weakens policy, or None.

    ``plugins disable|enable|install|uninstall``, ``trust`` (other than ``--show``/``--list``),
    ``install``/``uninstall`` of a host (other than ``--dry-run``), ``audit prune`` and changes
    to the guard's packs. ``--help`` anywhere changes nothing.
    """
    words = [str(a) for a in args]
    if any(w in _HELP for w in words):
        return None
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _GLOBAL_VALUE_OPTIONS else 1  # `--settings=X`, `-pno:x`: one word
    if i >= len(words):
        return None
    command, rest = words[i], words[i + 1:]
    table = _WEAKENING.get(command)
    if table is None:
        return None
    if any(w.split("=", 1)[0] in _READ_ONLY.get(command, ()) for w in rest):
        return None
    if "*" in table:
        return f"`agenthooks {command}` {table['*']}"
    sub = next((w for w in rest if not w.startswith("-")), None)
    if sub is None:
        return None
    if command == "guard":
        if sub != "packs":
            return None
        action = next((w for w in rest[rest.index(sub) + 1:] if not w.startswith("-")), None)
        if action in (None, "list", "show"):
            return None
        return f"`agenthooks guard packs {action}` {table['packs']}"
    why = table.get(sub)
    return f"`agenthooks {command} {sub}` {why}" if why else None


#: files Python runs at every start when they sit in a site directory
STARTUP_FILES = ("usercustomize.py", "sitecustomize.py")


def unexpected_startup_files() -> list[str]:
    """``.pth`` files and ``usercustomize``/``sitecustomize`` in this environment's site directories
    that no installed distribution's ``RECORD`` lists and that are newer than every installed
    distribution: what an agent's write (or anyone's) would look like. For ``doctor``.
    """
    import importlib.metadata as md
    import site
    import sysconfig

    dirs = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *getattr(site, "getsitepackages", list)()}
    if site.ENABLE_USER_SITE:
        dirs.add(site.getusersitepackages())
    found: list[str] = []
    for directory in sorted(d for d in dirs if d and os.path.isdir(d)):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        newest = 0.0  # the last install: the newest *.dist-info directory
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    newest = max(newest, os.stat(os.path.join(directory, name)).st_mtime)
                except OSError:
                    pass
        suspects = []
        for name in sorted(n for n in names if n.endswith(".pth") or n in STARTUP_FILES):
            path = os.path.normpath(os.path.join(directory, name))
            try:
                if os.stat(path).st_mtime > newest:
                    suspects.append(path)
            except OSError:
                continue
        if not suspects:
            continue  # the usual case: no RECORD needs reading
        owned = {os.path.normpath(str(dist.locate_file(f)))
                 for dist in md.distributions(path=[directory]) for f in dist.files or ()}
        found.extend(p for p in suspects if p not in owned)
    return found


_PROGRAMS: dict[str | None, tuple[str, ...]] = {}


def our_programs(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Absolute paths that run our CLI in this environment.

    The console scripts of agent-hooks-core in this environment's scripts directory and wherever
    ``PATH`` (of ``env``) finds them, and the interpreters that can ``-m agent_hooks_core``: this
    one as invoked and as resolved, and its ``python``/``python3``/``python3.X`` siblings.
    Cached per ``PATH``.
    """
    search = (os.environ if env is None else env).get("PATH")
    hit = _PROGRAMS.get(search)
    if hit is None:
        hit = _PROGRAMS[search] = _find_programs(search)
    return hit


def _find_programs(search: str | None) -> tuple[str, ...]:
    import shutil
    import sysconfig

    scripts_dir = sysconfig.get_path("scripts")
    out: list[str] = []

    def add(path: str | None) -> None:
        if path and os.path.isabs(path) and path not in out:
            out.append(path)

    exe = os.path.abspath(sys.executable) if sys.executable else None
    add(exe)
    if exe:
        add(os.path.realpath(exe))
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for name in ("python", "python3", version):
        for directory in (scripts_dir, os.path.dirname(exe or "")):
            candidate = os.path.join(directory, name)
            if os.path.exists(candidate):
                add(candidate)
    for script in _console_scripts():
        for directory in (scripts_dir, os.path.dirname(exe or "")):
            candidate = os.path.join(directory, script)
            if os.path.exists(candidate):
                add(candidate)
        found = shutil.which(script, path=search)
        if found:
            add(os.path.abspath(found))
    return tuple(out)


def _console_scripts() -> list[str]:
    import importlib.metadata as md

    try:
        eps = md.distribution("agent-hooks-core").entry_points
    except md.PackageNotFoundError:
        return ["agenthooks"]
    names = [ep.name for ep in eps if ep.group == "console_scripts"]
    return names or ["agenthooks"]


# -- nested agents -----------------------------------------------------------------------------------

#: the programs that start an agent host (each host record's ``executable``; a test keeps them
#: equal) and the npm packages that ship one (``npx <package>``). Data, so that judging a command
#: does not load the host registry (tens of milliseconds in a per-event process).
AGENT_PROGRAMS = frozenset({"claude", "codex", "copilot", "cursor-agent", "droid", "gemini", "kimi", "omp",
                            "opencode", "openhands", "pi", "qwen", "vibe"})
AGENT_PACKAGES = {"@anthropic-ai/claude-code": "claude", "@openai/codex": "codex", "@google/gemini-cli": "gemini",
                  "@qwen-code/qwen-code": "qwen", "@github/copilot": "copilot", "opencode-ai": "opencode",
                  "@mariozechner/pi-coding-agent": "pi", "@oh-my-pi/pi-coding-agent": "omp"}
#: a package's last segment (what is left once ``npx`` took the scope off); the first package wins
_PACKAGE_TAILS = {package.rsplit("/", 1)[-1]: host for package, host in reversed(AGENT_PACKAGES.items())}

#: environment variables that decide where a nested agent (and the agent-hooks it runs) finds its
#: configuration, or what code its processes load before ours: set for a nested agent, they
#: drop or replace our hooks. By shape (``*_HOME``, ``*_DIR``, ``*_CONFIG*``, ``*SETTINGS*``,
#: ``*HOOK*``, ``*DISABLE*``, ``XDG_*``, loaders) so a host's new variable is covered the day it exists.
_RELOCATING = ("HOME", "PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONWARNINGS",
               "PYTHONSAFEPATH", "PYTHONPLATLIBDIR", "PYTHONEXECUTABLE", "LD_PRELOAD", "LD_LIBRARY_PATH",
               "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "NODE_OPTIONS", "NODE_PATH",
               "BUN_OPTIONS", "ZDOTDIR", "BASH_ENV", "ENV")
_RELOCATING_SHAPES = ("_HOME", "_DIR", "_DIRS", "_CONFIG", "_CONFIG_PATH", "_CONFIG_FILE", "_PATH")
#: the subset that no ordinary command line exports: `export` of one of these is denied outright
#: (the shell it lasts in may start a nested agent), while e.g. ``export PATH=...`` stays ordinary work
_NEVER_EXPORTED = ("HOME", "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "BUN_OPTIONS",
                   "BASH_ENV", "ZDOTDIR")


def relocates_nested_agent(variable: str) -> bool:
    """Whether setting ``variable`` for a nested agent can drop or replace agent-hooks' hooks there."""
    v = variable.upper()
    return (v in _RELOCATING or v.startswith(("XDG_", "AGENT_HOOKS_", "PYTHON", "LD_", "DYLD_"))
            or v.endswith(_RELOCATING_SHAPES) or "SETTINGS" in v or "HOOK" in v or "DISABLE" in v)


def never_exported(variable: str) -> bool:
    """Whether ``export``ing ``variable`` is itself a change of the control plane: our own
    variables, the directories our settings and the hosts' configurations live in, loaders."""
    v = variable.upper()
    return v in _NEVER_EXPORTED or (v in _ENV_KEYS and v != "PATH") or v.startswith("AGENT_HOOKS_")


def agent_program(name: str) -> str | None:
    """The agent host ``name`` starts, or None: a program, or an npm package as ``npx`` names it
    (``@anthropic-ai/claude-code@latest``, or its last segment once a wrapper took the scope off)."""
    bare = name[:1] + name[1:].split("@", 1)[0]  # the version, not a scope's @
    base = bare.rsplit("/", 1)[-1]
    if base in AGENT_PROGRAMS:
        return base
    return _PACKAGE_TAILS.get(base)


def _options(args: Sequence[str]) -> list[tuple[str, str | None]]:
    """``(option, value)`` for every ``--opt value``/``--opt=value``/``-o value`` in ``args`` (the
    value is the next word when it is no option itself; a flag's value is then a guess, which only
    ever makes a check stricter)."""
    out: list[tuple[str, str | None]] = []
    for k, a in enumerate(args):
        if not a.startswith("-") or a == "-" or a == "--":
            continue
        if a.startswith("--") and "=" in a:
            name, _, value = a.partition("=")
            out.append((name, value))
        elif not a.startswith("--") and len(a) > 2:  # `-cVALUE`: a short option with its value attached
            out.append((a[:2], a[2:]))
        else:
            nxt = args[k + 1] if k + 1 < len(args) and not args[k + 1].startswith("-") else None
            out.append((a, nxt))
    return out


def _claude_hooks_off(args: Sequence[str]) -> str | None:
    for opt, value in _options(args):
        if opt == "--setting-sources":
            sources = {s.strip() for s in (value or "").split(",")}
            if not {"user", "project", "local"} <= sources:
                return f"--setting-sources {value or ''} leaves out settings that hold agent-hooks' hooks"
        elif opt == "--settings":
            return "--settings can switch hooks off (disableAllHooks) or replace them"
        elif opt == "--bare":
            return "--bare skips the hooks agent-hooks installed"
    return None


#: configuration keys that hold or switch Codex's hooks (``features`` alone: an inline table)
_CODEX_HOOK_KEYS = ("hooks", "features", "features.hooks", "features.codex_hooks")


def _codex_hooks_off(args: Sequence[str]) -> str | None:
    for opt, value in _options(args):
        if opt in ("-c", "--config") and value is not None:
            key = value.partition("=")[0].strip().strip("\"'")
            if key in _CODEX_HOOK_KEYS or key.startswith("hooks."):
                return f"-c {key} changes or switches off the hooks agent-hooks installed"
        elif opt in ("--disable", "--enable") and value is not None and "hook" in value:
            return f"{opt} {value} changes whether hooks run"
        elif opt == "--dangerously-bypass-hook-trust":
            return "--dangerously-bypass-hook-trust runs hooks nobody reviewed (a repository's own)"
    return None


def _pi_hooks_off(args: Sequence[str]) -> str | None:
    for opt, _ in _options(args):
        if opt in ("--no-extensions", "--no-hooks"):
            return f"{opt} drops the extension agent-hooks installed"
    return None


#: host -> what in its command line drops or replaces our hooks (flags that only add are fine)
_HOOKS_OFF = {"claude": _claude_hooks_off, "codex": _codex_hooks_off, "pi": _pi_hooks_off, "omp": _pi_hooks_off}


def nested_agent_weakening(program: str, args: Sequence[str]) -> str | None:
    """Why running the agent ``program`` with ``args`` drops or replaces agent-hooks' hooks there, or None."""
    host = agent_program(program)
    if host is None:
        return None
    judge = _HOOKS_OFF.get(host)
    why = judge(list(args)) if judge is not None else None
    return f"a nested {host} run with {why}" if why else None
