"""Qwen Code (0.24): Claude Code's hook protocol in ``~/.qwen/settings.json`` (``hooks``).

``ADAPTER`` maps its events to canonical hooks (:mod:`..hostkit.claudeformat`); ``INSTALLER``
writes the user or project settings; see docs/hosts/qwen.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import home_dir
from .capabilities import Cap
from .hostkit import gate as g
from .hostkit.claudeformat import ClaudeFormatAdapter
from .hostkit.claudeinstall import ClaudeFormatInstaller
from .hostkit.shape import ToolShape, needs

#: the events we wire (the 0.24.4 bundle has 22; the others have no canonical hook yet)
EVENTS = ("SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")

SHELL = "run_shell_command"
WRITE_TOOLS = frozenset({"write_file", "edit", "replace"})


class QwenAdapter(ClaudeFormatAdapter):
    name = "qwen"
    TITLE = "Qwen Code"
    EVENTS = EVENTS
    SHELL_TOOLS = frozenset({SHELL})
    TOOL_SHAPE = ToolShape(fields={SHELL: needs("command"), **{t: needs("file_path") for t in WRITE_TOOLS},
                                   "read_file": needs("absolute_path", "file_path")})

    CAPABILITIES = {
        "on_start": Cap("SessionStart"),
        "session_start": Cap("SessionStart"),
        "on_end": Cap("SessionEnd"),
        "pre_message": Cap("UserPromptSubmit", block=True),
        "pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, note="as additionalContext"),
        "pre_tool": Cap("PreToolUse", block=True, rewrite=True, closed=True,
                        note="a JSON deny or exit 2 blocks; other exits and timeouts let the tool run"),
        "pre_shell_exec": Cap("PreToolUse run_shell_command", block=True, closed=True),
        "pre_file_write": Cap("PreToolUse write_file|edit", block=True, closed=True),
        "post_tool": Cap("PostToolUse"),
        "agent_end": Cap("Stop"),
    }

    def permission_calls(self, tool: str, arguments: dict[str, Any], cwd: str) -> g.Calls:
        if tool in WRITE_TOOLS:
            content = arguments.get("content") if isinstance(arguments.get("content"), str) else None
            return g.writes([(arguments.get("file_path"), content)], tool, cwd)
        return super().permission_calls(tool, arguments, cwd)


ADAPTER = QwenAdapter()


def qwen_home(environ: Mapping[str, str] | None = None) -> Path:
    return home_dir(environ) / ".qwen"


INSTALLER = ClaudeFormatInstaller(
    host="qwen", title="Qwen Code",
    paths={"user": lambda project, env: qwen_home(env) / "settings.json",
           "project": lambda project, env: Path(project) / ".qwen" / "settings.json"},
    events=EVENTS, gating=ADAPTER.GATING,
    # seconds: the 0.24 code reads the timeout as seconds although its docs say milliseconds
    timeout=60,
)


def main(argv: list[str]) -> int:
    """``agenthooks qwen``: one Qwen Code hook event on stdin, the answer on stdout."""
    from .hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Qwen Code")


__all__ = ["ADAPTER", "EVENTS", "INSTALLER", "QwenAdapter", "main"]
