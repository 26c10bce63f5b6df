"""``agenthooks install cursor``: our handlers in Cursor's ``hooks.json`` (``~/.cursor`` or
``<project>/.cursor``), with ``failClosed: true`` on every gating event."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...settings import home_dir
from ..hostkit.installer import HooksFile
from ..hostkit.jsonconfig import InstallError, read_json
from .adapter import GATING

HOST = "cursor"
TIMEOUT = 60  # seconds
#: the events we wire: after* events that duplicate postToolUse are left out (plugins would see
#: every shell command's result twice)
WIRED = (
    "sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure", "subagentStart",
    "subagentStop", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "afterFileEdit",
    "beforeSubmitPrompt", "preCompact", "stop",
)


class CursorInstaller(HooksFile):
    host = HOST
    title = "Cursor"
    events = WIRED
    gating = GATING
    grouped = False

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return home_dir(environ) / ".cursor" / "hooks.json"
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".cursor" / "hooks.json"
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, object]:
        entry: dict[str, object] = {"command": self.command(event, argv), "timeout": TIMEOUT}
        if event in GATING:
            entry["failClosed"] = True
        return entry

    def prepare(self, data: dict[str, object]) -> None:
        data.setdefault("version", 1)

    def install_notes(self, scope: str, path: Path) -> list[str]:
        return ["Cursor runs project hooks only in a trusted workspace"] if scope == "project" else []

    def scope_problems(self, scope: str, path: Path, data: dict[str, object], ours: dict[str, list[dict[str, object]]],
                       where: str) -> list[str]:
        open_gates = [e for e in GATING if e in ours and not all(h.get("failClosed") is True for h in ours[e])]
        if not open_gates:
            return []
        return [f"problem: {where}: {', '.join(sorted(open_gates))} without failClosed: a crash of ours would let "
                f"the action run; run `agenthooks install cursor --{scope}`"]

    def ok_line(self, where: str, ours: dict[str, list[dict[str, object]]]) -> str:
        return f"ok: {where}: wired for {len(WIRED)} events, gating events fail closed"

    def extra_status(self, lines: list[str]) -> list[str]:
        if any(not line.startswith("warning: Cursor is not wired") for line in lines) and runs_our_own_hooks():
            lines.append("ok: Cursor also runs ~/.claude/settings.json hooks when its third-party hooks setting is "
                         "on; the Claude Code bridge answers nothing to Cursor there, so plugins run once per event")
        return lines


INSTALLER = CursorInstaller()
SCOPES = INSTALLER.SCOPES
hooks_path = INSTALLER.path
plan_install = INSTALLER.plan_install
plan_uninstall = INSTALLER.plan_uninstall
install = INSTALLER.install
uninstall = INSTALLER.uninstall
config_targets = INSTALLER.config_targets
wired = INSTALLER.wired
status = INSTALLER.status


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
    return all(isinstance(hooks.get(e), list) and any(INSTALLER.is_ours(h) for h in hooks[e]) for e in GATING)
