"""``agenthooks install cursor``: our handlers in Cursor's ``hooks.json`` (``~/.cursor`` or
``<project>/.cursor``), with ``failClosed: true`` on every gating event."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ...settings import home_dir
from ..hostkit.jsonconfig import (
    ConfigEdit,
    FileChange,
    InstallError,
    broken_wiring,
    dump_json,
    event_argv,
    read_json,
    run_plan,
    runs_us,
    shell_command,
    transport_note,
)
from .adapter import GATING

HOST = "cursor"
SCOPES = ("user", "project")
TIMEOUT = 60  # seconds
#: the events we wire: after* events that duplicate postToolUse are left out (plugins would see
#: every shell command's result twice)
WIRED = (
    "sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure", "subagentStart",
    "subagentStop", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "afterFileEdit",
    "beforeSubmitPrompt", "preCompact", "stop",
)


def hooks_path(scope: str, project_dir: str | os.PathLike[str] | None = None,
               environ: Mapping[str, str] | None = None) -> Path:
    if scope == "user":
        return home_dir(environ) / ".cursor" / "hooks.json"
    if scope == "project":
        return Path(os.path.abspath(project_dir or os.getcwd())) / ".cursor" / "hooks.json"
    raise InstallError(f"unknown scope {scope!r}: use user or project")


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project scope of ``project_dir``)."""
    return [hooks_path("user", environ=environ), hooks_path("project", project_dir)]


def handler(event: str, argv: list[str] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": shell_command(event_argv(HOST, event, event in GATING, argv)), "timeout": TIMEOUT}
    if event in GATING:
        entry["failClosed"] = True
    return entry


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and runs_us(entry.get("command"), HOST)


def without_us(data: dict[str, Any], path: Path) -> dict[str, Any]:
    new = json.loads(json.dumps(data))
    hooks = new.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" must be an object; nothing was changed")
    for event in [e for e, v in hooks.items() if isinstance(v, list)]:
        hooks[event] = [h for h in hooks[event] if not is_ours(h)]
        if not hooks[event]:
            del hooks[event]
    if "hooks" in new and not hooks and set(new) <= {"hooks", "version"}:
        return {}
    return new


def with_us(data: dict[str, Any], path: Path, argv: list[str] | None) -> dict[str, Any]:
    new = without_us(data, path)
    new.setdefault("version", 1)
    hooks = new.setdefault("hooks", {})
    for event in WIRED:
        entries = hooks.setdefault(event, [])
        if not isinstance(entries, list):
            raise InstallError(f"{path}: hooks.{event} must be a list; nothing was changed")
        entries.append(handler(event, argv))
    return new


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None, argv: list[str] | None = None) -> ConfigEdit:
    path = hooks_path(scope, project_dir)
    data, old = read_json(path)
    new = with_us(data, path, argv)
    plan = ConfigEdit([FileChange(path, old, None if (old is not None and new == data) else dump_json(new, old))])
    if argv is None:
        plan.notes.append(transport_note("Cursor"))
    if scope == "project":
        plan.notes.append("Cursor runs project hooks only in a trusted workspace")
    return plan


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    path = hooks_path(scope, project_dir)
    data, old = read_json(path)
    new = without_us(data, path)
    return ConfigEdit([FileChange(path, old, None if (old is None or new == data) else dump_json(new, old))],
                      removal=True)


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: Any) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout, f"Cursor ({scope}) wired to agent-hooks")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from Cursor ({scope})")


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    found = []
    for scope in SCOPES:
        try:
            data, _ = read_json(hooks_path(scope, cwd))
        except InstallError:
            continue
        hooks = data.get("hooks")
        if isinstance(hooks, dict) and any(is_ours(h) for v in hooks.values() if isinstance(v, list) for h in v):
            found.append(scope)
    return found


def runs_our_own_hooks() -> bool:
    """True when the user's Cursor hooks (not a project's: the agent can write those, and Cursor
    skips them in untrusted workspaces) run agent-hooks' Cursor bridge on the gating events."""
    try:
        data, _ = read_json(hooks_path("user"))
    except InstallError:
        return False
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return False
    return all(isinstance(hooks.get(e), list) and any(is_ours(h) for h in hooks[e]) for e in GATING)


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    lines = []
    for scope in SCOPES:
        path = hooks_path(scope, cwd)
        try:
            data, _ = read_json(path)
        except InstallError as exc:
            lines.append(f"problem: {exc}")
            continue
        raw = data.get("hooks")
        hooks: dict[str, Any] = raw if isinstance(raw, dict) else {}
        ours = {e: [h for h in v if is_ours(h)] for e, v in hooks.items() if isinstance(v, list)}
        ours = {e: v for e, v in ours.items() if v}
        if not ours:
            continue
        where = f"Cursor {scope} hooks ({path})"
        open_gates = [e for e in GATING if e in ours and not all(h.get("failClosed") is True for h in ours[e])]
        missing = [e for e in WIRED if e not in ours]
        gone = broken_wiring(sorted({h.get("command", "") for hs in ours.values() for h in hs}))
        if gone:
            lines.append(f"problem: {where}: {gone}; run `agenthooks install cursor --{scope}`")
        if open_gates:
            lines.append(f"problem: {where}: {', '.join(sorted(open_gates))} without failClosed: a crash of ours "
                         f"would let the action run; run `agenthooks install cursor --{scope}`")
        if missing:
            lines.append(f"warning: {where}: not wired for {', '.join(missing)}")
        if not (gone or open_gates or missing):
            lines.append(f"ok: {where}: wired for {len(WIRED)} events, gating events fail closed")
    if not lines:
        lines.append("warning: Cursor is not wired to agent-hooks; run `agenthooks install cursor`")
    elif runs_our_own_hooks():
        lines.append("ok: Cursor also runs ~/.claude/settings.json hooks when its third-party hooks setting is on; "
                     "the Claude Code bridge answers nothing to Cursor there, so plugins run once per event")
    return lines
