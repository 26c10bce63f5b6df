"""protected_paths: block writes to certain paths (seed 004, pi's "block writes to certain paths")."""

from __future__ import annotations

from agent_hooks_core import hookimpl

PROTECTED_PATHS = [".env", ".git/", "node_modules/"]


@hookimpl
def pre_tool(event, ctx):
    if event.tool_name not in ("write", "edit"):
        return None
    path = str(event.arguments.get("path") or "")
    if any(p in path for p in PROTECTED_PATHS):
        ctx.ui.notify(f"Blocked write to protected path: {path}", "warning")
        return {"block": True, "reason": f'Path "{path}" is protected'}
    return None
