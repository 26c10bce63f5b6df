"""``agenthooks install codex``: our handlers in Codex's ``hooks.json``, and Codex's hook trust.

Codex 0.169 runs a non-managed hook only when the user's ``config.toml`` holds, under
``[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]``, a ``trusted_hash`` equal to the
hash of that handler's definition (``sha256:`` of the canonical JSON of ``{event_name, matcher,
hooks: [handler with defaults filled]}``; see docs/hosts/codex.md). An untrusted hook is skipped
*silently*, so install records the trust for exactly the handlers it wrote (running the install is
the user's consent) and ``status`` reports "installed but untrusted" whenever a hash does not match.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeGuard

from ...settings import home_dir
from ..hostkit.installer import HooksFile
from ..hostkit.jsonconfig import (
    ConfigEdit,
    FileChange,
    InstallError,
    broken_wiring,
    read_json,
    run_plan,
    runs_us,
)
from ..hostkit.tomlconfig import dump_toml, read_toml
from .adapter import EVENTS

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

#: events whose command fails closed (the fast client exits 2 on its own failures there)
GATING = frozenset({"PreToolUse", "PermissionRequest"})

HOST = "codex"
SCOPES = ("user", "project")
#: seconds; Codex clamps SessionEnd and Interrupt to 3 s
TIMEOUT = 60
TIMEOUTS = {"SessionEnd": 3, "Interrupt": 3}
#: events whose matcher Codex ignores (their trust identity has no matcher)
NO_MATCHER = frozenset({"UserPromptSubmit", "Stop", "SessionEnd", "Interrupt"})


def codex_home(environ: Mapping[str, str] | None = None) -> Path:
    env = (os.environ if environ is None else environ).get("CODEX_HOME")
    return Path(env).expanduser() if env else home_dir(environ) / ".codex"


def config_path() -> Path:
    return Path(os.path.abspath(codex_home())) / "config.toml"


def snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def trust_hash(event: str, group: dict[str, Any], entry: dict[str, Any]) -> str:
    """Codex's hash of one handler: ``version_for_toml`` of its normalized identity."""
    normalized: dict[str, Any] = {"type": "command", "command": entry.get("command", ""),
                                  "timeout": max(int(entry.get("timeout") or 600), 1),
                                  "async": bool(entry.get("async", False))}
    if entry.get("statusMessage") is not None:
        normalized["statusMessage"] = entry["statusMessage"]
    identity: dict[str, Any] = {"event_name": snake(event), "hooks": [normalized]}
    matcher = group.get("matcher")
    if matcher is not None and event not in NO_MATCHER:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


#: (event, group index, handler index, group, handler)
Position = tuple[str, int, int, dict[str, object], dict[str, object]]


