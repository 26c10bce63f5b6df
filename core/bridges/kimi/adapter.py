"""Kimi CLI events -> canonical hooks -> the two answers Kimi 1.51 obeys.

Kimi blocks on exit 2 (stderr is the reason) or on exit 0 with
``hookSpecificOutput.permissionDecision: "deny"`` (``permissionDecisionReason`` is the reason), on
PreToolUse (the tool's error the model sees), UserPromptSubmit (the prompt is dropped) and Stop
(the reason becomes one more turn, at most once per prompt). It reads nothing else: no rewritten
input, no replaced output, no context. Everything else, a timeout, a crash or a hook command that
cannot start included, **fails open**; so our own failure on a gating event is both answers at
once (the JSON deny and exit 2 with the reason). Facts: docs/hosts/kimi.md.
"""

from __future__ import annotations

from typing import Any

from ..base import BridgeInputError, HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.kimi import EVENTS

#: what a Kimi tool call must carry to be checked
TOOL_SHAPE = ToolShape(fields={
    "Shell": needs("command"),
    "WriteFile": needs("path"), "StrReplaceFile": needs("path"), "ReadFile": needs("path"),
    "ReadMediaFile": needs("path"), "Grep": needs("path", optional=True), "Glob": needs("directory", optional=True),
    "FetchURL": needs("url"),
})


def permission_calls(tool: str, args: dict[str, Any], cwd: str) -> g.Calls:
    if tool == "Shell":
        return g.shell(args.get("command"), tool)
    if tool == "WriteFile":
        # append mode: the content is not the file's new content
        content = args.get("content") if args.get("mode", "overwrite") == "overwrite" else None
        return g.writes([(args.get("path"), content if isinstance(content, str) else None)], tool, cwd)
    if tool == "StrReplaceFile":
        return g.writes([(args.get("path"), None)], tool, cwd)
    if tool in ("ReadFile", "ReadMediaFile"):
        return g.reads([args.get("path")], tool, cwd)
    if tool == "Grep":
        return g.reads([args.get("path") or cwd], tool, cwd)
    if tool == "Glob":
        return g.reads([args.get("directory") or cwd], tool, cwd)
    if tool == "FetchURL":
        return g.fetches(args.get("url"), tool)
    if tool == "SearchWeb":
        return [("pre_fetch_url", {"tool_name": tool, "safety": "no_url",
                                   "summary": f"web search: {args.get('query')}"})]
    return []


def deny(reason: str) -> HostAnswer:
    """Kimi's JSON deny (on exit 0): the reason reaches the model or the user."""
    return HostAnswer(body={"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                   "permissionDecisionReason": reason}}, blocked=True)


class KimiAdapter(Adapter):
    name = "kimi"
    TITLE = "Kimi CLI"
    GATING = frozenset({"PreToolUse"})
    SHAPES = {"PreToolUse": TOOL_SHAPE}
    EVENTS = EVENTS

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in self.GATING or event_name is None:
            # exit 2 is read before stdout: the reason must be on stderr
            reason = fail_reason(problem)
            return HostAnswer(stderr=[reason], exit_code=2, blocked=True)
        return HostAnswer(stderr=[f"agenthooks kimi: error ({event_name}): {problem}"], exit_code=1)

    def on_PreToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        cwd = turn.rt.cwd
        verdict = g.gate(turn.rt, tool, arguments, turn.text("tool_call_id"),
                         lambda args: permission_calls(tool, args, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            return deny(verdict.reason.strip() or "blocked by agent-hooks")
        if verdict.changed:
            # Kimi would run the original input: running what no plugin approved is worse than not running
            return deny(f"{', '.join(verdict.by)} rewrote this {tool} call, and Kimi CLI cannot run a rewritten "
                        "call: it was not run")
        return HostAnswer()

    def on_PostToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        output(turn.rt, tool, arguments, turn.event.get("tool_output"), call_id=turn.text("tool_call_id"),
               errors=turn.errors)
        return HostAnswer()

    def on_PostToolUseFailure(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        turn.fire("post_tool", {"tool_name": tool, "arguments": arguments, "result": turn.event.get("error"),
                                "is_error": True, "tool_call_id": turn.text("tool_call_id")})
        return HostAnswer()

    def on_UserPromptSubmit(self, turn: Turn) -> HostAnswer:
        prompt = turn.text("prompt")
        if prompt is None:
            raise BridgeInputError("UserPromptSubmit event without a prompt")
        out = turn.fire("pre_message", {"prompt": prompt})
        if out.decision == "blocked":
            who = g.stopper(out) or "a plugin"
            return deny(out.reason or f"the prompt was blocked by {who}")
        new = (out.data or {}).get("prompt")
        if isinstance(new, str) and new != prompt:
            turn.errors.append(f"pre_message: {', '.join(out.answered) or 'a plugin'} rewrote the prompt, which "
                               "Kimi CLI cannot take; the prompt was sent unchanged")
        return HostAnswer()

    def on_Stop(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {})
        reason = turn.stop_gate()
        if not reason:
            return HostAnswer()
        # a blocked Stop with a reason is one more turn, the reason as the user's message
        answer = deny(reason)
        answer.blocked = False
        return answer

    def on_SessionStart(self, turn: Turn) -> HostAnswer:
        source = turn.text("source")
        turn.fire("on_start", {"project_root": turn.rt.cwd})
        turn.fire("session_start", {"reason": source})
        return HostAnswer()

    def on_SessionEnd(self, turn: Turn) -> HostAnswer:
        turn.fire("on_end", {"reason": turn.text("reason")})
        return HostAnswer()

    def on_PreCompact(self, turn: Turn) -> HostAnswer:
        turn.fire("pre_compact", {"trigger": turn.text("trigger")})
        return HostAnswer()

    def on_PostCompact(self, turn: Turn) -> HostAnswer:
        turn.fire("post_compact", {"trigger": turn.text("trigger")})
        return HostAnswer()

    def on_SubagentStart(self, turn: Turn) -> HostAnswer:
        turn.fire("pre_spawn_agent", {"agent_type": turn.text("agent_name"), "input": turn.text("prompt")})
        return HostAnswer()

    def on_SubagentStop(self, turn: Turn) -> HostAnswer:
        turn.fire("post_spawn_agent", {"agent_type": turn.text("agent_name"), "response": turn.text("response")})
        return HostAnswer()


ADAPTER = KimiAdapter()

__all__ = ["ADAPTER", "EVENTS", "KimiAdapter", "permission_calls"]
