"""Codex events -> canonical hooks -> answers in the only shapes Codex 0.169 accepts.

Codex validates hook output strictly: unknown fields, ``permissionDecision: "ask"``, a plain
``"allow"``, or ``continue``/``stopReason`` on PreToolUse make the run *failed*, and a failed run
lets the tool proceed. So a deny is always ``permissionDecision: "deny"`` with a non-empty reason,
a rewrite is ``"allow"`` + ``updatedInput``, and our own failure on a gating event is exit 2 with
the reason on stderr (Codex blocks on exit 2 only when stderr says why). Facts: docs/hosts/codex.md.
"""

from __future__ import annotations

from typing import Any

from ..base import HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.codex import EVENTS

SHELL_TOOLS = frozenset({"Bash", "shell", "local_shell", "exec_command"})
PATCH_TOOLS = frozenset({"apply_patch", "Edit", "Write"})

#: what a Codex tool call must carry to be checked (argv lists are older shells' commands)
TOOL_SHAPE = ToolShape(fields={
    **{t: needs("command", argv=True) for t in SHELL_TOOLS},
    **{t: needs("command", "patch", "input") for t in PATCH_TOOLS},
})

_PATCH_START = "*** Begin Patch"

#: events whose reply may carry ``hookSpecificOutput.additionalContext``
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "SubagentStart", "PreToolUse", "PostToolUse"})


def permission_calls(tool: str, arguments: dict[str, Any], cwd: str) -> g.Calls:
    """The permission hooks a Codex tool call amounts to (apply_patch: one write per file)."""
    if tool in SHELL_TOOLS:
        command = arguments.get("command")
        if isinstance(command, list):  # older shells pass argv
            command = " ".join(str(c) for c in command)
        calls = g.shell(command, tool)
        # Codex applies a patch given to ``apply_patch`` in a shell command itself (heredoc or
        # argument), so the files it names are written without an apply_patch tool call
        if isinstance(command, str) and _PATCH_START in command:
            calls += g.writes(g.patch_files(command), tool, cwd)
        return calls
    if tool in PATCH_TOOLS:
        patch = arguments.get("command") or arguments.get("patch") or arguments.get("input")
        return g.writes(g.patch_files(patch), tool, cwd) if isinstance(patch, str) else []
    return []


