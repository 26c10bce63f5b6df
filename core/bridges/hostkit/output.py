"""A tool's result through ``pre_tool_output`` (redaction, withholding) and ``post_tool``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .gate import stopper

if TYPE_CHECKING:
    from ...runtime import Runtime


@dataclass
class OutputChange:
    """What plugins did to a tool's output: withheld it (``blocked``) or replaced its text."""

    text: str
    blocked: bool
    by: str

    def feedback(self, tool: str) -> str:
        """The text a host that can only replace the result with "feedback" should send."""
        if self.blocked:
            return self.text
        return (f"agent-hooks ({self.by}) changed the output of {tool}; this is the output the tool "
                f"returned:\n{self.text}")


def text_of(value: Any) -> str | None:
    """A tool result as the model reads it: strings as they are, text blocks joined, else JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [b["text"] for b in value if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)
    if isinstance(value, dict):
        for key in ("output", "stdout", "llmContent", "content", "result", "text"):
            inner = value.get(key)
            if isinstance(inner, str | list):
                found = text_of(inner)
                if found is not None:
                    return found
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def output(rt: Runtime, tool: str, arguments: dict[str, Any], result: Any, *, is_error: bool = False,
           call_id: str | None = None, errors: list[str] | None = None) -> OutputChange | None:
    """Fire ``pre_tool_output`` then ``post_tool``; the change to report, if any."""
    text = text_of(result)
    out = rt.fire("pre_tool_output", {"tool_name": tool, "arguments": arguments, "output": text,
                                      "details": result, "is_error": is_error, "tool_call_id": call_id})
    post = rt.fire("post_tool", {"tool_name": tool, "arguments": arguments, "result": result,
                                 "is_error": is_error, "tool_call_id": call_id})
    if errors is not None:
        errors.extend(str(e) for e in [*out.errors, *post.errors])
    data = out.data or {}
    who = ", ".join(out.answered) or "a plugin"
    if data.get("block"):
        return OutputChange(str(out.reason or f"{stopper(out) or 'a plugin'} withheld this tool's output"),
                            True, who)
    new = data.get("output")
    if isinstance(new, str) and new != text:
        return OutputChange(new, False, who)
    if "content" in data and data["content"] is not None:
        changed = text_of(data["content"])
        if changed is not None and changed != text:
            return OutputChange(changed, False, who)
    return None
