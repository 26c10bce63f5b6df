"""The merged view of the organisation, user and project files and the environment, and the pure
enable/disable of a plugin (:meth:`Settings.toggle`: the edit and its notes, nothing written)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .editing import list_add, list_remove
from .keys import DEFAULT_HOOK_TIMEOUT, DEFAULT_STOP_GATE_LIMIT, OFF_UNTIL_ENABLED, normalize_name
from .parsing import SettingsFile
from .paths import ENV_NO_AUTOLOAD, ENV_PLUGINS

if TYPE_CHECKING:
    from tomlkit import TOMLDocument


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

    def plugin_section(self, names: Iterable[str]) -> tuple[dict[str, object] | None, list[str]]:
        """The merged ``[plugins.<name>]`` section and its files: project keys over user keys,
        and the organisation's keys over both."""
        keys = [normalize_name(n) for n in names if n]
        merged: dict[str, object] | None = None
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

    def apply(self, doc: TOMLDocument) -> bool:
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


def _deep_merge(base: Mapping[str, object], over: Mapping[str, object]) -> dict[str, object]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(prev := out.get(key), dict):
            out[key] = _deep_merge(prev, value)
        else:
            out[key] = value
    return out
