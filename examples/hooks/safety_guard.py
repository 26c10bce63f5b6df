"""safety_guard: block ``rm -rf`` in shell tool calls (seed 000/001, chibi's tool blocker).

The seed's one-line check, kept as it is: it is an example of the hook, not a policy. For a
guard that is not fooled by ``rm -r -f`` or ``bash -c``, install agent-hooks-guard.
"""

from __future__ import annotations

from agent_hooks_core import hookimpl

SHELL_TOOLS = ("shell_exec", "run_command")  # chibi's current and older names


@hookimpl
def pre_tool(event):
    if event.tool_name in SHELL_TOOLS and "rm -rf" in (event.arguments.get("command") or ""):
        return {"block": True, "message": "Blocked: rm -rf commands are not allowed"}
    return None