class CodexHooks(HooksFile):
    """hooks.json through the shared :class:`~..hostkit.installer.HooksFile` (groups of handlers
    under ``"hooks"``); the plan adds the trust in config.toml for the handlers it writes."""

    host = HOST
    title = "Codex"
    SCOPES = SCOPES
    events = EVENTS
    gating = GATING

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return Path(os.path.abspath(codex_home(environ))) / "hooks.json"
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".codex" / "hooks.json"
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        return [*super().config_targets(project_dir, environ),
                Path(os.path.abspath(codex_home(environ))) / "config.toml"]

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, object]:
        return {"type": "command", "command": self.command(event, argv), "timeout": TIMEOUTS.get(event, TIMEOUT)}

    def is_ours(self, entry: object) -> TypeGuard[dict[str, object]]:
        return isinstance(entry, dict) and entry.get("type", "command") == "command" and runs_us(entry.get("command"),
                                                                                                 HOST)

    def _hooks(self, data: dict[str, object], path: Path) -> dict[str, object]:
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
            raise InstallError(f"{path}: \"hooks\" must map event names to lists; nothing was changed")
        return hooks

    def plan_install(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
                     argv: list[str] | None = None, trust: bool = True) -> ConfigEdit:
        plan = super().plan_install(scope, project_dir, argv)
        change = plan.changes[0]
        path = change.path
        data, _ = read_json(path)
        if trust:
            plan.changes.append(_trust_change(path, data, json.loads(change.new) if change.new is not None else data))
        else:
            plan.notes.append("hooks not trusted (--no-trust): Codex skips them until you trust them in `/hooks`")
        if scope == "project":
            root = str(path.parent.parent)
            if not project_trusted(root):
                plan.notes.append(f"Codex loads .codex/ of a project only when the project is trusted: trust {root} "
                                  "when Codex asks, or add [projects.\"" + root + "\"] trust_level = \"trusted\" "
                                  f"to {config_path()}")
        return plan

    def plan_uninstall(self, scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
        plan = super().plan_uninstall(scope, project_dir)
        change = plan.changes[0]
        data, _ = read_json(change.path)
        plan.changes.append(_trust_change(change.path, data, json.loads(change.new) if change.new else data))
        return plan


INSTALLER = CodexHooks()


def hooks_path(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
    return INSTALLER.path(scope, project_dir)


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project scope of ``project_dir``)."""
    return INSTALLER.config_targets(project_dir, environ)


def our_positions(data: dict[str, object], path: Path) -> list[Position]:
    """(event, group index, handler index, group, handler) for each of our handlers: Codex's trust
    keys are positions."""
    found: list[Position] = []
    for event, groups in INSTALLER._hooks(data, path).items():
        assert isinstance(groups, list)  # _hooks checked
        for gi, group in enumerate(groups):
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hi, entry in enumerate(inner if isinstance(inner, list) else []):
                if isinstance(group, dict) and INSTALLER.is_ours(entry):
                    found.append((event, gi, hi, group, entry))
    return found


# -- config.toml: hook trust ---------------------------------------------------------------


def _read_config() -> tuple[TOMLDocument, str | None]:
    return read_toml(config_path())


def trust_states(doc: Mapping[str, object]) -> dict[str, object]:
    hooks = doc.get("hooks") if hasattr(doc, "get") else None
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return dict(state) if isinstance(state, dict) else {}


def _trust_change(path: Path, old_data: dict[str, object], new_data: dict[str, object]) -> FileChange:
    """config.toml with trust for our handlers in ``new_data`` and none for those in ``old_data``."""
    import tomlkit

    doc, text = _read_config()
    prefix = f"{path}:"
    stale = {f"{prefix}{snake(e)}:{gi}:{hi}" for e, gi, hi, _, _ in our_positions(old_data, path)}
    fresh = {f"{prefix}{snake(e)}:{gi}:{hi}": trust_hash(e, g, h) for e, gi, hi, g, h in our_positions(new_data, path)}
    states = trust_states(doc)
    if not (stale - set(fresh)) and all(
            isinstance(known := states.get(k), dict) and known.get("trusted_hash") == v for k, v in fresh.items()):
        return FileChange(config_path(), text, None)
    hooks = doc.get("hooks")
    if hooks is None:
        hooks = tomlkit.table(is_super_table=True)
        doc["hooks"] = hooks
    elif not isinstance(hooks, dict):
        raise InstallError(f"{config_path()}: \"hooks\" is not a table; nothing was changed")
    state = hooks.get("state")
    if state is None:
        state = tomlkit.table(is_super_table=True)
        hooks["state"] = state
    for key in stale - set(fresh):
        if key in state:
            del state[key]
    for key, value in fresh.items():
        entry = state.get(key)
        if isinstance(entry, dict):
            entry["trusted_hash"] = value
        else:
            table = tomlkit.table()
            table["trusted_hash"] = value
            state[key] = table
    if not state:
        del hooks["state"]
    if not hooks:
        del doc["hooks"]
    return FileChange(config_path(), text, dump_toml(doc, text))


plan_install = INSTALLER.plan_install
plan_uninstall = INSTALLER.plan_uninstall
wired = INSTALLER.wired


#: host options of ``agenthooks install codex`` (cli/hosts.py builds the command from them)
OPTIONS: dict[str, dict[str, object]] = {
    "no_trust": {"flag": "--no-trust", "default": False,
                 "help": "do not record Codex's hook trust: review the hooks in Codex's /hooks yourself "
                         "(until then Codex skips them)"},
}


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: object) -> int:
    import sys

    out = out or sys.stdout
    trust = bool(options.get("trust", not options.get("no_trust", False)))
    plan = plan_install(scope, project_dir, trust=trust)
    return run_plan(plan, dry_run, out, f"Codex ({scope}) wired to agent-hooks" + (", hook trust recorded" if trust else ""))


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    import sys

    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from Codex ({scope})")


# -- doctor --------------------------------------------------------------------------------


def project_trusted(root: str) -> bool:
    doc, _ = _read_config()
    projects = doc.get("projects") if hasattr(doc, "get") else None
    entry = projects.get(root) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def untrusted(path: Path, data: dict[str, object]) -> list[str]:
    """Our handlers in ``path`` that Codex would skip (no or another trusted hash)."""
    doc, _ = _read_config()
    states = trust_states(doc)
    bad = []
    for event, gi, hi, group, entry in our_positions(data, path):
        state = states.get(f"{path}:{snake(event)}:{gi}:{hi}")
        if not (isinstance(state, dict) and state.get("trusted_hash") == trust_hash(event, group, entry)):
            bad.append(event)
    return bad


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    lines = []
    try:
        doc, _ = _read_config()
        features = doc.get("features")
        if isinstance(features, dict) and (features.get("hooks") is False or features.get("codex_hooks") is False):
            lines.append(f"problem: Codex hooks are turned off ([features] hooks = false in {config_path()})")
    except InstallError as exc:
        return [f"problem: {exc}"]
    any_wired = False
    for scope in SCOPES:
        path = hooks_path(scope, cwd)
        try:
            data, _ = read_json(path)
            ours = our_positions(data, path)
        except InstallError as exc:
            lines.append(f"problem: {exc}")
            continue
        if not ours:
            continue
        any_wired = True
        where = f"Codex {scope} hooks ({path})"
        missing = [e for e in EVENTS if e not in {o[0] for o in ours}]
        bad = untrusted(path, data)
        cmds = {str(o[4].get("command", "")) for o in ours}
        gone = broken_wiring(sorted(cmds))
        if bad:
            lines.append(f"problem: {where}: installed but untrusted ({', '.join(bad)}): Codex skips these hooks "
                         f"silently; run `agenthooks install codex --{scope}` to record trust, or trust them in "
                         "Codex's /hooks")
        if gone:
            lines.append(f"problem: {where}: {gone}; run `agenthooks install codex --{scope}`")
        if missing:
            lines.append(f"warning: {where}: not wired for {', '.join(missing)}; run `agenthooks install codex --{scope}`")
        if scope == "project" and not project_trusted(str(path.parent.parent)):
            lines.append(f"warning: {where}: the project is not trusted in {config_path()}, so Codex ignores its .codex/")
        if not (bad or gone or missing):
            lines.append(f"ok: {where}: wired for {len(EVENTS)} events, trusted")
    if not any_wired:
        lines.append("warning: Codex is not wired to agent-hooks; run `agenthooks install codex`")
    return lines
