"""filter_debug_messages: drop debug-only custom messages from what the model sees (seed 002, omp's context example).

``pre_llm_context`` hands each handler a deep copy of the messages, so filtering them here never
touches the session itself.
"""

from __future__ import annotations

from agent_hooks_core import hookimpl


def _debug_only(message) -> bool:
    custom_type = message.get("customType", message.get("custom_type"))
    return message.get("role") == "custom" and custom_type == "debug-only"


@hookimpl
def pre_llm_context(event):
    return {"messages": [m for m in event.messages if not _debug_only(m)]}