class CodexAdapter(Adapter):
    name = "codex"
    TITLE = "Codex"
    GATING = frozenset({"PreToolUse", "PermissionRequest"})
    SHAPES = {"PreToolUse": TOOL_SHAPE, "PermissionRequest": TOOL_SHAPE}
    EVENTS = EVENTS

    # -- answers ---------------------------------------------------------------------------

    @staticmethod
    def _specific(event: str, **fields: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": event, **{k: v for k, v in fields.items() if v is not None}}}

    @staticmethod
    def _context(turn: Turn, body: dict[str, Any] | None, extra: list[str]) -> HostAnswer:
        texts = [*extra, *turn.messages()]
        if texts and turn.name in CONTEXT_EVENTS:
            body = body or {"hookSpecificOutput": {"hookEventName": turn.name}}
            body.setdefault("hookSpecificOutput", {"hookEventName": turn.name})["additionalContext"] = "\n\n".join(texts)
        elif texts:
            return HostAnswer(body=body, stderr=[f"agent-hooks: {t}" for t in texts])
        return HostAnswer(body=body)

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name == "PermissionRequest":
            body = self._specific("PermissionRequest", decision={"behavior": "deny", "message": fail_reason(problem)})
            return HostAnswer(body=body, stderr=[f"agenthooks codex: {problem}"], blocked=True)
        if event_name in self.GATING or event_name is None:
            # exit 2 + reason on stderr: the one block Codex honours without parsing our JSON.
            # Unknown event (unreadable stdin): also 2, a wrong block beats a silent allow; Stop
            # and SubagentStop are named in every event, so they never land here.
            return HostAnswer(stderr=[fail_reason(problem)], exit_code=2, blocked=True)
        return HostAnswer(stderr=[f"agenthooks codex: error ({event_name}): {problem}"], exit_code=1)

    # -- tools -----------------------------------------------------------------------------

    def on_PreToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        cwd = turn.rt.cwd
        verdict = g.gate(turn.rt, tool, arguments, turn.text("tool_use_id"),
                         lambda args: permission_calls(tool, args, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            reason = verdict.reason.strip() or "blocked by agent-hooks"
            return HostAnswer(body=self._specific("PreToolUse", permissionDecision="deny",
                                                  permissionDecisionReason=reason), blocked=True)
        body = None
        if verdict.changed:
            new = verdict.arguments
            if (tool in SHELL_TOOLS or tool in PATCH_TOOLS) and not isinstance(new.get("command"), str):
                return self.failure("PreToolUse", f"{', '.join(verdict.by)} rewrote the {tool} input without "
                                                  "a string 'command', which Codex requires")
            body = self._specific("PreToolUse", permissionDecision="allow", updatedInput=new)
        return self._context(turn, body, [])

    def on_PermissionRequest(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        cwd = turn.rt.cwd
        calls = permission_calls(tool, arguments, cwd)
        for hook, payload in calls:
            if not turn.rt.implementers(hook):
                continue
            out = turn.fire(hook, payload)
            data = out.data or {}
            if data.get("denied"):
                who = g.stopper(out) or "a plugin"
                reason = str(data.get("reason") or f"denied by {who} ({hook})")
                return HostAnswer(body=self._specific("PermissionRequest",
                                                      decision={"behavior": "deny", "message": reason}), blocked=True)
        decision, reason, changed = turn.permission_decision(tool, arguments)
        if decision == "deny":
            return HostAnswer(body=self._specific("PermissionRequest", decision={
                "behavior": "deny", "message": reason or "denied by agent-hooks"}), blocked=True)
        if decision == "allow":
            if changed is not None:
                # Codex rejects updatedInput here: approving the original would run what nobody approved
                turn.errors.append("permission_request: an allow with changed arguments cannot be given to "
                                   "Codex (it takes no updated input here); Codex asks as usual")
                return HostAnswer()
            return HostAnswer(body=self._specific("PermissionRequest", decision={"behavior": "allow"}))
        return HostAnswer()  # Codex asks the user as usual

    def on_PostToolUse(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        change = output(turn.rt, tool, arguments, turn.event.get("tool_response"),
                        call_id=turn.text("tool_use_id"), errors=turn.errors)
        if change is None:
            return self._context(turn, None, [])
        # Codex has no "replace the output" field for built-in tools: a block replaces the result
        # the model sees with our reason, which carries the changed text
        return self._context(turn, {"decision": "block", "reason": change.feedback(tool)}, [])

    # -- prompt, session, compaction, sub-agents --------------------------------------------

    def on_UserPromptSubmit(self, turn: Turn) -> HostAnswer:
        blocked, context = turn.user_prompt("block")
        return blocked or self._context(turn, None, context)

    def on_SessionStart(self, turn: Turn) -> HostAnswer:
        source = turn.text("source")
        if source != "compact":
            turn.fire("on_start", {"project_root": turn.rt.cwd})
        turn.fire("session_start", {"reason": source, "session_file": turn.text("transcript_path")})
        inject = turn.system_prompt()
        notes = [f"agent-hooks: {e}" for e in getattr(turn.rt, "load_errors", ())]
        answer = self._context(turn, None, [inject] if inject else [])
        answer.stderr.extend(notes)
        return answer

    def on_SessionEnd(self, turn: Turn) -> HostAnswer:
        turn.fire("on_end", {"reason": turn.text("reason")})
        return HostAnswer()

    def on_PreCompact(self, turn: Turn) -> HostAnswer:
        out = turn.fire("pre_compact", {"trigger": turn.text("trigger")})
        if (out.data or {}).get("cancel"):
            who = g.stopper(out) or "a plugin"
            return HostAnswer(body={"continue": False, "stopReason": f"agent-hooks: {who} cancelled the compaction"},
                              blocked=True)
        return HostAnswer()

    def on_PostCompact(self, turn: Turn) -> HostAnswer:
        turn.fire("post_compact", {"trigger": turn.text("trigger")})
        return HostAnswer()

    def on_SubagentStart(self, turn: Turn) -> HostAnswer:
        out = turn.fire("pre_spawn_agent", {"agent_id": turn.text("agent_id"), "agent_type": turn.text("agent_type")})
        data = out.data or {}
        who = g.stopper(out) or "a plugin"
        extra = []
        if data.get("block"):  # Codex cannot stop a sub-agent: tell it, as Claude Code's bridge does
            extra.append(f"agent-hooks: {who} blocked this sub-agent: {data.get('message') or 'no reason given'}. "
                         "Do not do the task; reply with this reason.")
        elif data.get("response"):
            extra.append(f"agent-hooks: {who} answered this sub-agent's task; reply with exactly this:\n"
                         f"{data['response']}")
        return self._context(turn, None, extra)

    def on_SubagentStop(self, turn: Turn) -> HostAnswer:
        turn.fire("post_spawn_agent", {"response": turn.text("last_assistant_message"), "agent_id": turn.text("agent_id"),
                                       "agent_type": turn.text("agent_type")})
        return self._keep_going(turn.stop_gate(subagent=True))

    def on_Stop(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {"last_assistant_message": turn.text("last_assistant_message")})
        return self._keep_going(turn.stop_gate())

    @staticmethod
    def _keep_going(reason: str | None) -> HostAnswer:
        """Codex continues with ``reason`` as a new prompt on ``decision: block``."""
        return HostAnswer(body={"decision": "block", "reason": reason}) if reason else HostAnswer()


ADAPTER = CodexAdapter()

__all__ = ["ADAPTER", "EVENTS", "CodexAdapter", "permission_calls"]
