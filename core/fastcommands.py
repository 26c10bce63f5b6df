"""The per-event commands ``agenthooks`` dispatches before typer is imported.

Data and one lookup, so both ``__main__`` (which dispatches them) and ``cli.app`` (which hands
them back when global options came first) read it without importing each other. A host's
per-event command (``agenthooks codex``) comes from its record (:mod:`.bridges.registry`).
"""

from __future__ import annotations

#: command -> "module:function"; the function takes the remaining argv and returns an exit code
OWN_COMMANDS = {
    "chibi": "agent_hooks_core.dialects.chibi_exec:main",
    "serve": "agent_hooks_core.serve.fastcli:main",
}


def fast_command(name: str) -> str | None:
    """``"module:function"`` of the per-event command ``name``, or None when it is not one."""
    if name in OWN_COMMANDS:
        return OWN_COMMANDS[name]
    if not name or name.startswith("-"):
        return None
    from .bridges.registry import command

    return command(name)
