"""permission_gate: ask before dangerous bash commands (seed 004, pi's "shitty permission gate").

With a UI the user picks Yes or No; without one ``select`` returns None and the command is
blocked. The seed's regexes, kept as they are; agent-hooks-guard is the thorough version.
"""

from __future__ import annotations

import re

from agent_hooks_core import hookimpl

DANGEROUS_PATTERNS = [
    re.compile(r"\brm\s+(-rf?|--recursive)", re.IGNORECASE),
    re.compile(r"\bsudo\b", re.IGNORECASE),
    re.compile(r"\b(chmod|chown)\b.*777", re.IGNORECASE),
]


@hookimpl
def pre_tool(event, ctx):
    if event.tool_name != "bash":
        return None
    command = str(event.arguments.get("command") or "")
    if not any(p.search(command) for p in DANGEROUS_PATTERNS):
        return None
    choice = ctx.ui.select(f"⚠️ Dangerous command:\n\n  {command}\n\nAllow?", ["Yes", "No"])
    if choice != "Yes":
        return {"block": True, "reason": "Blocked by user"}
    return None
