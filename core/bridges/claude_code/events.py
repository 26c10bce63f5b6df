"""Claude Code's events mapped to canonical hooks: one ``on_<Event>`` method per mapped event.

The mapping and its reasons are in ``docs/hosts/claude-code.md``. No I/O here: :class:`Bridge`
fires hooks on the runtime it is given and fills a :class:`~.reply.Reply`.
"""

from __future__ import annotations

import copy
import json
import os
from typing import TYPE_CHECKING, Any

from ..base import BridgeInputError, HostAnswer
from ..hostkit.shape import tool_call
from ..hosts.claude_code import MAPPED_EVENTS
from .reply import Reply, cap
from .tools import TOOL_SHAPE, permission_call, replace_text, response_text
from .ui import ClaudeCodeUI

if TYPE_CHECKING:
    from ...runtime import Outcome, Runtime
    from .adapter import BridgeOptions

HOST = "claude-code"

#: the events that decide whether a tool runs: our failure there must not become an allow
FAIL_CLOSED_EVENTS = frozenset({"PreToolUse", "PermissionRequest"})

#: events whose reply may carry ``hookSpecificOutput.additionalContext`` (docs/hosts/protocols.md A4)
CONTEXT_EVENTS = frozenset({
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart",
    "Stop", "SubagentStart", "SubagentStop", "Notification", "Setup",
})



