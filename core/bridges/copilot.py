"""GitHub Copilot CLI (1.0.102): command hooks in ``~/.copilot/hooks/agent-hooks.json``.

Copilot reads its hook files in two dialects; we use the PascalCase one (``PreToolUse`` …), whose
stdin and answers are Claude Code's (``hook_event_name``, ``tool_name: "Bash"``,
``hookSpecificOutput.permissionDecision``), so :mod:`.hostkit.claudeformat` answers it. Copilot
drops a hook's stderr, so a reason must travel in the JSON; any non-zero exit blocks a tool.
Repository hooks (``.github/hooks/``) load only in a trusted folder: ``doctor`` says when not.
See docs/hosts/copilot.md.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import home_dir
from .base import HostAnswer
from .hostkit.adapter import Turn
from .hostkit.claudeformat import ClaudeFormatAdapter
from .hostkit.installer import HooksFile
from .hostkit.jsonconfig import InstallError, read_json
from .hostkit.shape import ToolShape, needs
from .hosts.copilot import EVENTS

FILE = "agent-hooks.json"


#: the camelCase ``hookName`` Copilot sends on an event of a PascalCase file that keeps its own
#: payload (PermissionRequest) -> the event's PascalCase name
CAMEL = {"permissionRequest": "PermissionRequest", "userPromptSubmitted": "UserPromptSubmit", "agentStop": "Stop"}


class CopilotAdapter(ClaudeFormatAdapter):
    name = "copilot"
    TITLE = "GitHub Copilot CLI"
    EVENTS = EVENTS
    # the PermissionRequest payload names the shell tool ``bash``, the others ``Bash``
    SHELL_TOOLS = frozenset({"Bash", "bash"})
    STOP_GATE = True
    GATING = frozenset({"PreToolUse", "PermissionRequest"})
    TOOL_SHAPE = ToolShape(fields={"Bash": needs("command")})
    # PermissionRequest comes in Copilot's own camelCase payload even from a PascalCase file
    PERMISSION_SHAPE = ToolShape(input=("toolInput",), name=("toolName",), fields={"bash": needs("command")})
    # an allow with updated input is not read back here
    PERMISSION_REWRITE = False
    # Copilot blocks on any non-zero exit but then reads no JSON and drops stderr ("hook exited with
    # code 2"): our own failure is exit 0 with the JSON deny, so the model learns why. A failure
    # of the fast client itself still exits 2: blocked, without the reason.
    FAILURE_EXIT = 0

    def event_name(self, event: Mapping[str, Any]) -> str | None:
        name = super().event_name(event)
        if name is None and isinstance(event, Mapping) and isinstance(event.get("hookName"), str):
            camel = event["hookName"]
            name = CAMEL.get(camel, camel[:1].upper() + camel[1:]) if camel else None
        return name

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        options = super().runtime_options(event)
        if "session_id" not in options and isinstance(event.get("sessionId"), str) and event["sessionId"]:
            options["session_id"] = event["sessionId"]
        return options

    def _context(self, turn: Turn, body: dict[str, Any] | None, extra: list[str]) -> HostAnswer:
        # Copilot 1.0.102 reads additionalContext at the top level only (hookSpecificOutput's is dropped)
        answer = super()._context(turn, body, extra)
        specific = (answer.body or {}).get("hookSpecificOutput")
        if isinstance(specific, dict) and "additionalContext" in specific:
            answer.body = {**(answer.body or {}), "additionalContext": specific["additionalContext"]}
        return answer

    def permission_answer(self, behavior: str, message: str = "",
                          updated: dict[str, Any] | None = None) -> dict[str, Any]:
        # Copilot reads ``behavior``/``message`` at the top level; hookSpecificOutput is ignored here
        return {"behavior": behavior, **({"message": message} if message else {})}



ADAPTER = CopilotAdapter()


def copilot_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else home_dir(environ) / ".copilot"


def trusted_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """``trusted_folders`` of ``~/.copilot/config.json`` (a JSON file with ``//`` comment lines)."""
    try:
        text = (copilot_home(environ) / "config.json").read_text(encoding="utf-8")
        data = json.loads(re.sub(r"(?m)^\s*//.*$", "", text))
    except (OSError, ValueError):
        return []
    folders = data.get("trusted_folders") if isinstance(data, dict) else None
    return [Path(os.path.abspath(f)) for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def folder_trusted(folder: str, environ: Mapping[str, str] | None = None) -> bool:
    here = Path(os.path.abspath(folder))
    return any(here == t or t in here.parents for t in trusted_folders(environ))


UNTRUSTED = ("GitHub Copilot CLI skips repository hooks in a folder it does not trust: trust {folder} "
             "when Copilot asks, or run it with --trust-folder (or COPILOT_ALLOW_ALL=true)")


class CopilotInstaller(HooksFile):
    host = "copilot"
    title = "GitHub Copilot CLI"
    events = EVENTS
    gating = ADAPTER.GATING
    grouped = False
    command_key = "bash"

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return copilot_home(environ) / "hooks" / FILE
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".github" / "hooks" / FILE
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, Any]:
        return {"type": "command", "bash": self.command(event, argv), "timeoutSec": 60}

    def prepare(self, data: dict[str, Any]) -> None:
        data.setdefault("version", 1)

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        """The hook files, and what decides whether they run: ``trusted_folders`` in config.json;
        settings.json may hold hooks too."""
        home = copilot_home(environ)
        return [*super().config_targets(project_dir, environ), home / "config.json", home / "settings.json"]

    def install_notes(self, scope: str, path: Path) -> list[str]:
        folder = str(path.parent.parent.parent)
        return [UNTRUSTED.format(folder=folder)] if scope == "project" and not folder_trusted(folder) else []

    def status(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        lines = super().status(cwd)
        if not self.ours(_read_or_empty(self.path("user"))):
            lines.extend(_claude_hooks_only(Path(os.path.abspath(cwd or os.getcwd()))))
        return lines

    def scope_problems(self, scope: str, path: Path, data: dict[str, Any], ours: dict[str, list[dict[str, Any]]],
                       where: str) -> list[str]:
        folder = str(path.parent.parent.parent)
        if scope == "project" and not folder_trusted(folder):
            return [f"warning: {where}: " + UNTRUSTED.format(folder=folder)]
        return []


def _read_or_empty(path: Path) -> dict[str, Any]:
    try:
        return read_json(path)[0]
    except InstallError:
        return {}


def _claude_hooks_only(project: Path) -> list[str]:
    """A warning when this project's Claude Code settings run our Claude Code bridge: Copilot runs
    those hooks too, but exec-form entries (ours) without their args, so agent-hooks is off there."""
    from .claude_code_install import is_ours

    for name in ("settings.json", "settings.local.json"):
        hooks = _read_or_empty(project / ".claude" / name).get("hooks")
        groups = [g for gs in (hooks.values() if isinstance(hooks, dict) else []) if isinstance(gs, list)
                  for g in gs if isinstance(g, dict) and isinstance(g.get("hooks"), list)]
        entries = [h for g in groups for h in g["hooks"]]
        if any(is_ours(h) for h in entries):
            return [f"warning: {project / '.claude' / name}: GitHub Copilot CLI runs this repository's Claude Code "
                    "hooks but drops the arguments of ours, so agent-hooks does not run in Copilot; run "
                    "`agenthooks install copilot`"]
    return []


INSTALLER = CopilotInstaller()


def runs_our_own_hooks(event_name: str) -> bool:
    """True when the user's Copilot hook file (not a project's: the agent can write those) runs
    agent-hooks' Copilot bridge on ``event_name`` and, for a gating event, on every gating event."""
    try:
        data, _ = read_json(INSTALLER.path("user"))
    except InstallError:
        return False
    ours = INSTALLER.ours(data)
    needed = {event_name, *ADAPTER.GATING} if event_name in ADAPTER.GATING else {event_name}
    return all(ours.get(e) for e in needed)


def main(argv: list[str]) -> int:
    """``agenthooks copilot``: one Copilot CLI hook event on stdin, the answer on stdout."""
    from .hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "GitHub Copilot CLI")


__all__ = ["ADAPTER", "EVENTS", "INSTALLER", "CopilotAdapter", "main"]
