"""guardrails: hand control back to the user after risky tool calls (seed 001, chibi's fallback override).

After a batch containing a dangerous tool, the loop falls back to ``call_user`` and the fuel budget
is cut by 5 to discourage repeats.
"""

from __future__ import annotations

from agent_hooks_core import hookimpl

DANGEROUS_TOOLS = {"shell_exec", "write_file", "delete_file"}


@hookimpl
def post_tool_batch(event):
    if any(call.get("name") in DANGEROUS_TOOLS for call in event.tool_calls):
        return {"fallback": "call_user", "fuel_delta": -5}
    return None
