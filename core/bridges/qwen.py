"""Qwen Code (0.24): Claude Code's hook protocol in ``~/.qwen/settings.json`` (``hooks``).

``ADAPTER`` maps its events to canonical hooks (:mod:`..hostkit.claudeformat`); ``INSTALLER``
writes the user or project settings; see docs/hosts/qwen.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import home_dir
from .hostkit import gate as g
from .hostkit.claudeformat import ClaudeFormatAdapter
from .hostkit.installer import HooksFile
from .hostkit.jsonconfig import InstallError
from .hostkit.shape import ToolShape, needs
from .hosts.qwen import EVENTS

SHELL = "run_shell_command"
WRITE_TOOLS = frozenset({"write_file", "edit", "replace"})


class QwenAdapter(ClaudeFormatAdapter):
    name = "qwen"
    TITLE = "Qwen Code"
    EVENTS = EVENTS
    SHELL_TOOLS = frozenset({SHELL})
    STOP_GATE = True
    GATING = frozenset({"PreToolUse", "PermissionRequest"})
    TOOL_SHAPE = ToolShape(fields={SHELL: needs("command"), **{t: needs("file_path") for t in WRITE_TOOLS},
                                   "read_file": needs("absolute_path", "file_path")})
    PERMISSION_SHAPE = TOOL_SHAPE
    # 0.24 reads a PreToolUse updatedInput nowhere (only a PermissionRequest allow's)
    TOOL_REWRITE = False

    def permission_calls(self, tool: str, arguments: dict[str, Any], cwd: str) -> g.Calls:
        if tool in WRITE_TOOLS:
            content = arguments.get("content") if isinstance(arguments.get("content"), str) else None
            return g.writes([(arguments.get("file_path"), content)], tool, cwd)
        return super().permission_calls(tool, arguments, cwd)


ADAPTER = QwenAdapter()


def qwen_home(environ: Mapping[str, str] | None = None) -> Path:
    return home_dir(environ) / ".qwen"


class QwenInstaller(HooksFile):
    host = "qwen"
    title = "Qwen Code"
    events = EVENTS
    gating = ADAPTER.GATING
    what = "settings"

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return qwen_home(environ) / "settings.json"
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".qwen" / "settings.json"
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, Any]:
        # seconds: the 0.24 code reads the timeout as seconds although its docs say milliseconds
        return {"type": "command", "command": self.command(event, argv), "timeout": 60}


INSTALLER = QwenInstaller()


def main(argv: list[str]) -> int:
    """``agenthooks qwen``: one Qwen Code hook event on stdin, the answer on stdout."""
    from .hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Qwen Code")


__all__ = ["ADAPTER", "EVENTS", "INSTALLER", "QwenAdapter", "main"]
