"""The per-event host commands ``agenthooks`` dispatches before typer is imported.

Data only, so both ``__main__`` (which dispatches them) and ``cli.app`` (which hands them back when
global options came first) read it without importing each other.
"""

from __future__ import annotations

#: command -> "module:function"; the function takes the remaining argv and returns an exit code
FAST_COMMANDS = {
    "claude-code": "agent_hooks_core.bridges.claude_code:main",
    "chibi": "agent_hooks_core.dialects.chibi_exec:main",
    "codex": "agent_hooks_core.bridges.codex:main",
    "gemini": "agent_hooks_core.bridges.gemini:main",
    "cursor": "agent_hooks_core.bridges.cursor:main",
    "vibe": "agent_hooks_core.bridges.vibe:main",
    "kimi": "agent_hooks_core.bridges.kimi:main",
    "serve": "agent_hooks_core.serve.fastcli:main",
}
