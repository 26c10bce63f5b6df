"""Claude Code's answer to one hook event: the JSON on stdout, stderr lines, the exit code."""

from __future__ import annotations

import json
from typing import Any

from ..base import HostAnswer

#: Claude Code caps hook output strings (reasons, additionalContext, systemMessage) at this length
MAX_TEXT = 10_000


class Reply:
    """What we answer Claude Code: exit code, the JSON object on stdout, lines for stderr."""

    def __init__(self, event: str, code: int = 0) -> None:
        self.event = event
        self.code = code
        self.output: dict[str, Any] = {}
        self.stderr: list[str] = []
        #: additionalContext parts, joined when rendered
        self.context: list[str] = []
        #: systemMessage parts (shown to the user)
        self.messages: list[str] = []

    def specific(self, **fields: Any) -> None:
        out = self.output.setdefault("hookSpecificOutput", {"hookEventName": self.event})
        out.update({k: v for k, v in fields.items() if v is not None})

    def block(self, reason: str) -> None:
        self.output["decision"] = "block"
        self.output["reason"] = cap(reason)

    def render(self) -> str:
        if self.context:
            self.specific(additionalContext=cap("\n\n".join(self.context)))
        if self.messages:
            self.output["systemMessage"] = cap("\n".join(self.messages))
        return json.dumps(self.output, ensure_ascii=False) if self.output else ""

    def answer(self) -> HostAnswer:
        """The reply as the transports' :class:`~agent_hooks_core.bridges.base.HostAnswer`."""
        if self.context:
            self.specific(additionalContext=cap("\n\n".join(self.context)))
            self.context = []
        if self.messages:
            self.output["systemMessage"] = cap("\n".join(self.messages))
            self.messages = []
        specific = self.output.get("hookSpecificOutput") or {}
        blocked = (self.output.get("decision") == "block" or specific.get("permissionDecision") == "deny"
                   or (specific.get("decision") or {}).get("behavior") == "deny")
        return HostAnswer(body=self.output or None, stderr=list(self.stderr), exit_code=self.code, blocked=blocked)


def cap(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to Claude Code's limit, saying how much was cut."""
    if len(text) <= limit:
        return text
    note = f"\n[… {{}} more characters cut by agent-hooks to fit Claude Code's {limit:,}-character limit]"
    cut = len(text) - limit
    for _ in range(3):  # the note's length depends on the number it states
        keep = max(limit - len(note.format(cut)), 0)
        cut = len(text) - keep
    return (text[:keep] + note.format(cut))[:limit]
