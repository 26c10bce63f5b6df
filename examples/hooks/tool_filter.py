"""tool_filter: restrict the tools the model may call (seed 001, chibi's tool filter).

In the ``safe`` context only the goal and reflection tools are offered; everywhere else the file
tools are removed. Several plugins combine: includes intersect, excludes add up.
"""

from __future__ import annotations

from agent_hooks_core import hookimpl

FILE_TOOLS = ["file_head", "file_tail", "file_lines", "file_grep"]


@hookimpl
def pre_api_tools(event):
    if event.context_name == "safe":
        return {"include": ["update_goals", "update_reflection"]}
    return {"exclude": FILE_TOOLS}
