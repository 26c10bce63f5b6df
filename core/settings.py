"""Settings: a user file and a project file (TOML), project over user, plus the environment.

Files
    user      ``$AGENT_HOOKS_HOME/settings.toml``, else ``<platform config dir>/agent-hooks/settings.toml``
              (``--settings PATH`` / ``settings_path=`` replaces it)
    project   ``<project>/.agent-hooks/settings.toml``; the project is the nearest directory, from
              the working directory upwards, that holds an ``.agent-hooks/`` directory

    organisation  named by the user file (``organisation = {url = ..., sha256 = ...}`` or
              ``{path = ...}``): a team's policy, see :mod:`agent_hooks_core.orgpolicy`

Precedence, lowest first: built-in defaults, the user file, the project file, the environment
(``AGENT_HOOKS_PLUGINS``, ``AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD``), explicit options (CLI flags,
``Runtime.from_settings`` keyword arguments); the organisation file's ``disabled``, ``required``
and plugin sections sit above the user and project files, which cannot weaken them. How each key
merges is in ``docs/settings.md``.

This module is on the start-up path of every host: it imports nothing heavy. ``tomllib`` (or
``tomlkit`` on Python 3.10) is imported only when a settings file exists; ``tomlkit`` for edits.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import orgpolicy
from .errors import AgentHooksError
from .fileio import SETTINGS_MAX, UnreadableFile, atomic_write, locked, read_bounded

ENV_HOME = "AGENT_HOOKS_HOME"
ENV_PLUGINS = "AGENT_HOOKS_PLUGINS"
ENV_NO_AUTOLOAD = "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD"
ENV_TRACE = "AGENT_HOOKS_TRACE"
PROJECT_DIR = ".agent-hooks"
SETTINGS_FILE = "settings.toml"

_LIST_KEYS = ("disabled", "enabled", "order", "hooks", "required")
KNOWN_KEYS = frozenset({*_LIST_KEYS, "hook_timeout", "timeouts", "chibi_plugins", "plugins", "organisation",
                        "serve", "stop_gate_limit"})  # [serve] port: docs/serve.md
#: keys whose values make the runtime load code: in a project file they need `agenthooks trust`
CODE_KEYS = ("hooks", "chibi_plugins")
#: keys that can weaken a gating plugin (switch it off, reconfigure it, change its time limit):
#: in a project file they apply only once the project is trusted (the agent can write that file)
POLICY_KEYS = ("disabled", "plugins", "hook_timeout", "timeouts", "stop_gate_limit")
#: the keys an organisation file may set (no code: it is fetched, not reviewed)
ORG_KEYS = frozenset({"disabled", "required", "plugins"})
#: why a plugin shipped off until enabled is not loaded
OFF_UNTIL_ENABLED = "off until enabled (`agenthooks plugins enable {name}`)"
#: the built-in per-handler time limit (seconds); the runtime's DEFAULT_TIMEOUT, kept equal by a test
DEFAULT_HOOK_TIMEOUT = 30.0
#: continuations in a row the stop gate may win per session; the runtime's default, kept equal by a test
DEFAULT_STOP_GATE_LIMIT = 3


class SettingsError(AgentHooksError):
    """A settings file cannot be read: one line naming the file (and line) and what is wrong."""


# -- locations ----------------------------------------------------------------------------------


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's home directory: ``$HOME`` of ``env`` (default: this process)."""
    home = (os.environ if env is None else env).get("HOME")
    return Path(home) if home else Path.home()


def user_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's agent-hooks directory: ``$AGENT_HOOKS_HOME`` or the platform config dir.

    ``env`` (default: this process's) supplies ``AGENT_HOOKS_HOME``; the platform directory is
    always this process's.
    """
    home = (os.environ if env is None else env).get(ENV_HOME)
    if home:
        return Path(home).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("agent-hooks", appauthor=False))


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where caches live: ``$AGENT_HOOKS_HOME/cache`` or the platform cache dir."""
    home = (os.environ if env is None else env).get(ENV_HOME)
    if home:
        return Path(home).expanduser() / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("agent-hooks", appauthor=False))


def user_settings_path() -> Path:
    return user_dir() / SETTINGS_FILE


