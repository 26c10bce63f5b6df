"""An adapter for hosts that took over Claude Code's command-hook protocol (Qwen Code, Factory
Droid, GitHub Copilot CLI in its PascalCase mode): ``hook_event_name`` on stdin, and answers in
``hookSpecificOutput`` (``permissionDecision`` deny/allow + ``updatedInput``, ``additionalContext``).

A host subclass names its events, its tools and what they amount to (``permission_calls``). Our
own failure on a gating event is the JSON deny *and* exit 2 with the reason on stderr (each of these
hosts blocks on exit 2), except where the host ignores the JSON after a non-zero exit (Copilot).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import HostAnswer
from . import gate as g
from .adapter import Adapter, Turn, fail_reason
from .shape import ToolShape


class ClaudeFormatAdapter(Adapter):
    GATING = frozenset({"PreToolUse"})
    #: the tool a host runs shell commands with (the shape check requires a string ``command``)
    SHELL_TOOLS: frozenset[str] = frozenset()
    TOOL_SHAPE = ToolShape(fields={})
    #: events whose reply may carry ``hookSpecificOutput.additionalContext``
    CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse"})
    #: the exit code of our own failure on a gating event (with the JSON deny); a host that reads
    #: no JSON after a non-zero exit sets 0 so that the reason reaches the model
    FAILURE_EXIT = 2
    #: the host keeps working on a Stop ``decision: "block"`` (proven on the real agent)
    STOP_GATE = False
    #: where a PermissionRequest event carries its tool call (hosts with that event add it to GATING)
    PERMISSION_SHAPE: ToolShape | None = None
    #: an allow on PermissionRequest may carry the changed input (``updatedInput``)
    PERMISSION_REWRITE = True
    #: the host runs a PreToolUse ``updatedInput``; where it ignores it, a rewritten call is denied
    #: (running what no plugin approved is worse than not running it)
    TOOL_REWRITE = True

    @property
    def SHAPES(self) -> Mapping[str, ToolShape]:  # type: ignore[override]
        shapes = {"PreToolUse": self.TOOL_SHAPE}
        if self.PERMISSION_SHAPE is not None:
            shapes["PermissionRequest"] = self.PERMISSION_SHAPE
        return shapes

    def permission_calls(self, tool: str, arguments: dict[str, Any], cwd: str) -> g.Calls:
        if tool in self.SHELL_TOOLS:
            return g.shell(arguments.get("command"), tool)
        return []

    @staticmethod
    def _specific(event: str, **fields: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": event, **{k: v for k, v in fields.items() if v is not None}}}

    def _context(self, turn: Turn, body: dict[str, Any] | None, extra: list[str]) -> HostAnswer:
        texts = [*extra, *turn.messages()]
        if texts and turn.name in self.CONTEXT_EVENTS:
            body = body or {}
            body.setdefault("hookSpecificOutput", {"hookEventName": turn.name})["additionalContext"] = "\n\n".join(texts)
        elif texts:
            return HostAnswer(body=body, stderr=[f"agent-hooks: {t}" for t in texts])
        return HostAnswer(body=body)

    def permission_answer(self, behavior: str, message: str = "",
                          updated: dict[str, Any] | None = None) -> dict[str, Any]:
        """The host's PermissionRequest answer: Claude Code's ``decision`` object."""
        decision: dict[str, Any] = {"behavior": behavior}
        if message:
            decision["message"] = message
        if updated is not None:
            decision["updatedInput"] = updated
        return self._specific("PermissionRequest", decision=decision)

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name == "PermissionRequest" and event_name in self.GATING:
            reason = fail_reason(problem)
            return HostAnswer(body=self.permission_answer("deny", reason), stderr=[reason], blocked=True)
        if event_name in self.GATING or event_name is None:
            reason = fail_reason(problem)
            body = self._specific("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)
            return HostAnswer(body=body, stderr=[reason], exit_code=self.FAILURE_EXIT, blocked=True)
        return HostAnswer(stderr=[f"agenthooks {self.name}: error ({event_name}): {problem}"], exit_code=1)

    # -- tools -----------------------------------------------------------------------------

    def on_PreToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        cwd = turn.rt.cwd
        verdict = g.gate(turn.rt, tool, arguments, turn.text("tool_use_id") or turn.text("tool_call_id"),
                         lambda args: self.permission_calls(tool, args, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            reason = verdict.reason.strip() or "blocked by agent-hooks"
            return HostAnswer(body=self._specific("PreToolUse", permissionDecision="deny",
                                                  permissionDecisionReason=reason), blocked=True)
        body = None
        if verdict.changed and not self.TOOL_REWRITE:
            reason = (f"{', '.join(verdict.by)} rewrote this {tool} call, and {self.TITLE} cannot run a rewritten "
                      "call: it was not run")
            return HostAnswer(body=self._specific("PreToolUse", permissionDecision="deny",
                                                  permissionDecisionReason=reason), blocked=True)
        if verdict.changed:
            if tool in self.SHELL_TOOLS and not isinstance(verdict.arguments.get("command"), str):
                return self.failure("PreToolUse", f"{', '.join(verdict.by)} rewrote the {tool} input without "
                                                  f"a string 'command', which {self.TITLE} requires")
            body = self._specific("PreToolUse", permissionDecision="allow", updatedInput=verdict.arguments)
        return self._context(turn, body, [])

    def on_PostToolUse(self, turn: Turn, is_error: bool = False) -> HostAnswer:
        tool, arguments = turn.tool()
        result = turn.event.get("tool_response", turn.event.get("tool_result"))
        if is_error and result is None:
            result = turn.event.get("error")
        turn.fire("post_tool", {"tool_name": tool, "arguments": arguments, "result": result, "is_error": is_error,
                                "tool_call_id": turn.text("tool_use_id") or turn.text("tool_call_id")})
        return self._context(turn, None, [])

    def on_PostToolUseFailure(self, turn: Turn) -> HostAnswer:
        return self.on_PostToolUse(turn, is_error=True)

    def on_PermissionRequest(self, turn: Turn) -> HostAnswer:
        """deny, or allow from an approver (the host's prompt is skipped); no opinion or ask: the
        host asks as usual. An allow is checked again by the permission hooks on the input it runs
        with: PreToolUse saw the original, not what an approver rewrote."""
        if "PermissionRequest" not in self.GATING:
            return self.host_event(turn)
        tool, arguments = turn.tool()
        decision, reason, changed = turn.permission_decision(tool, arguments)
        if decision == "deny":
            return HostAnswer(body=self.permission_answer("deny", reason or "denied by agent-hooks"), blocked=True)
        if decision != "allow":
            return HostAnswer()
        if changed is not None and not self.PERMISSION_REWRITE:
            turn.errors.append(f"permission_request: an allow with changed arguments cannot be given to {self.TITLE} "
                               f"(it takes no updated input here); {self.TITLE} asks as usual")
            return HostAnswer()
        cwd = turn.rt.cwd
        for hook, payload in self.permission_calls(tool, changed if changed is not None else arguments, cwd):
            if not turn.rt.implementers(hook):
                continue
            data = turn.fire(hook, payload).data or {}
            if data.get("denied"):
                why = str(data.get("reason") or f"denied by a plugin ({hook})")
                return HostAnswer(body=self.permission_answer("deny", why), blocked=True)
        return HostAnswer(body=self.permission_answer("allow", updated=changed))

    # -- prompt, session, stop --------------------------------------------------------------

    def on_UserPromptSubmit(self, turn: Turn) -> HostAnswer:
        if turn.event.get("prompt") == "":  # Qwen sends an empty one when it goes on after tool results
            return self._context(turn, None, [])
        blocked, texts = turn.user_prompt("block")
        return blocked if blocked is not None else self._context(turn, None, texts)

    def on_SessionStart(self, turn: Turn) -> HostAnswer:
        source = turn.text("source")
        if source != "compact":
            turn.fire("on_start", {"project_root": turn.rt.cwd})
        turn.fire("session_start", {"reason": source, "session_file": turn.text("transcript_path")})
        inject = turn.system_prompt()
        answer = self._context(turn, None, [inject] if inject else [])
        answer.stderr.extend(f"agent-hooks: {e}" for e in getattr(turn.rt, "load_errors", ()))
        return answer

    def on_SessionEnd(self, turn: Turn) -> HostAnswer:
        turn.fire("on_end", {"reason": turn.text("reason")})
        return HostAnswer()

    def on_Stop(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {"last_assistant_message": turn.text("last_assistant_message")})
        if not self.STOP_GATE:
            return HostAnswer()
        reason = turn.stop_gate()
        # Claude's protocol: a Stop "block" keeps the agent working, the reason as its next instruction
        return HostAnswer(body={"decision": "block", "reason": reason}) if reason else HostAnswer()
