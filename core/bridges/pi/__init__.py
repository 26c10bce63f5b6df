"""pi and oh-my-pi: the host adapter behind the shipped TypeScript extension.

pi (``@mariozechner/pi-coding-agent``) and omp (``@oh-my-pi/pi-coding-agent``) run extensions
in-process and have no command-hook protocol. ``extension.ts`` (package data, installed by
``agenthooks install pi|omp``) starts ``agenthooks serve --stdio`` once per session and forwards
pi's events in pi's own shape; this adapter turns each into canonical fires through the existing
*dialects* (:mod:`agent_hooks_core.dialects.pi`, :mod:`~agent_hooks_core.dialects.omp`: names,
payload shapes, omp's conflict rules) and returns the answer the extension hands back to pi.

What the adapter adds to the dialect:

* ``tool_call`` also fires the permission hook that fits the tool (``bash`` ->
  ``pre_shell_exec``, ``write``/``edit`` -> ``pre_file_write``, ``read``/``grep``/``find``/``ls``
  -> ``pre_file_read``); a deny becomes pi's ``{block: true, reason}``;
* pi rewrites tool arguments by mutating ``event.input`` in place, which a JSON round trip cannot
  do: a rewrite is answered as ``{input: {...}}`` and the extension copies it into ``event.input``;
  omp takes the same ``{input: {...}}`` as its ``ToolCallEventResult.input`` (and revalidates it);
* ``session_start`` (``startup``) also fires ``on_start``; on pi, whose 0.73.1 has no
  ``session_switch``/``session_fork`` events, ``session_start`` with reason ``new``/``resume``
  also fires ``post_session_switch`` and with ``fork`` ``post_session_fork``;
  ``tool_execution_end`` also ``post_tool``;
* events no dialect knows (``before_provider_request``, ``after_provider_response``, pi's
  ``thinking_level_select``, omp's newer extension events: :data:`HOST_ONLY_EVENTS`) go to the
  ``host_event`` hook, observe only;
* ``tool_call`` fails closed: a plugin that failed to load, or any failure of ours, blocks.

No I/O here (see :mod:`agent_hooks_core.bridges.base`).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..base import BridgeInputError, HostAdapter, HostAnswer
from ..hostkit.adapter import load_problem
from ..hostkit.shape import ToolShape, needs, tool_call

if TYPE_CHECKING:
    from ...runtime import Outcome, Runtime

#: the events where pi decides from our answer whether an action runs
GATING_EVENTS = frozenset({"tool_call"})

#: pi tool -> (permission hook, the argument holding its subject)
PERMISSION_TOOLS: dict[str, tuple[str, str]] = {
    "bash": ("pre_shell_exec", "command"),
    "write": ("pre_file_write", "path"),
    "edit": ("pre_file_write", "path"),
    "read": ("pre_file_read", "path"),
    "grep": ("pre_file_read", "path"),
    "find": ("pre_file_read", "path"),
    "ls": ("pre_file_read", "path"),
}

#: what a ``tool_call`` payload must carry to be checked (grep, find and ls default to the cwd)
TOOL_SHAPE = ToolShape(name=("toolName",), input=("input",), fields={
    tool: needs(key, optional=tool in ("grep", "find", "ls")) for tool, (_, key) in PERMISSION_TOOLS.items()})

#: host -> its events with no canonical hook: observed through ``host_event`` only
HOST_ONLY_EVENTS: dict[str, tuple[str, ...]] = {
    "pi": ("before_provider_request", "after_provider_response", "thinking_level_select"),
    "omp": ("before_provider_request", "after_provider_response", "credential_disabled", "goal_updated",
            "mcp_notification", "message_start", "message_end", "retry_fallback_applied", "retry_fallback_succeeded",
            "tool_approval_requested", "tool_approval_resolved", "tool_execution_start", "tool_execution_end",
            "user_python"),
}

#: host -> events the adapter maps itself (no dialect knows them): event -> canonical hook
OWN_EVENTS: dict[str, dict[str, str]] = {"omp": {"session_stop": "stop_gate"}}

#: host event -> canonical hooks fired besides the dialect's own (see the module docstring)
EXTRA_HOOKS: dict[str, tuple[str, ...]] = {
    "tool_call": ("pre_shell_exec", "pre_file_write", "pre_file_read"),
    "session_start": ("on_start", "post_session_switch", "post_session_fork"),
    "tool_execution_end": ("post_tool",),
}

#: pi 0.73.1 has no session_switch / session_fork events: session_start's reason says what happened
SESSION_START_REASONS = {"new": "post_session_switch", "resume": "post_session_switch", "fork": "post_session_fork"}


#: canonical hook -> (a plugin's block stops the host's action, its changed value reaches the host)
_EFFECTS: dict[str, tuple[bool, bool]] = {
    "pre_tool": (True, True),
    "pre_tool_output": (True, True),
    "pre_message": (True, True),
    "before_agent_start": (False, True),
    "pre_llm_context": (False, True),
    "pre_session_switch": (True, False),
    "pre_session_fork": (True, False),
    "pre_clear": (True, False),
    "pre_compact": (True, True),
    "pre_session_tree": (True, True),
    "resources_discover": (False, True),
    "user_bash": (False, True),
    "on_compacting": (False, True),
}


def capabilities(dialect: str) -> dict[str, Any]:
    """What the pi/omp bridge does with each canonical hook (``agenthooks hosts``, docs/hosts/README.md)."""
    from ...dialects import get_dialect
    from ..capabilities import Cap

    caps: dict[str, Cap] = {}
    for event, hook in get_dialect(dialect).names.items():
        if event.startswith("session:"):
            continue
        block, rewrite = _EFFECTS.get(hook, (False, False))
        note = ""
        if hook == "pre_tool" and dialect == "omp":
            note = "the rewrite goes back as the result's input, which omp revalidates"
        elif hook == "user_bash":
            note = "`result` only (`operations` holds functions)"
        if hook in caps:  # two host events for one hook
            old = caps[hook]
            caps[hook] = Cap(f"{old.via}, {event}", old.block, old.rewrite, old.closed, old.note)
        else:
            caps[hook] = Cap(event, block=block, rewrite=rewrite, closed=event in GATING_EVENTS, note=note)
    caps["pre_shell_exec"] = Cap("tool_call bash", block=True, closed=True)
    caps["pre_file_write"] = Cap("tool_call write|edit", block=True, closed=True)
    caps["pre_file_read"] = Cap("tool_call read|grep|find|ls", block=True, closed=True)
    caps["on_start"] = Cap("session_start (startup)")
    if dialect == "pi":  # pi 0.73.1 never emits session_switch / session_fork
        caps["post_session_switch"] = Cap("session_start (reason new|resume)")
        caps["post_session_fork"] = Cap("session_start (reason fork)")
    if "tool_execution_end" in get_dialect(dialect).names:  # pi's; omp's dialect has no such event
        caps["post_tool"] = Cap("tool_execution_end")
    if "session_stop" in OWN_EVENTS.get(dialect, {}):
        caps["stop_gate"] = Cap("session_stop", block=True, continues=True,
                                note="continue = continue + additionalContext (omp also caps continuations)")
    caps["host_event"] = Cap(", ".join(HOST_ONLY_EVENTS[dialect]))
    return caps


def event_map(dialect: str) -> dict[str, tuple[str, ...]]:
    """pi's or omp's events -> the canonical hooks the bridge fires for each (the host record's map)."""
    from ...dialects import get_dialect

    out: dict[str, list[str]] = {}
    for event, hook in get_dialect(dialect).names.items():
        if not event.startswith("session:"):
            out.setdefault(event, []).append(hook)
    for event, hook in OWN_EVENTS.get(dialect, {}).items():
        out.setdefault(event, []).append(hook)
    for event, hooks in EXTRA_HOOKS.items():
        if event in out:
            out[event].extend(h for h in hooks if h not in out[event])
    for event in HOST_ONLY_EVENTS[dialect]:
        out.setdefault(event, []).append("host_event")
    fired = {*capabilities(dialect), "host_event"}  # omp's session_start has no switch/fork reasons
    return {event: tuple(h for h in hooks if h in fired) for event, hooks in out.items()}


class PiAdapter(HostAdapter):
    """pi's events through the pi dialect, or omp's through the omp dialect."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.dialect = name  # the dialect of the same name decides names, shapes and rules

    # -- HostAdapter -------------------------------------------------------------------------

    def event_name(self, event: Mapping[str, Any]) -> str | None:
        name = event.get("name")
        return name if isinstance(name, str) else None

    def is_gating(self, event_name: str | None) -> bool:
        return event_name in GATING_EVENTS

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        payload = event.get("payload")
        cwd = payload.get("cwd") if isinstance(payload, dict) else None
        return {"host": self.name, **({"cwd": cwd} if isinstance(cwd, str) else {})}

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in GATING_EVENTS:
            reason = f"agent-hooks could not check this tool call, so it is blocked (fail-closed): {problem}"
            return HostAnswer(body={"block": True, "reason": reason}, blocked=True,
                              stderr=[f"agent-hooks ({self.name} {event_name}): {problem}"])
        where = f" ({self.name} {event_name})" if event_name else f" ({self.name})"
        return HostAnswer(body=None, stderr=[f"agent-hooks{where}: {problem}"])

    def handle(self, rt: Runtime, event: dict[str, Any]) -> HostAnswer:
        name = self.event_name(event)
        if not name:
            raise BridgeInputError(f"{self.name} event without a name")
        payload = event.get("payload")
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            raise BridgeInputError(f"{self.name} {name}: payload must be an object, not {type(payload).__name__}")
        problem = load_problem(rt) if name in GATING_EVENTS else None
        if problem is not None:
            return self.failure(name, problem)
        if name == "session_stop" and "session_stop" in OWN_EVENTS.get(self.name, {}):
            return self._session_stop(rt, payload)
        if name not in self._names():
            return self._host_event(rt, name, payload)
        if name == "tool_call":
            return self._tool_call(rt, payload)
        from ...dialects import fire_dialect

        outcome = fire_dialect(rt, self.dialect, name, payload)
        answer = HostAnswer(body=outcome.native, blocked=outcome.decision in ("blocked", "denied"),
                            stderr=_errors(outcome))
        if name == "session_start" and payload.get("reason") in (None, "startup"):
            self._fire(rt, answer, "on_start", {"project_root": rt.cwd})
        elif name == "session_start" and self.name == "pi" and payload.get("reason") in SESSION_START_REASONS:
            reason = payload["reason"]
            fields: dict[str, Any] = {"reason": reason} if reason != "fork" else {}
            previous = payload.get("previousSessionFile")
            if isinstance(previous, str):
                fields["previous_session_file"] = previous
            self._fire(rt, answer, SESSION_START_REASONS[reason], fields)
        elif name == "tool_execution_end" and isinstance(payload.get("toolName"), str):
            self._fire(rt, answer, "post_tool", {
                "tool_name": payload["toolName"], "result": payload.get("result"),
                "is_error": payload.get("isError") if isinstance(payload.get("isError"), bool) else None,
                "tool_call_id": payload.get("toolCallId") if isinstance(payload.get("toolCallId"), str) else None})
        return answer

    # -- the rest ----------------------------------------------------------------------------

    def subscriptions(self, rt: Runtime | None) -> list[str]:
        """The host events worth forwarding: those whose hooks some loaded plugin implements.

        ``tool_call`` is always among them when plugins failed to load (it must fail closed)."""
        if rt is None:
            return sorted(GATING_EVENTS)
        names = self._names()
        events = {event for event, hook in names.items() if rt.implementers(hook)}
        for event, hooks in EXTRA_HOOKS.items():
            if event in names and any(rt.implementers(h) for h in hooks):
                events.add(event)
        events.update(e for e, hook in OWN_EVENTS.get(self.name, {}).items() if rt.implementers(hook))
        if rt.pm.hook.host_event.get_hookimpls():
            events.update(HOST_ONLY_EVENTS[self.name])
        if getattr(rt, "load_errors", None):
            events.update(GATING_EVENTS)
            events.add("session_start")
        return sorted(events)

    def _names(self) -> dict[str, str]:
        from ...dialects import get_dialect

        return {n: hook for n, hook in get_dialect(self.dialect).names.items() if not n.startswith("session:")}

    def _tool_call(self, rt: Runtime, payload: dict[str, Any]) -> HostAnswer:
        from ...dialects import fire_dialect

        tool, checked = tool_call(payload, TOOL_SHAPE, f"{self.name} tool_call payload")
        original = copy.deepcopy(checked)
        outcome = fire_dialect(rt, self.dialect, "tool_call", payload)
        answer = HostAnswer(body=outcome.native, stderr=_errors(outcome))
        if isinstance(outcome.native, dict) and outcome.native.get("block"):
            answer.blocked = True
            return answer
        current = payload.get("input")
        arguments: dict[str, Any] = current if isinstance(current, dict) else original
        rewritten = (outcome.data or {}).get("arguments")
        if not get_dialect_mutable(self.dialect) and isinstance(rewritten, dict):
            arguments = rewritten  # omp's rule: the last answer's arguments, handed back as `input`
        perm = permission_call(tool, arguments, rt.cwd)
        if perm is not None and rt.implementers(perm[0]):
            out = self._fire(rt, answer, *perm)
            data = out.data or {}
            if data.get("denied"):
                who = out.answered[-1] if out.answered else "a plugin"
                answer.body = {"block": True, "reason": data.get("reason") or f"denied by {who} ({perm[0]})"}
                answer.blocked = True
                return answer
        if arguments != original:
            body = dict(answer.body) if isinstance(answer.body, dict) else {}
            body["input"] = arguments  # pi: copied into event.input by the extension; omp: its result's input
            answer.body = body
        return answer

    def _session_stop(self, rt: Runtime, payload: dict[str, Any]) -> HostAnswer:
        """omp's ``session_stop``: ``{continue: true, additionalContext}`` keeps the session working."""
        answer = HostAnswer(body=None)
        event: dict[str, Any] = {"subagent": False}
        text = _message_text(payload.get("last_assistant_message"))
        if text is not None:
            event["last_assistant_message"] = text
        if isinstance(payload.get("stop_hook_active"), bool):
            event["stop_hook_active"] = payload["stop_hook_active"]
        out = self._fire(rt, answer, "stop_gate", event)
        data = out.data or {}
        if data.get("continue"):
            reason = data.get("reason") or f"{out.stopped_by or 'a plugin'} says the work is not done"
            answer.body = {"continue": True, "additionalContext": reason}
        elif data.get("limit_reached"):
            answer.stderr.append(f"agent-hooks: stop gate limit reached ({rt.stop_gate_limit} in a row): the agent "
                                 f"stops although a plugin asked to continue: {data.get('reason') or 'no reason given'}")
        return answer

    def _fire(self, rt: Runtime, answer: HostAnswer, hook: str, payload: dict[str, Any]) -> Outcome:
        out = rt.fire(hook, payload)
        answer.stderr.extend(_errors(out))
        return out

    def _host_event(self, rt: Runtime, name: str, payload: dict[str, Any]) -> HostAnswer:
        from ...errors import HookError

        answer = HostAnswer(body=None)
        for item in rt.call_runtime_hook("host_event", host=self.name, name=name, payload=payload):
            if isinstance(item, HookError):
                answer.stderr.append(f"agent-hooks: {item}")
        return answer


def get_dialect_mutable(dialect: str) -> bool:
    """True when the dialect's host applies rewrites by mutating the event (pi), not by a result (omp)."""
    from ...dialects import get_dialect

    return bool(getattr(get_dialect(dialect), "mutable_input", False))


def permission_call(tool: str, arguments: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]] | None:
    """The permission hook (and its payload) for a pi tool call, if the tool has one."""
    spec = PERMISSION_TOOLS.get(tool)
    if spec is None:
        return None
    hook, key = spec
    subject = arguments.get(key)
    if hook == "pre_file_read" and subject is None and tool in ("grep", "find", "ls"):
        subject = "."  # these default to the working directory
    if not isinstance(subject, str) or not subject:
        return None
    if hook == "pre_shell_exec":
        return hook, {"command": subject, "tool_name": tool}
    path = subject if os.path.isabs(subject) else os.path.normpath(os.path.join(cwd, os.path.expanduser(subject)))
    payload: dict[str, Any] = {"path": path, "tool_name": tool}
    if tool == "write" and isinstance(arguments.get("content"), str):
        payload["content"] = arguments["content"]
    return hook, payload


def _message_text(message: Any) -> str | None:
    """The text of a pi/omp message (a string, or ``content`` blocks of type ``text``)."""
    if isinstance(message, str):
        return message
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                 and isinstance(b.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def _errors(outcome: Outcome) -> list[str]:
    return [f"agent-hooks: {err}" for err in outcome.errors]


ADAPTER = PiAdapter("pi")
OMP_ADAPTER = PiAdapter("omp")