class Bridge:
    """One Claude Code event, fired through ``rt``, rendered into a :class:`Reply`."""

    def __init__(self, rt: Runtime, event: dict[str, Any], ui: ClaudeCodeUI, options: BridgeOptions) -> None:
        self.rt = rt
        self.event = event
        self.name = str(event.get("hook_event_name"))
        self.ui = ui
        self.options = options
        self.reply = Reply(self.name)
        self._outbox_seen = 0

    def answer(self) -> HostAnswer:
        """Render the event (its ``on_<Event>`` method, else ``host_event``) and what plugins said.
        The loop around it (load failures, no plugins) is the shared one, :meth:`Adapter.handle`."""
        handler = getattr(self, f"on_{self.name}", None) if self.name in MAPPED_EVENTS else None
        if handler is None:
            self.host_event()
        else:
            handler()
        self._collect_messages()
        return self.reply.answer()

    # helpers ---------------------------------------------------------------------------

    def fire(self, hook: str, payload: dict[str, Any]) -> Outcome:
        out = self.rt.fire(hook, payload)
        for err in out.errors:
            self.reply.stderr.append(f"agent-hooks: {err}")
        return out

    def _tool(self) -> tuple[str, dict[str, Any]]:
        tool = self.event.get("tool_name")
        if not isinstance(tool, str) or not tool:
            raise BridgeInputError(f"{self.name} event without a tool_name")
        args = self.event.get("tool_input")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise BridgeInputError(f"{self.name} event: tool_input must be an object, not {type(args).__name__}")
        return tool, args

    def _str(self, key: str) -> str | None:
        value = self.event.get(key)
        return value if isinstance(value, str) else None

    def _outbox(self) -> list[str]:
        """Messages plugins sent with ``ctx.send_message`` since the last call."""
        box = self.rt.outbox[self._outbox_seen:]
        self._outbox_seen = len(self.rt.outbox)
        return [str(m.get("text", "")) for m in box if m.get("text")]

    def _collect_messages(self) -> None:
        texts = self._outbox()
        if texts:
            if self.name in CONTEXT_EVENTS:
                self.reply.context.extend(texts)
            else:
                self.reply.stderr.extend(f"agent-hooks: message not delivered ({self.name} takes no "
                                         f"additionalContext): {t}" for t in texts)
        self.reply.messages.extend(f"agent-hooks: {m}" if k == "info" else f"agent-hooks {k}: {m}"
                                   for k, m in self.ui.notifications)

    def _inject_system_prompt(self) -> None:
        if self.rt.implementers("pre_system_prompt"):
            out = self.fire("pre_system_prompt", {})
            inject = (out.data or {}).get("inject")
            if inject:
                self.reply.context.append(inject)

    # events ----------------------------------------------------------------------------

    def on_PreToolUse(self) -> None:
        tool, tool_input = tool_call(self.event, TOOL_SHAPE, "PreToolUse")
        original = copy.deepcopy(tool_input)
        reply = self.reply
        mark = self.ui.mark()
        out = self.fire("pre_tool", {"tool_name": tool, "arguments": tool_input,
                                      "tool_call_id": self._str("tool_use_id")})
        data = out.data or {}
        arguments = data.get("arguments", original)
        decision: str | None = None
        reason: str | None = None
        if out.decision == "blocked":
            stopper = out.stopped_by
            reason = out.reason or f"blocked by {stopper or 'a plugin'}"
            if not self.ui.asked(stopper, mark):
                reply.specific(permissionDecision="deny", permissionDecisionReason=cap(reason))
                return
            decision = "ask"
        call = permission_call(tool, arguments, self.rt.cwd)
        if call is not None and self.rt.implementers(call[0]):
            hook, payload = call
            mark = self.ui.mark()
            perm = self.fire(hook, payload)
            pdata = perm.data or {}
            if pdata.get("denied"):
                stopper = perm.stopped_by
                preason = pdata.get("reason") or f"denied by {stopper or 'a plugin'} ({hook})"
                if not self.ui.asked(stopper, mark):
                    reply.specific(permissionDecision="deny", permissionDecisionReason=cap(preason))
                    return
                if decision is None:
                    decision, reason = "ask", preason
        changed = arguments != original
        if changed and decision is None:
            decision = "allow" if (self.options.on_rewrite == "allow"
                                   or self.event.get("permission_mode") == "bypassPermissions"
                                   or self._only_confined(out.answered)) else "ask"
            changers = ", ".join(p for p in out.answered) or "a plugin"
            reason = f"agent-hooks: {changers} changed the {tool} input"
        if decision is not None:
            reply.specific(permissionDecision=decision, permissionDecisionReason=cap(reason or ""),
                           updatedInput=arguments if changed else None)

    def _only_confined(self, changers: list[str]) -> bool:
        """Every plugin that changed the input only confined it (declares ``CONFINES_ONLY = True``:
        agent-hooks-sandbox wraps a command in bubblewrap): the call is allowed as rewritten, as
        Claude Code allows a command its own sandbox runs, instead of asking about every one."""
        return bool(changers) and all(getattr(self.rt.pm.get_plugin(p), "CONFINES_ONLY", False) is True
                                      for p in changers)

    def _post_tool(self, failed: bool) -> None:
        tool, tool_input = self._tool()
        call_id = self._str("tool_use_id")
        if failed:
            error = self.event.get("error")
            response: Any = error if isinstance(error, str) else (json.dumps(error) if error is not None else "")
            text = response
        else:
            response = self.event.get("tool_response")
            text = response_text(tool, response)
        payload: dict[str, Any] = {"tool_name": tool, "arguments": tool_input, "output": text,
                                   "details": response, "is_error": failed, "tool_call_id": call_id}
        if isinstance(response, list):
            payload["content"] = response
        out = self.fire("pre_tool_output", payload)
        self.fire("post_tool", {"tool_name": tool, "arguments": tool_input, "result": response,
                                "is_error": failed, "tool_call_id": call_id})
        data = out.data or {}
        reply = self.reply
        output_key = "updatedMCPToolOutput" if tool.startswith("mcp__") else "updatedToolOutput"
        changers = ", ".join(out.answered) or "a plugin"
        if data.get("block"):
            message = out.reason or f"{changers} withheld this tool's output"
            reply.block(message)
            replacement = None if failed else replace_text(tool, response, message)
            if replacement is not None:
                reply.specific(**{output_key: replacement})
            return
        replacement = None
        new_text: str | None = None
        if "details" in data and data["details"] != response:
            replacement = data["details"]
            new_text = response_text(tool, replacement)
        elif isinstance(response, list) and "content" in data and data["content"] != response:
            replacement = data["content"]  # the blocks themselves: keeps images and the block layout
            new_text = response_text(tool, replacement)
        elif "output" in data and data["output"] != text:
            new_text = data["output"]
            replacement = replace_text(tool, response, new_text) if new_text is not None else None
        elif "content" in data and data["content"] is not None:
            new_text = response_text(tool, data["content"])
        if replacement is not None and not failed:
            reply.specific(**{output_key: replacement})
        elif new_text is not None:
            what = "error" if failed else "output"
            reply.context.append(f"agent-hooks: {changers} changed this tool's {what}; use this version "
                                 f"instead of the original:\n{new_text}")

    def on_PostToolUse(self) -> None:
        self._post_tool(failed=False)

    def on_PostToolUseFailure(self) -> None:
        self._post_tool(failed=True)

    def on_PostToolBatch(self) -> None:
        calls = self.event.get("tool_calls")
        tool_calls = []
        for c in calls if isinstance(calls, list) else []:
            if isinstance(c, dict):
                tool_calls.append({"name": c.get("tool_name"), "arguments": c.get("tool_input") or {},
                                   "id": c.get("tool_use_id"), "result": c.get("tool_response")})
        out = self.fire("post_tool_batch", {"tool_calls": tool_calls})
        data = out.data or {}
        if data.get("fallback") == "call_user" and data.get("fallback_source") == "post_tool_batch":
            who = _who(out)
            self.reply.block(f"agent-hooks: {who} returned control to the user (fallback call_user)")

    def on_UserPromptSubmit(self) -> None:
        prompt = self.event.get("prompt")
        if not isinstance(prompt, str):
            raise BridgeInputError("UserPromptSubmit event without a prompt")
        out = self.fire("pre_message", {"prompt": prompt, "source": self._str("source")})
        data = out.data or {}
        if out.decision == "blocked":
            who = _who(out)
            verb = "handled" if data.get("handled") else "blocked"
            self.reply.block(out.reason or f"the prompt was {verb} by {who}")
            return
        new_prompt = data.get("prompt")
        if isinstance(new_prompt, str) and new_prompt != prompt:
            who = ", ".join(out.answered) or "a plugin"
            self.reply.context.append(f"agent-hooks: {who} rewrote the user's prompt; treat this as the "
                                      f"prompt:\n{new_prompt}")
        self._inject_system_prompt()

    def on_SessionStart(self) -> None:
        source = self._str("source")
        if source != "compact":
            self.fire("on_start", {"project_root": os.environ.get("CLAUDE_PROJECT_DIR") or self.rt.cwd})
        self.fire("session_start", {"reason": source, "session_file": self._str("transcript_path")})
        self._inject_system_prompt()
        self.load_errors()

    def load_errors(self) -> None:
        """Plugins that failed to load: the user hears it once per session, not silently."""
        for err in getattr(self.rt, "load_errors", ()):
            self.reply.messages.append(f"agent-hooks: {err}")

    def on_SessionEnd(self) -> None:
        self.fire("on_end", {"reason": self._str("reason")})

    def on_PreCompact(self) -> None:
        out = self.fire("pre_compact", {"trigger": self._str("trigger"),
                                        "custom_instructions": self._str("custom_instructions")})
        if (out.data or {}).get("cancel"):
            who = _who(out)
            self.reply.block(f"agent-hooks: {who} cancelled the compaction")

    def on_PostCompact(self) -> None:
        self.fire("post_compact", {"trigger": self._str("trigger"), "compact_summary": self._str("compact_summary")})

    def on_Stop(self) -> None:
        self.fire("agent_end", {"last_assistant_message": self._str("last_assistant_message")})
        self._stop_gate(subagent=False)

    def _stop_gate(self, subagent: bool) -> None:
        """``decision: block`` with the reason keeps Claude Code working, the reason its instruction."""
        if not self.rt.implementers("stop_gate"):
            return
        active = self.event.get("stop_hook_active")
        payload = {"last_assistant_message": self._str("last_assistant_message"), "subagent": subagent,
                   "agent_type": self._str("agent_type"),
                   "stop_hook_active": active if isinstance(active, bool) else None}
        out = self.fire("stop_gate", {k: v for k, v in payload.items() if v is not None})
        data = out.data or {}
        if data.get("continue"):
            self.reply.block(str(data.get("reason") or f"{_who(out)} says the work is not done"))
        elif data.get("limit_reached"):
            self.reply.messages.append(f"agent-hooks: stop gate limit reached ({self.rt.stop_gate_limit} in a "
                                       f"row): the agent stops although a plugin asked to continue: "
                                       f"{data.get('reason') or 'no reason given'}")

    def on_PermissionRequest(self) -> None:
        """allow (approvers only) / deny with Claude Code's ``decision``; no opinion or ask: its prompt."""
        tool, tool_input = self._tool()
        original = copy.deepcopy(tool_input)
        payload: dict[str, Any] = {"tool_name": tool, "arguments": tool_input}
        suggestions = self.event.get("permission_suggestions")
        if isinstance(suggestions, list):
            payload["permission_suggestions"] = suggestions
        out = self.fire("permission_request", payload)
        data = out.data or {}
        decision = data.get("decision")
        if decision == "deny":
            reason = out.reason or f"denied by {_who(out)}"
            self.reply.specific(decision={"behavior": "deny", "message": cap(reason)})
        elif decision == "allow":
            arguments = data.get("arguments")
            behaviour: dict[str, Any] = {"behavior": "allow"}
            if isinstance(arguments, dict) and arguments != original:
                behaviour["updatedInput"] = arguments
            self.reply.specific(decision=behaviour)

    def on_SubagentStart(self) -> None:
        out = self.fire("pre_spawn_agent", {"agent_id": self._str("agent_id"), "agent_type": self._str("agent_type")})
        data = out.data or {}
        who = _who(out)
        if data.get("block"):
            why = data.get("message") or "no reason given"
            # Claude Code cannot stop a sub-agent here: tell the sub-agent, and the user
            self.reply.context.append(f"agent-hooks: {who} blocked this sub-agent: {why}. Do not do the task; "
                                      "reply with this reason.")
            self.reply.messages.append(f"agent-hooks: {who} blocked sub-agent {self._str('agent_type')}: {why}")
        elif data.get("response"):
            self.reply.context.append(f"agent-hooks: {who} answered this sub-agent's task; reply with exactly "
                                      f"this:\n{data['response']}")

    def on_SubagentStop(self) -> None:
        self.fire("post_spawn_agent", {"response": self._str("last_assistant_message"),
                                       "agent_id": self._str("agent_id"), "agent_type": self._str("agent_type"),
                                       "agent_transcript_path": self._str("agent_transcript_path")})
        self._stop_gate(subagent=True)

    def host_event(self) -> None:
        for item in self.rt.call_runtime_hook("host_event", host=HOST, name=self.name, payload=self.event):
            if _is_hook_error(item):
                self.reply.stderr.append(f"agent-hooks: {item}")


def _who(out: Outcome) -> str:
    """Who decided: the plugin that stopped the action (``Outcome.stopped_by``), else, for answers
    that are not a stop (a fallback, a sub-agent response), the last plugin that answered."""
    return out.stopped_by or (out.answered[-1] if out.answered else None) or "a plugin"


def _is_hook_error(item: Any) -> bool:
    from ...errors import HookError

    return isinstance(item, HookError)
