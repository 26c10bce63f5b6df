"""Cursor events -> canonical hooks -> each event's own answer shape.

Cursor's answers differ per event (``permission`` on the before* events, ``decision`` or
``permission`` on preToolUse depending on the docs revision: we send both), and exit 2 blocks.
Every failure of ours on a gating event is the event's deny *and* exit 2; the installer also sets
``failClosed: true`` there, so a crash or timeout of our process blocks too.
"""

from __future__ import annotations

from typing import Any

from ..base import BridgeInputError, HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.cursor import EVENTS

#: the events whose answer decides whether something runs
GATING = frozenset({"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "subagentStart"})

_PATH_KEYS = ("file_path", "path", "target_file", "filePath")

#: what each gating event must carry to be checked (tool names compared in lower case)
SHAPES = {
    "preToolUse": ToolShape(fold_case=True, fields={
        **{t: needs("command") for t in ("shell", "bash", "terminal")},
        **{t: needs(*_PATH_KEYS) for t in ("write", "edit", "delete", "read")},
        **{t: needs(*_PATH_KEYS, optional=True) for t in ("grep", "glob")},
        "webfetch": needs("url"), "fetch": needs("url"),
    }),
    "beforeShellExecution": ToolShape(input=(), name=None, tool="Shell", fields={"Shell": needs("command")}),
    "beforeReadFile": ToolShape(input=(), name=None, tool="Read", fields={"Read": needs("file_path")}),
    "beforeMCPExecution": ToolShape(json_text=True),
}


def _path(args: dict[str, Any]) -> Any:
    return next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)


def permission_calls(tool: str, args: dict[str, Any], cwd: str) -> g.Calls:
    kind = tool.lower()
    if kind in ("shell", "bash", "terminal"):
        return g.shell(args.get("command"), tool)
    if kind in ("write", "edit", "delete"):
        content = args.get("contents") if isinstance(args.get("contents"), str) else args.get("content")
        return g.writes([(_path(args), content if isinstance(content, str) else None)], tool, cwd)
    if kind in ("read", "grep", "glob"):
        return g.reads([_path(args)], tool, cwd)
    if kind in ("webfetch", "fetch"):
        return g.fetches(args.get("url"), tool)
    return []


def _deny(event: str, reason: str) -> dict[str, Any]:
    if event == "preToolUse":
        return {"decision": "deny", "permission": "deny", "reason": reason}
    if event == "subagentStart":
        return {"decision": "deny", "reason": reason}
    if event == "beforeReadFile":
        return {"permission": "deny", "user_message": reason}
    return {"permission": "deny", "user_message": reason, "agent_message": reason}


class CursorAdapter(Adapter):
    name = "cursor"
    TITLE = "Cursor"
    GATING = GATING
    SHAPES = SHAPES
    EVENTS = EVENTS

    def runtime_options(self, event: Any) -> dict[str, Any]:
        options = super().runtime_options(event)
        conv = event.get("conversation_id") or event.get("session_id")
        if isinstance(conv, str) and conv:
            options["session_id"] = conv
        return options

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in GATING or event_name is None:
            reason = fail_reason(problem)
            body = _deny(event_name or "beforeShellExecution", reason)
            return HostAnswer(body=body, stderr=[reason], exit_code=2, blocked=True)
        return HostAnswer(stderr=[f"agenthooks cursor: error ({event_name}): {problem}"], exit_code=1)

    def _gate(self, turn: Turn, tool: str, args: dict[str, Any], calls: Any) -> HostAnswer | g.Gate:
        verdict = g.gate(turn.rt, tool, args, turn.text("tool_use_id"), calls)
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            return HostAnswer(body=_deny(turn.name, verdict.reason.strip() or "blocked by agent-hooks"), blocked=True)
        return verdict

    # -- gating ------------------------------------------------------------------------------

    def on_preToolUse(self, turn: Turn) -> HostAnswer:
        tool, args = turn.tool()
        cwd = turn.rt.cwd
        verdict = self._gate(turn, tool, args, lambda a: permission_calls(tool, a, cwd))
        if isinstance(verdict, HostAnswer):
            return verdict
        if verdict.changed:
            return HostAnswer(body={"decision": "allow", "permission": "allow", "updated_input": verdict.arguments})
        return HostAnswer(body={"decision": "allow", "permission": "allow"})

    def on_beforeShellExecution(self, turn: Turn) -> HostAnswer:
        command = str(turn.event["command"])  # checked by SHAPES
        verdict = self._gate(turn, "Shell", {"command": command}, lambda a: g.shell(a.get("command"), "Shell"))
        if isinstance(verdict, HostAnswer):
            return verdict
        if verdict.changed:  # this event cannot carry a rewrite: refuse rather than run the old command
            reason = f"{', '.join(verdict.by)} rewrote this command, which beforeShellExecution cannot express"
            return HostAnswer(body=_deny(turn.name, reason), blocked=True)
        return HostAnswer(body={"permission": "allow"})

    def on_beforeMCPExecution(self, turn: Turn) -> HostAnswer:
        tool, args = turn.tool()  # tool_input: JSON text or an object, checked by SHAPES
        verdict = self._gate(turn, tool, args, lambda a: [])
        if isinstance(verdict, HostAnswer):
            return verdict
        if verdict.changed:
            reason = f"{', '.join(verdict.by)} rewrote this MCP call, which beforeMCPExecution cannot express"
            return HostAnswer(body=_deny(turn.name, reason), blocked=True)
        return HostAnswer(body={"permission": "allow"})

    def on_beforeReadFile(self, turn: Turn) -> HostAnswer:
        path = str(turn.event["file_path"])  # checked by SHAPES
        cwd = turn.rt.cwd
        verdict = self._gate(turn, "Read", {"file_path": path}, lambda a: g.reads([a.get("file_path")], "Read", cwd))
        if isinstance(verdict, HostAnswer):
            return verdict
        return HostAnswer(body={"permission": "allow"})

    def on_subagentStart(self, turn: Turn) -> HostAnswer:
        out = turn.fire("pre_spawn_agent", {"agent_type": turn.text("subagent_type"), "task": turn.text("prompt")})
        data = out.data or {}
        if data.get("block"):
            who = g.stopper(out) or "a plugin"
            return HostAnswer(body=_deny(turn.name, str(data.get("message") or f"blocked by {who}")), blocked=True)
        return HostAnswer(body={"decision": "allow"})

    # -- observation and output --------------------------------------------------------------

    def _post(self, turn: Turn, failed: bool) -> HostAnswer:
        tool, args = turn.tool()
        result: Any = turn.event.get("error_message") if failed else turn.event.get("tool_output")
        change = output(turn.rt, tool, args, result, is_error=failed, call_id=turn.text("tool_use_id"),
                        errors=turn.errors)
        if change is not None and not failed and tool.lower().startswith("mcp"):
            # only MCP output can be replaced in Cursor (updated_mcp_tool_output)
            return HostAnswer(body={"updated_mcp_tool_output": change.feedback(tool) if change.blocked else change.text})
        return HostAnswer()

    def on_postToolUse(self, turn: Turn) -> HostAnswer:
        return self._post(turn, failed=False)

    def on_postToolUseFailure(self, turn: Turn) -> HostAnswer:
        return self._post(turn, failed=True)

    def on_afterFileEdit(self, turn: Turn) -> HostAnswer:
        turn.fire("post_tool", {"tool_name": "Write", "arguments": {"file_path": turn.text("file_path"),
                                                                      "edits": turn.event.get("edits")},
                                "result": None, "is_error": False})
        return HostAnswer()

    def on_beforeSubmitPrompt(self, turn: Turn) -> HostAnswer:
        prompt = turn.text("prompt")
        if prompt is None:
            raise BridgeInputError("beforeSubmitPrompt event without a prompt")
        out = turn.fire("pre_message", {"prompt": prompt})
        if out.decision == "blocked":
            who = g.stopper(out) or "a plugin"
            return HostAnswer(body={"continue": False, "user_message": out.reason or f"blocked by {who}"},
                              blocked=True)
        return HostAnswer(body={"continue": True})

    def on_sessionStart(self, turn: Turn) -> HostAnswer:
        turn.fire("on_start", {"project_root": turn.rt.cwd})
        turn.fire("session_start", {"reason": "startup", "session_file": turn.text("transcript_path")})
        texts = [t for t in (turn.system_prompt(), *turn.messages()) if t]
        return HostAnswer(body={"additional_context": "\n\n".join(texts)} if texts else None)

    def on_sessionEnd(self, turn: Turn) -> HostAnswer:
        turn.fire("on_end", {"reason": turn.text("reason")})
        return HostAnswer()

    def on_preCompact(self, turn: Turn) -> HostAnswer:
        turn.fire("pre_compact", {"trigger": turn.text("trigger")})  # observe only in Cursor
        return HostAnswer()

    def on_stop(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {})
        return self._follow_up(turn, subagent=False)

    def on_subagentStop(self, turn: Turn) -> HostAnswer:
        turn.fire("post_spawn_agent", {"agent_type": turn.text("subagent_type"), "response": turn.text("result")})
        return self._follow_up(turn, subagent=True)

    @staticmethod
    def _follow_up(turn: Turn, subagent: bool) -> HostAnswer:
        """Cursor submits ``followup_message`` as the next user message (its ``loop_limit`` caps it too)."""
        if turn.text("status") == "aborted":  # the user stopped it: not ours to restart
            return HostAnswer()
        reason = turn.stop_gate(subagent=subagent, message_key="result")
        return HostAnswer(body={"followup_message": reason}) if reason else HostAnswer()


ADAPTER = CursorAdapter()
