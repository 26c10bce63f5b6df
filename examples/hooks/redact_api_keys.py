"""redact_api_keys: hide ``API_KEY=...`` in what the read tool returns (seed 002, omp's tool_result example).

Text content blocks (pi) and the ``output`` string (chibi) are both rewritten; error results are
left alone. agent-hooks-guard redacts many more key formats.
"""

from __future__ import annotations

import re

from agent_hooks_core import hookimpl

API_KEY = re.compile(r"API_KEY=\S+")


def _redact(text: str) -> str:
    return API_KEY.sub("API_KEY=[REDACTED]", text)


@hookimpl
def pre_tool_output(event):
    if event.tool_name != "read" or event.is_error:
        return None
    answer = {}
    if event.content:
        answer["content"] = [
            {**chunk, "text": _redact(chunk["text"])} if chunk.get("type") == "text" else chunk
            for chunk in event.content
        ]
    if isinstance(event.output, str):
        answer["output"] = _redact(event.output)
    return answer or None
