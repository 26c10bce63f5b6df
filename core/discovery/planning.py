"""Planning: every candidate plugin in load order with its status, decided before importing anything.

Load order:

a. project hook files: ``<project>/.agent-hooks/hooks/*.py`` (sorted by file name), then the
   project settings' ``hooks`` entries; both only when trusted (:mod:`agent_hooks_core.trust`);
b. user hook files: ``<user dir>/hooks/*.py`` (sorted), then the user settings' ``hooks``; each
   only while it is what ``agenthooks trust`` pinned for the user (:func:`agent_hooks_core.trust.user_state`);
c. ``--hook PATH`` files (``hook_paths=``), in the order given;
d. entry-point plugins (group ``agent_hooks``), sorted by entry-point name, then distribution;
e. chibi subprocess plugins (``chibi_plugins`` setting or ``--chibi-plugins DIR``).

A path met twice loads once, at its first loadable place. ``disabled`` (settings, the
``AGENT_HOOKS_PLUGINS`` selection, autoload switched off, ``disabled_extra``) and ``untrusted``
candidates are never imported.

An untrusted project's *policy* keys (``disabled``, plugin sections, timeouts: what can switch a
gating plugin off) are left out of the settings the plan applies, with a one-line notice.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import trust
from ..errors import HookError
from ..plugininfo import DISABLED, FAILED, RUN_DISABLED, UNTRUSTED
from ..settings import POLICY_KEYS, Settings, normalize_name, user_dir
from ..trust import TrustState
from .entrypoints import EntryPointRecord, scan_entry_points


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
class LoadPlan:
    settings: Settings
    """the settings in effect (an untrusted project's policy keys left out)"""
    candidates: list[Candidate]
    chibi_dir: tuple[Path, str] | None
    """(directory, scope) of chibi subprocess plugins to load, if any"""
    chibi_reason: str | None
    errors: list[HookError]
    warnings: list[str]
    trust: trust.TrustState | None = None
    """the project's pins, when the plan looked at project code"""
    gate_reasons: list[str] = field(default_factory=list)
    """why gating hooks must deny whatever loads (a missing selected plugin, no organisation policy)"""
    notices: list[str] = field(default_factory=list)
    """one line each for the user: skipped project code, ignored project settings"""
    user_trust: TrustState | None = None
    """the user hook files' pins, when the plan looked at user hook files"""

    def find(self, name: str) -> list[Candidate]:
        return [c for c in self.candidates if c.matches(name)]


def _suggest(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(set(known)), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def plan(settings: Settings, *, hook_paths: Sequence[str | os.PathLike[str]] = (),
         chibi_plugins: str | os.PathLike[str] | None = None, autoload: bool | None = None,
         use_cache: bool = True, disabled_extra: Iterable[str] = ()) -> LoadPlan:
    """Every candidate plugin in load order with its status, importing nothing.

    ``disabled_extra`` disables plugins for this run only (``agenthooks -p no:NAME``), over
    any settings file.
    """
    extra_off = list(disabled_extra)
    errors: list[HookError] = []
    notices: list[str] = []
    files: list[tuple[Path, str, bool]] = []  # (path, scope, named by the project settings)
    trust_state: trust.TrustState | None = None
    user_trust: trust.TrustState | None = None

    def trust_of() -> trust.TrustState:
        nonlocal trust_state
        if trust_state is None:
            trust_state = trust.state(settings)
        return trust_state

    def user_trust_of() -> trust.TrustState:
        nonlocal user_trust
        if user_trust is None:
            user_trust = trust.user_state()
        return user_trust

    root = settings.project_root
    if settings.project is not None and any(settings.project.has(k) for k in POLICY_KEYS):
        why = trust_of().policy_reason(settings)
        if why is not None:
            ignored = [k for k in POLICY_KEYS if settings.project.has(k)]
            settings = settings.without_project_keys(
                ignored, f"{settings.project.path}: {', '.join(ignored)} ignored: {why}")
    warnings: list[str] = list(settings.warnings)
    if root is not None:
        files.extend((p, "project", False) for p in trust.project_hook_files(root))
        for hp in settings.hook_paths("project"):
            files.extend((p, "project", True) for p in trust.expand_hook_path(hp.path))
    udir = user_dir() / "hooks"
    if udir.is_dir():
        files.extend((p, "user", False) for p in sorted(udir.glob("*.py")) if p.is_file())
    # a settings file named on the command line (``--settings``) is as explicit as ``--hook``
    user_scope = "cli" if settings.user_settings_explicit else "user"
    for hp in settings.hook_paths("user"):
        files.extend((p, user_scope, False) for p in trust.expand_hook_path(hp.path))
    for raw in hook_paths:
        files.extend((p, "cli", False) for p in trust.expand_hook_path(Path(raw).expanduser()))

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
        elif scope == "user":
            reason = user_trust_of().file_reason(path)
            if reason:
                cand.status, cand.reason = UNTRUSTED, reason
        if cand.status is None:
            _apply_switches(cand, settings, extra_off)
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
            _apply_switches(cand, settings, extra_off)
        candidates.append(cand)
    installed = [n for c in candidates if c.source == "entry-point" for n in c.names]
    gate_reasons: list[str] = []
    for selected in env or ():
        if not any(c.matches(selected) for c in candidates if c.source == "entry-point"):
            message = (f"AGENT_HOOKS_PLUGINS names {selected!r}, which is not installed"
                       f"{_suggest(selected, installed)}")
            errors.append(HookError(selected, "select", message, "load"))
            gate_reasons.append(message)
    if settings.organisation_error is not None:
        gate_reasons.append(settings.organisation_error)

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
            elif not settings.user_settings_explicit and configured[0].is_dir():
                chibi_reason = user_trust_of().dir_reason(configured[0])
                if chibi_reason:
                    notices.append(f"skipped chibi plugins in {configured[0]}: {chibi_reason}")

    known = [n for c in candidates for n in c.names]
    for name in extra_off:
        if not any(c.matches(name) for c in candidates):
            warnings.append(f"-p no:{name} names {name!r}, which matches no plugin{_suggest(name, known)}")
    for name, where, origin in settings.names_mentioned():
        if not any(c.matches(name) for c in candidates):
            warnings.append(f"{origin}: {where} names {name!r}, which matches no plugin{_suggest(name, known)}")
    untrusted_user = [c for c in candidates if c.status == UNTRUSTED and c.scope == "user"]
    if untrusted_user:
        notices.append(f"skipped user hook file(s) {', '.join(c.name for c in untrusted_user)}: new or changed "
                       "since you last trusted them (`agenthooks trust --show` says what changed; "
                       "`agenthooks trust` allows them)")
    untrusted = [c for c in candidates if c.status == UNTRUSTED and c.scope != "user"]
    project_chibi = chibi_reason if chibi_dir is not None and chibi_dir[1] == "project" else None
    if untrusted or project_chibi:
        what = ", ".join(c.name for c in untrusted) + (", chibi plugins" if project_chibi and untrusted else
                                                       "chibi plugins" if project_chibi else "")
        notices.append(f"project {root}: skipped untrusted {what} "
                       "(`agenthooks trust --show` says why; `agenthooks trust` allows them)")
    notices.extend(settings.notices)
    return LoadPlan(settings, candidates, chibi_dir, chibi_reason, errors, warnings, trust_state,
                    gate_reasons, notices, user_trust)


def _apply_switches(cand: Candidate, settings: Settings, extra_off: list[str]) -> None:
    """The settings' enabled/disabled, then this run's ``disabled_extra``."""
    enabled, why = settings.plugin_state(
        cand.names, off_until_enabled=cand.record is not None and cand.record.off_until_enabled)
    if not enabled:
        cand.status, cand.reason = DISABLED, why
    elif any(cand.matches(n) for n in extra_off):
        cand.status, cand.reason = DISABLED, RUN_DISABLED


def _path_key(path: Path) -> str:
    return os.path.normcase(os.path.abspath(path))