def find_project_root(cwd: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest directory from ``cwd`` upwards holding ``.agent-hooks/`` (never the user dir)."""
    start = Path(cwd or os.getcwd()).resolve()
    try:
        user = user_dir().resolve()
    except OSError:  # pragma: no cover - unresolvable home
        user = None
    for directory in (start, *start.parents):
        candidate = directory / PROJECT_DIR
        if candidate.is_dir():
            if user is not None and candidate.resolve() == user:
                continue  # $AGENT_HOOKS_HOME=~/.agent-hooks seen from ~ is the user dir, not a project
            return directory
    return None


def env_plugins() -> list[str] | None:
    """``AGENT_HOOKS_PLUGINS``: None when unset (all), [] when empty (none), else the names."""
    raw = os.environ.get(ENV_PLUGINS)
    if raw is None:
        return None
    return [n.strip() for n in raw.split(",") if n.strip()]


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def normalize_name(name: str) -> str:
    """Plugin and distribution names compare like PyPI names: case-insensitive, ``-_.`` alike."""
    return re.sub(r"[-_.]+", "-", name).lower()


# -- reading ----------------------------------------------------------------------------------


@dataclass
class SettingsFile:
    """One settings file as read (values type-checked, paths not yet resolved)."""

    path: Path
    scope: str
    """user or project"""
    data: dict[str, Any] = field(default_factory=dict)
    exists: bool = False
    base: Path | None = None
    """the directory relative paths in this file resolve against"""
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    """where an organisation policy comes from (its URL or path), for messages"""

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def has(self, key: str) -> bool:
        return key in self.data


def _loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(text)
    import tomlkit  # pragma: no cover - Python 3.10

    return tomlkit.parse(text).unwrap()  # pragma: no cover


_LINE = re.compile(r"line (\d+)")


def _parse_error(path: Path, exc: Exception) -> SettingsError:
    message = str(exc)
    lineno = getattr(exc, "lineno", None) or getattr(exc, "line", None)
    if not lineno:
        found = _LINE.search(message)
        lineno = int(found.group(1)) if found else None
    message = re.sub(r"\s*\(at line \d+, column \d+\)$", "", message)
    message = re.sub(r"\s*at line \d+ col \d+$", "", message)
    where = f"{path}:{lineno}" if lineno else str(path)
    return SettingsError(f"{where}: invalid TOML: {message}")


def _key_line(text: str, key: str) -> int | None:
    found = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text, re.MULTILINE)
    return text.count("\n", 0, found.start()) + 1 if found else None


def read_file(path: Path, scope: str, base: Path | None = None) -> SettingsFile:
    """Read and type-check one settings file; a missing file is an empty one.

    Raises :class:`SettingsError` (file, line, what) for invalid TOML or a value of the wrong type.
    """
    sf = SettingsFile(path=path, scope=scope, base=base if base is not None else path.parent)
    try:
        text = read_bounded(path, SETTINGS_MAX).decode("utf-8")
    except FileNotFoundError:
        return sf
    except UnreadableFile as exc:  # a symlink to /dev/zero, a FIFO, a 2 GB file: never read
        raise SettingsError(f"{path}: {exc.strerror} (a settings file must be a regular file of at most "
                            f"{SETTINGS_MAX >> 20} MiB)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_text(text, sf)


def parse_text(text: str, sf: SettingsFile) -> SettingsFile:
    """Parse and type-check ``text`` as the settings file ``sf`` (which names it in messages)."""
    path = sf.path
    sf.exists = True
    try:
        data = _loads(text)
    except Exception as exc:  # tomllib.TOMLDecodeError / tomlkit.exceptions.ParseError
        raise _parse_error(path, exc) from None

    def bad(key: str, expected: str, value: Any = None, item: str = "") -> SettingsError:
        line = _key_line(text, key.split(".")[-1])
        where = f"{path}:{line}" if line else str(path)
        got = data_get(key) if value is None else value
        return SettingsError(f"{where}: {key}{item}: expected {expected}, got {_describe_value(got)}")

    def data_get(dotted: str) -> Any:
        node: Any = data
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    for key in _LIST_KEYS:
        if key not in data:
            continue
        if not isinstance(data[key], list):
            raise bad(key, "a list of strings")
        for i, item in enumerate(data[key]):
            if not isinstance(item, str):
                raise bad(key, "a string", item, f"[{i}]")
    if "organisation" in data:
        _check_organisation(data["organisation"], bad)
    if "hook_timeout" in data:
        value = data["hook_timeout"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise bad("hook_timeout", "a number of seconds >= 0 (0 = no timeout)")
    if "stop_gate_limit" in data:
        value = data["stop_gate_limit"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad("stop_gate_limit", "a whole number >= 0 (continuations in a row; 0 = never)")
    if "chibi_plugins" in data and not isinstance(data["chibi_plugins"], str):
        raise bad("chibi_plugins", "a directory path (string)")
    if "timeouts" in data:
        if not isinstance(data["timeouts"], dict):
            raise bad("timeouts", "a table of hook = seconds")
        for hook, value in data["timeouts"].items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise bad(f"timeouts.{hook}", "a number of seconds >= 0 (0 = no timeout)")
    if "plugins" in data:
        if not isinstance(data["plugins"], dict):
            raise bad("plugins", "a table of [plugins.<name>] sections")
        for name, section in data["plugins"].items():
            if not isinstance(section, dict):
                raise bad(f"plugins.{name}", "a table ([plugins.<name>] section)")
    if "serve" in data:
        _check_serve(data["serve"], bad)
    for key in data:
        if key not in KNOWN_KEYS:
            sf.warnings.append(f"{path}: unknown key {key!r} (ignored){_did_you_mean(key, KNOWN_KEYS)}")
    sf.data = data
    return sf


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_serve(value: Any, bad: Callable[..., SettingsError]) -> None:
    if not isinstance(value, dict):
        raise bad("serve", "a table ([serve] section)")
    port = value.get("port")
    if "port" in value and (isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535):
        raise bad("serve.port", "a TCP port number (1-65535)")


def _check_organisation(value: Any, bad: Callable[..., SettingsError]) -> None:
    if not isinstance(value, dict):
        raise bad("organisation", "a table: {url = \"https://...\", sha256 = \"...\"} or {path = \"...\"}")
    if ("url" in value) == ("path" in value):
        raise bad("organisation", "exactly one of url or path", value)
    for key, item in value.items():
        if key in ("url", "path", "sha256") and not isinstance(item, str):
            raise bad(f"organisation.{key}", "a string", item)
        if key == "refresh_hours" and (isinstance(item, bool) or not isinstance(item, (int, float)) or item <= 0):
            raise bad("organisation.refresh_hours", "a number of hours > 0", item)
        if key not in ("url", "path", "sha256", "refresh_hours"):
            raise bad(f"organisation.{key}", "one of url, path, sha256, refresh_hours", item)
    if "url" in value:
        if not value["url"].startswith("https://") and not value["url"].startswith("http://127.0.0.1"):
            raise bad("organisation.url", "an https:// URL", value["url"])
        if "sha256" not in value:
            raise bad("organisation", "a sha256 pin beside the url (the file's SHA-256, hex)", value)
    if "sha256" in value and not re.fullmatch(r"(sha256:)?[0-9a-fA-F]{64}", value["sha256"]):
        raise bad("organisation.sha256", "64 hex digits", value["sha256"])


def _type_name(value: Any) -> str:
    """A type as a user reads it (TOML's words, never Python's ``NoneType``)."""
    import datetime

    if value is None:
        return "nothing"
    if isinstance(value, (datetime.date, datetime.time)):
        return "a date/time"
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a list",
            dict: "a table"}.get(type(value), "a value of another kind")


def _describe_value(value: Any) -> str:
    """``an integer (3)``: the kind of value and, when short, the value itself."""
    kind = _type_name(value)
    if isinstance(value, (bool, int, float, str)):
        shown = repr(value) if not isinstance(value, bool) else str(value).lower()
        if len(shown) <= 40:
            return f"{kind} ({shown})"
    return kind


# -- the merged view ----------------------------------------------------------------------------


@dataclass
class HookPath:
    """A local hook file (or directory of them) named in settings, resolved."""

    path: Path
    scope: str
    """project or user"""
    origin: str
    """the settings file that names it"""


@dataclass
class Settings:
    """The organisation, user and project files and the environment, merged. See ``docs/settings.md``."""

    user: SettingsFile
    project: SettingsFile | None = None
    project_root: Path | None = None
    plugins_env: list[str] | None = None
    """``AGENT_HOOKS_PLUGINS``: None = unset (all), [] = none, else only these"""
    autoload: bool = True
    """False when ``AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD=1``"""
    user_settings_explicit: bool = False
    organisation: SettingsFile | None = None
    """the organisation policy (named by the user file), when one is configured and readable"""
    organisation_error: str | None = None
    """why a configured organisation policy is not in effect (gating hooks then deny)"""
    notices: list[str] = field(default_factory=list)
    """one-line notices from applying the settings (e.g. project keys ignored until trusted)"""

    @property
    def files(self) -> list[SettingsFile]:
        """The user and project files, lowest precedence first (the organisation file is apart)."""
        return [self.user] + ([self.project] if self.project is not None else [])

    @property
    def all_files(self) -> list[SettingsFile]:
        return ([self.organisation] if self.organisation is not None else []) + self.files

    @property
    def warnings(self) -> list[str]:
        out: list[str] = []
        for f in self.all_files:
            out.extend(f.warnings)
        return out

    def _last(self, key: str) -> tuple[Any, SettingsFile | None]:
        for f in reversed(self.files):
            if f.has(key):
                return f.get(key), f
        return None, None

    # scalar keys: the project's value wins
    @property
    def hook_timeout(self) -> float | None:
        """Seconds per handler; None = no timeout; the runtime's default when no file sets it."""
        value, _ = self._last("hook_timeout")
        if value is None:
            return DEFAULT_HOOK_TIMEOUT
        return float(value) or None

    @property
    def stop_gate_limit(self) -> int:
        """Continuations in a row the stop gate may win per session; the project's value wins."""
        value, _ = self._last("stop_gate_limit")
        return DEFAULT_STOP_GATE_LIMIT if value is None else int(value)

    @property
    def timeouts(self) -> dict[str, float | None]:
        merged: dict[str, float | None] = {}
        for f in self.files:
            for hook, value in (f.get("timeouts") or {}).items():
                merged[hook] = float(value) or None
        return merged

    @property
    def order(self) -> list[str]:
        """The project's ``order`` if it has one, else the user's."""
        value, _ = self._last("order")
        return list(value or ())

    @property
    def order_origin(self) -> SettingsFile | None:
        return self._last("order")[1]

    def hook_paths(self, scope: str) -> list[HookPath]:
        """Hook paths of the user or project file, ``~`` expanded, relative ones resolved.

        User-file paths resolve against the file's directory; project-file paths against the
        project root.
        """
        sf = self.user if scope == "user" else self.project
        if sf is None:
            return []
        return [HookPath(self._resolve(sf, raw), scope, str(sf.path)) for raw in sf.get("hooks") or ()]

    def chibi_plugins(self) -> tuple[Path, str, str] | None:
        """(directory, scope, origin) of the effective ``chibi_plugins``, project over user."""
        value, sf = self._last("chibi_plugins")
        if value is None or sf is None:
            return None
        return self._resolve(sf, value), sf.scope, str(sf.path)

    def _resolve(self, sf: SettingsFile, raw: str) -> Path:
        path = Path(os.path.expandvars(raw)).expanduser()
        if not path.is_absolute():
            base = self.project_root if sf.scope == "project" and self.project_root else sf.base
            path = (base or Path.cwd()) / path
        return path

    def origin(self, sf: SettingsFile) -> str:
        """How messages name a file: its path, or ``organisation policy <url>``."""
        return f"organisation policy {sf.source or sf.path}" if sf.scope == "organisation" else str(sf.path)

    @property
    def required(self) -> dict[str, str]:
        """Plugins that must load (normalized name -> where that is said), every layer together.

        A required plugin that is not loaded makes every gating hook deny (see discovery).
        """
        out: dict[str, str] = {}
        for f in self.all_files:
            for name in f.get("required") or ():
                out.setdefault(normalize_name(name), self.origin(f))
        return out

    def required_by(self, names: Iterable[str]) -> str | None:
        required = self.required
        return next((required[k] for k in (normalize_name(n) for n in names if n) if k in required), None)

    def plugin_state(self, names: Iterable[str], *, off_until_enabled: bool = False,
                     selection: bool = True) -> tuple[bool, str | None]:
        """Whether a plugin known by ``names`` (entry-point and distribution name) is enabled: the
        one place that decides it (loading and ``agenthooks plugins enable|disable`` both ask here).

        Files apply in order (user, then project); in each, ``enabled`` re-enables and then
        ``disabled`` disables, so within one file ``disabled`` wins and the project overrides the
        user. A required plugin is not disabled by the user or project files; the organisation's
        ``disabled`` wins over everything. A plugin shipped ``off_until_enabled`` is off unless a
        file enables it or ``AGENT_HOOKS_PLUGINS`` names it (the user asked for it; ``selection=False``
        leaves that out, for what the files alone say). Returns (enabled, why-disabled).
        """
        names = [n for n in names if n]
        keys = {normalize_name(n) for n in names}
        selected = (selection and self.plugins_env is not None
                    and bool(keys & {normalize_name(n) for n in self.plugins_env}))
        default = selected or not off_until_enabled
        enabled, reason = default, (None if default else OFF_UNTIL_ENABLED.format(name=names[0] if names else "?"))
        for f in self.files:
            if keys & {normalize_name(n) for n in f.get("enabled") or ()}:
                enabled, reason = True, None
            if keys & {normalize_name(n) for n in f.get("disabled") or ()}:
                enabled, reason = False, f"disabled in {f.path}"
        if not enabled and self.required_by(names) is not None:
            enabled, reason = True, None
        org = self.organisation
        if org is not None and keys & {normalize_name(n) for n in org.get("disabled") or ()}:
            enabled, reason = False, f"disabled by {self.origin(org)}"
        return enabled, reason

    def toggle(self, names: Iterable[str], spelled: str, enable: bool, target: Path, *,
               off_until_enabled: bool = False, entry_point: bool = False) -> Toggle:
        """What enabling or disabling a plugin in the settings file ``target`` takes, and what is
        then true: worked out on these settings in memory, nothing read or written.

        Enabling removes the plugin from ``target``'s ``disabled``; when that alone does not switch
        it on (another file disables it, or it ships off until enabled), it is also added to
        ``enabled`` unless the organisation disables it, which no file overrides. Disabling removes
        it from ``enabled`` and adds it to ``disabled`` unless it is there already.
        """
        names = sorted({n for n in names if n})
        keys = {normalize_name(n) for n in names}
        project = target != self.user.path
        current = next((f for f in self.files if f.path == target), None)
        data = dict(current.data) if current is not None else {}

        def listed(key: str) -> bool:
            return bool(keys & {normalize_name(str(v)) for v in data.get(key) or ()})

        def edited() -> Settings:
            sf = (replace(current, data=dict(data)) if current is not None else
                  SettingsFile(target, "project" if project else "user", data=dict(data), exists=True,
                               base=target.parent.parent if project else target.parent))
            if not project or current is self.user:
                return replace(self, user=sf)
            return replace(self, project=sf, project_root=self.project_root or target.parent.parent)

        def state() -> tuple[bool, str | None]:
            return edited().plugin_state(names, off_until_enabled=off_until_enabled, selection=False)

        def drop(key: str) -> None:
            data[key] = [v for v in data.get(key) or () if normalize_name(str(v)) not in keys]

        add: tuple[str, str] | None = None
        if enable:
            remove = "disabled"
            drop(remove)
            enabled, reason = state()
            by_organisation = bool(reason and reason.startswith("disabled by organisation policy"))
            if not enabled and (project or off_until_enabled) and not by_organisation:
                add = ("enabled", spelled)
                data["enabled"] = [*(data.get("enabled") or ()), spelled]
                enabled, reason = state()
        else:
            remove = "enabled"
            if not listed("disabled"):
                add = ("disabled", spelled)
                data["disabled"] = [*(data.get("disabled") or ()), spelled]
            drop(remove)
            enabled, reason = state()
            by_organisation = False
        before: list[str] = []
        after_lines: list[str] = []
        if not enable:
            required = self.required_by(names)
            if required is not None:
                before.append(f"note: {spelled} is required (in {required}): it still loads")
        if enable and not enabled and by_organisation:
            after_lines.append(f"note: {spelled} is still {reason}, which user and project settings cannot override")
        elif enable and not enabled:
            after_lines.append(f"note: {spelled} is still {reason}; run `agenthooks plugins enable {spelled}"
                               f"{'' if project else ' --project'}` to override it")
        if enable and enabled:
            env = self.plugins_env
            if env is not None and not any(normalize_name(n) in keys for n in env):
                after_lines.append(f"note: {ENV_PLUGINS}={','.join(env)} does not select {spelled}")
            elif env is None and not self.autoload and entry_point:
                after_lines.append(f"note: {ENV_NO_AUTOLOAD}=1 keeps entry-point plugins from loading")
        return Toggle(spelled, enable, target, (remove, tuple(names)), add, enabled, edited(), tuple(before),
                      tuple(after_lines))

    def plugin_section(self, names: Iterable[str]) -> tuple[dict[str, Any] | None, list[str]]:
        """The merged ``[plugins.<name>]`` section and its files: project keys over user keys,
        and the organisation's keys over both."""
        keys = [normalize_name(n) for n in names if n]
        merged: dict[str, Any] | None = None
        origins: list[str] = []
        for f in [*self.files, *([self.organisation] if self.organisation is not None else [])]:
            sections = f.get("plugins") or {}
            by_norm = {normalize_name(k): v for k, v in sections.items()}
            for key in keys:
                if key in by_norm:
                    merged = _deep_merge(merged or {}, by_norm[key])
                    origins.append(self.origin(f))
                    break
        return merged, origins

    def names_mentioned(self) -> list[tuple[str, str, str]]:
        """(name, where, file) for every plugin name the settings mention (for doctor)."""
        out: list[tuple[str, str, str]] = []
        for f in self.all_files:
            for key in ("disabled", "enabled", "order", "required"):
                out.extend((n, key, self.origin(f)) for n in f.get(key) or ())
            out.extend((n, f"[plugins.{n}]", self.origin(f)) for n in f.get("plugins") or {})
        return out

    def without_project_keys(self, keys: Iterable[str], notice: str | None = None) -> Settings:
        """A copy in which the project file's ``keys`` are ignored (an untrusted project's policy)."""
        import dataclasses

        if self.project is None:
            return self
        drop = set(keys)
        project = dataclasses.replace(self.project, data={k: v for k, v in self.project.data.items()
                                                          if k not in drop})
        notices = [*self.notices, *([notice] if notice else [])]
        return dataclasses.replace(self, project=project, notices=notices)


@dataclass(frozen=True)
class Toggle:
    """An enable/disable of one plugin in one settings file (:meth:`Settings.toggle`): the edit
    (:meth:`apply`, run by :func:`edit_file`) and what to say once it is made (:meth:`lines`)."""

    name: str
    enable: bool
    target: Path
    remove: tuple[str, tuple[str, ...]]
    """(list key, names) taken out of that list"""
    add: tuple[str, str] | None
    """(list key, name) added to that list"""
    enabled: bool
    """whether the plugin is on once the edit is made"""
    after: Settings = field(compare=False, repr=False)
    """these settings as they are once the edit is made"""
    notes_before: tuple[str, ...] = ()
    notes_after: tuple[str, ...] = ()

    def apply(self, doc: Any) -> bool:
        """Make the edit in the parsed file ``doc``; True if it changed anything."""
        changed = bool(list_remove(doc, *self.remove))
        if self.add is not None:
            changed = list_add(doc, *self.add) or changed
        return changed

    def lines(self, changed: bool, notes: Iterable[str] = ()) -> list[str]:
        """What happened, then the notes; ``notes`` are the caller's (trust), placed after the first ones."""
        verb = "Enabled" if self.enable else "Disabled"
        if changed:
            head = f"{verb} {self.name} in {self.target}" + ("" if self.enable else " (it will not be imported)")
        else:
            head = f"{self.name} is already {'enabled' if self.enable else 'disabled'} in {self.target}"
        return [*self.notes_before, *notes, head, *self.notes_after]


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def load_settings(cwd: str | os.PathLike[str] | None = None,
                  settings_path: str | os.PathLike[str] | None = None) -> Settings:
    """Read the user file (or ``settings_path``), the organisation policy it names, the project
    file and the environment.

    Raises :class:`SettingsError` when a file is invalid. Nothing is written here, except the
    organisation policy's cache when it is due for a refresh.
    """
    explicit = settings_path is not None
    upath = Path(settings_path).expanduser() if settings_path is not None else user_settings_path()
    if explicit and not upath.exists():
        raise SettingsError(f"{upath}: settings file not found")
    user = read_file(upath, "user")
    root = find_project_root(cwd)
    project = None
    if root is not None:
        ppath = root / PROJECT_DIR / SETTINGS_FILE
        if not (explicit and ppath.resolve() == upath.resolve()):
            project = read_file(ppath, "project", base=root)
    settings = Settings(user=user, project=project, project_root=root, plugins_env=env_plugins(),
                        autoload=not env_flag(ENV_NO_AUTOLOAD), user_settings_explicit=explicit)
    if user.has("organisation"):
        settings.organisation, settings.organisation_error = _organisation(user.get("organisation"), user.path)
    if project is not None and project.has("organisation"):
        project.warnings.append(f"{project.path}: organisation is read from the user settings only (ignored here)")
    return settings


def _organisation(spec: dict[str, Any], user_file: Path) -> tuple[SettingsFile | None, str | None]:
    """The organisation policy the user file names: (file, None), or (None, why it is not in effect)."""
    got = orgpolicy.get(spec, user_file, cache_dir() / "organisation")
    if isinstance(got, str):
        return None, got
    sf = SettingsFile(path=got.path, scope="organisation", base=None, source=got.source)
    try:
        parse_text(got.data.decode("utf-8"), sf)
    except UnicodeDecodeError:
        return None, f"organisation policy {got.source}: not UTF-8 text"
    except SettingsError as exc:
        return None, f"organisation policy {got.source}: {exc}"
    sf.warnings = [w for w in sf.warnings if "unknown key" not in w] + got.warnings
    for key in list(sf.data):
        if key not in ORG_KEYS:
            del sf.data[key]
            sf.warnings.append(f"organisation policy {got.source}: key {key!r} is not allowed there (ignored); "
                               f"it may set {', '.join(sorted(ORG_KEYS))}")
    return sf, None


# -- writing ------------------------------------------------------------------------------------


def edit_file(path: Path, mutate: Callable[[Any], Any]) -> Any:
    """Apply ``mutate(document)`` to the settings file at ``path`` and write it back atomically.

    The read-modify-write holds the file's edit lock (:func:`agent_hooks_core.fileio.locked`), so
    two edits at once (two ``agenthooks plugins disable``) both land. The file is edited with
    tomlkit, so comments, ordering and formatting survive. A file that is not valid TOML raises
    :class:`SettingsError` and is left untouched; so does a directory we cannot write (one line,
    not a traceback). Returns what ``mutate`` returned.
    """
    import tomlkit

    try:
        with locked(path):
            try:
                text = read_bounded(path, SETTINGS_MAX).decode("utf-8")
            except FileNotFoundError:
                text = ""
            except UnreadableFile as exc:
                raise SettingsError(f"{path}: {exc.strerror}; not edited") from None
            except UnicodeDecodeError as exc:
                raise SettingsError(f"{path}: cannot read: {exc}; not edited") from None
            try:
                doc = tomlkit.parse(text)
            except Exception as exc:
                raise _parse_error(path, exc) from None
            result = mutate(doc)
            new_text = tomlkit.dumps(doc)
            if new_text != text:
                _loads(new_text)  # never write a file we could not read back
                atomic_write(path, new_text)
    except OSError as exc:
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            what = f"{blocker} is a file, not a directory"
        else:
            what = exc.strerror or "operating system error"
            if exc.filename and exc.filename != str(path):
                what += f" ({exc.filename})"
        raise SettingsError(f"{path}: cannot write settings: {what}") from None
    return result


def list_add(doc: Any, key: str, name: str) -> bool:
    """Append ``name`` to the array ``key`` unless present (by normalized name); True if added."""
    import tomlkit

    if key not in doc:
        doc[key] = tomlkit.array()
    arr = doc[key]
    if any(normalize_name(str(v)) == normalize_name(name) for v in arr):
        return False
    arr.append(name)
    return True


def list_remove(doc: Any, key: str, names: Iterable[str]) -> list[str]:
    """Remove every entry of array ``key`` matching one of ``names``; returns the removed ones."""
    if key not in doc:
        return []
    wanted = {normalize_name(n) for n in names}
    arr = doc[key]
    removed = []
    for i in reversed(range(len(arr))):
        if normalize_name(str(arr[i])) in wanted:
            removed.append(str(arr[i]))
            del arr[i]
    return removed[::-1]
