"""OpenHands CLI events -> canonical hooks -> the answers OpenHands 1.16 reads.

OpenHands names the event in ``event_type`` and the directory in ``working_dir``. It blocks on
exit 2 (the reason: our JSON ``reason``, else stderr) or on exit 0 with ``{"decision": "deny"}``;
it reads ``reason``, ``additionalContext`` and ``continue``, never Claude's ``hookSpecificOutput``,
and no changed input. Any other outcome (exit 1, a timeout, a command that cannot start) lets the
action proceed, so our own failure on PreToolUse is the JSON deny *and* exit 2 with the reason.
Facts: docs/hosts/openhands.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..base import BridgeInputError, HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.openhands import EVENTS

#: file_editor commands that change the file
EDITS = frozenset({"create", "str_replace", "insert", "undo_edit"})

#: what an OpenHands tool call must carry to be checked
TOOL_SHAPE = ToolShape(fields={
    "terminal": needs("command"), "file_editor": needs("path"), "planning_file_editor": needs("path"),
    "glob": needs("path", optional=True), "grep": needs("path", optional=True),
})


def permission_calls(tool: str, args: dict[str, Any], cwd: str) -> g.Calls:
    if tool == "terminal":
        return g.shell(args.get("command"), tool)
    if tool in ("file_editor", "planning_file_editor"):
        if args.get("command") in EDITS:
            content = args.get("file_text") if args.get("command") == "create" else None
            return g.writes([(args.get("path"), content if isinstance(content, str) else None)], tool, cwd)
        return g.reads([args.get("path")], tool, cwd)
    if tool in ("glob", "grep"):
        return g.reads([args.get("path") or cwd], tool, cwd)
    return []


def deny(reason: str, blocked: bool = True) -> HostAnswer:
    return HostAnswer(body={"decision": "deny", "reason": reason}, blocked=blocked)


class OpenHandsAdapter(Adapter):
    name = "openhands"
    TITLE = "OpenHands CLI"
    EVENT_KEY = "event_type"
    GATING = frozenset({"PreToolUse"})
    SHAPES = {"PreToolUse": TOOL_SHAPE}
    EVENTS = EVENTS

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        options = super().runtime_options(event)
        workdir = event.get("working_dir")
        if isinstance(workdir, str) and os.path.isdir(workdir):
            options["cwd"] = workdir
        return options

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in self.GATING or event_name is None:
            reason = fail_reason(problem)
            return HostAnswer(body={"decision": "deny", "reason": reason}, stderr=[reason], exit_code=2, blocked=True)
        return HostAnswer(stderr=[f"agenthooks openhands: error ({event_name}): {problem}"], exit_code=1)

    def on_PreToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        cwd = turn.rt.cwd
        verdict = g.gate(turn.rt, tool, arguments, None, lambda args: permission_calls(tool, args, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            return deny(verdict.reason.strip() or "blocked by agent-hooks")
        if verdict.changed:
            # OpenHands would run the original input: running what no plugin approved is worse
            return deny(f"{', '.join(verdict.by)} rewrote this {tool} call, and OpenHands cannot run a rewritten "
                        "call: it was not run")
        return HostAnswer()

    def on_PostToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        output(turn.rt, tool, arguments, turn.event.get("tool_response"), errors=turn.errors)
        return HostAnswer()

    def on_UserPromptSubmit(self, turn: Turn) -> HostAnswer:
        if turn.text("message") is None:
            raise BridgeInputError("UserPromptSubmit event without a message")
        # OpenHands appends additionalContext to the user's message: a rewrite and an injection go there
        blocked, texts = turn.user_prompt("deny", key="message")
        if blocked is not None:
            return blocked
        return HostAnswer(body={"additionalContext": "\n\n".join(texts)}) if texts else HostAnswer()

    def on_Stop(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {})
        reason = turn.stop_gate()
        return deny(reason, blocked=False) if reason else HostAnswer()

    def on_SessionStart(self, turn: Turn) -> HostAnswer:
        turn.fire("on_start", {"project_root": turn.rt.cwd})
        turn.fire("session_start", {"reason": "startup"})
        return HostAnswer()

    def on_SessionEnd(self, turn: Turn) -> HostAnswer:
        turn.fire("on_end", {})
        return HostAnswer()


ADAPTER = OpenHandsAdapter()

__all__ = ["ADAPTER", "EVENTS", "OpenHandsAdapter", "permission_calls"]
