"""A hook file for the real-agent tests that prove the shell gate and the rewrite on each host: its
``pre_shell_exec`` denies one marker command (the guard blocks in ``pre_tool``, so its tests prove
that hook only) and its ``pre_tool`` rewrites ``echo original``."""

from __future__ import annotations

from pathlib import Path

#: the command the shell gate denies; ran.txt in the project says it ran
FORBIDDEN = "echo forbidden-marker > ran.txt"
REASON = "no forbidden markers here [shell-gate]"

SOURCE = f"""
from agent_hooks_core import hookimpl

@hookimpl
def pre_shell_exec(event):
    if "forbidden-marker" in event.command:
        return {{"denied": True, "reason": {REASON!r}}}

@hookimpl
def pre_tool(event):
    if (event.arguments or {{}}).get("command") == "echo original":
        return {{"arguments": {{**event.arguments, "command": "echo rewritten-ran"}}}}
"""


def hook_file(directory: Path) -> Path:
    path = directory / "shell_gate.py"
    path.write_text(SOURCE)
    return path
