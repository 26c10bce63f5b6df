"""A base for the host adapters of this package: event dispatch to ``on_<Event>`` methods, the
per-event bookkeeping (:class:`Turn`), load errors and the ``host_event`` fallback."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..base import BridgeInputError, HostAdapter, HostAnswer
from .shape import ToolShape, tool_call

if TYPE_CHECKING:
    from ...runtime import Outcome, Runtime


class Turn:
    """One host event being handled."""

    def __init__(self, rt: Runtime, event: dict[str, Any], name: str) -> None:
        self.rt = rt
        self.event = event
        self.name = name
        self.errors: list[str] = []
        self._seen = 0
        #: the checked (tool, input) of a gating event (see :mod:`.shape`)
        self.call: tuple[str, dict[str, Any]] | None = None

    def fire(self, hook: str, payload: dict[str, Any]) -> Outcome:
        out = self.rt.fire(hook, payload)
        self.errors.extend(str(e) for e in out.errors)
        return out

    def text(self, key: str) -> str | None:
        value = self.event.get(key)
        return value if isinstance(value, str) else None

    def obj(self, key: str) -> dict[str, Any]:
        """A JSON-object field (``{}`` when absent); BridgeInputError when it has another type."""
        value = self.event.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise BridgeInputError(f"{self.name} event: {key} must be an object, not {type(value).__name__}")
        return value

    def tool(self, name_key: str = "tool_name", input_key: str = "tool_input") -> tuple[str, dict[str, Any]]:
        """The tool call: on a gating event as checked against the host's shape, elsewhere leniently
        (an absent input is ``{}``: an observing hook loses nothing by it)."""
        if self.call is not None:
            return self.call
        tool = self.event.get(name_key)
        if not isinstance(tool, str) or not tool:
            raise BridgeInputError(f"{self.name} event without a {name_key}")
        return tool, self.obj(input_key)

    def messages(self) -> list[str]:
        """Texts plugins sent with ``ctx.send_message`` (and UI notifications) since the last call."""
        box = self.rt.outbox[self._seen:]
        self._seen = len(self.rt.outbox)
        texts = [str(m.get("text", "")) for m in box if m.get("text")]
        ui = getattr(self.rt, "ui", None)
        for kind, text in getattr(ui, "notifications", ()):
            texts.append(f"agent-hooks: {text}" if kind == "info" else f"agent-hooks {kind}: {text}")
        if ui is not None and hasattr(ui, "notifications"):
            ui.notifications.clear()
        return texts

    def stop_gate(self, subagent: bool = False, message_key: str = "last_assistant_message") -> str | None:
        """Fire ``stop_gate``: the instruction to keep working when a plugin says the work is not
        done, else None. When the user's ``stop_gate_limit`` overruled a continue, a note says so."""
        if not self.rt.implementers("stop_gate"):
            return None
        payload: dict[str, Any] = {"subagent": subagent}
        for key, value in (("last_assistant_message", self.text(message_key)), ("agent_type", self.text("agent_type")),
                           ("stop_hook_active", self.event.get("stop_hook_active"))):
            if value is not None and (key != "stop_hook_active" or isinstance(value, bool)):
                payload[key] = value
        out = self.fire("stop_gate", payload)
        data = out.data or {}
        if data.get("continue"):
            who = out.stopped_by or "a plugin"
            return str(data.get("reason") or f"{who} says the work is not done")
        if data.get("limit_reached"):
            self.errors.append(f"stop gate limit reached ({self.rt.stop_gate_limit} in a row): the agent stops "
                               f"although a plugin asked to continue: {data.get('reason') or 'no reason given'}")
        return None

    def permission_decision(self, tool: str, arguments: dict[str, Any]) -> tuple[str | None, str, dict[str, Any] | None]:
        """Fire ``permission_request``: (``"allow"``/``"deny"``/None, the reason, the changed
        arguments or None). ``ask`` and no opinion are None: the host asks as usual."""
        if not self.rt.implementers("permission_request"):
            return None, "", None
        import copy

        original = copy.deepcopy(arguments)
        out = self.fire("permission_request", {"tool_name": tool, "arguments": arguments})
        data = out.data or {}
        decision = data.get("decision")
        if decision == "deny":
            return "deny", str(data.get("reason") or f"denied by {out.stopped_by or 'a plugin'}"), None
        if decision == "allow":
            changed = data.get("arguments")
            return "allow", str(data.get("reason") or ""), changed if isinstance(changed, dict) and changed != original else None
        return None, "", None

    def user_prompt(self, block: str, key: str = "prompt") -> tuple[HostAnswer | None, list[str]]:
        """Fire ``pre_message`` for the event's prompt (its field ``key``): (the host's answer when a
        plugin blocked it: ``{"decision": block, "reason"}``, else None; the context to give the
        model: the prompt as rewritten, and what ``pre_system_prompt`` injects). Hosts that cannot
        replace the prompt hand a rewrite to the model as context."""
        prompt = self.text(key)
        if prompt is None:
            raise BridgeInputError(f"{self.name} event without a prompt")
        out = self.fire("pre_message", {"prompt": prompt})
        data = out.data or {}
        if out.decision == "blocked":
            from .gate import stopper

            who = stopper(out) or "a plugin"
            return HostAnswer(body={"decision": block, "reason": out.reason or f"the prompt was blocked by {who}"},
                              blocked=True), []
        texts = []
        new = data.get("prompt")
        if isinstance(new, str) and new != prompt:
            texts.append(f"agent-hooks: {', '.join(out.answered) or 'a plugin'} rewrote the user's prompt; "
                         f"treat this as the prompt:\n{new}")
        inject = self.system_prompt()
        return None, [*texts, *([inject] if inject else [])]

    def system_prompt(self) -> str | None:
        """What ``pre_system_prompt`` handlers inject (hosts put it into the model's context)."""
        if not self.rt.implementers("pre_system_prompt"):
            return None
        inject = (self.fire("pre_system_prompt", {}).data or {}).get("inject")
        return inject if isinstance(inject, str) and inject else None


class Adapter(HostAdapter):
    """Stateless host adapter: subclasses set ``name``, ``GATING`` and ``on_<Event>(turn)`` methods."""

    #: the field of the event that names it
    EVENT_KEY = "hook_event_name"
    #: events on which our failure must become a deny
    GATING: frozenset[str] = frozenset()
    #: gating event -> where it carries its tool call and what each tool needs; an event that does
    #: not fit is denied with the field named (:mod:`.shape`)
    SHAPES: Mapping[str, ToolShape] = {}
    #: the host's own events (the capability matrix and the installers read this)
    EVENTS: tuple[str, ...] = ()
    #: the host's name for people ("Gemini CLI"); the per-event command's --help uses it
    TITLE = ""

    @property
    def event_field(self) -> str:
        return self.EVENT_KEY

    @property
    def usage(self) -> str:
        from .command import usage

        return usage(self.name, self.TITLE or self.name)

    def event_name(self, event: Mapping[str, Any]) -> str | None:
        value = event.get(self.EVENT_KEY) if isinstance(event, Mapping) else None
        return value if isinstance(value, str) and value else None

    def is_gating(self, event_name: str | None) -> bool:
        return event_name in self.GATING

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        cwd = event.get("cwd")
        if not (isinstance(cwd, str) and os.path.isdir(cwd)):
            roots = event.get("workspace_roots")
            cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
        options: dict[str, Any] = {"host": self.name, "cwd": cwd if cwd and os.path.isdir(cwd) else os.getcwd()}
        for key, option in (("session_id", "session_id"), ("transcript_path", "session_file")):
            value = event.get(key)
            if isinstance(value, str) and value:
                options[option] = value
        return options

    def handle(self, rt: Runtime, event: dict[str, Any]) -> HostAnswer:
        """The one event loop and answer policy of every host: a plugin that failed to load fails
        a gating event closed; no plugins, no opinion (:meth:`unplugged`); else :meth:`dispatch`."""
        if not isinstance(event, dict):
            raise BridgeInputError(f"the event must be a JSON object, not {type(event).__name__}")
        name = self.event_name(event)
        if name is None:
            raise BridgeInputError(f"the event has no {self.EVENT_KEY}")
        problem = load_problem(rt) if self.is_gating(name) else None
        if problem is not None:
            return self.failure(name, problem)
        if not rt.plugins:
            return self.unplugged(rt, event, name)
        return self.dispatch(rt, event, name)

    def unplugged(self, rt: Runtime, event: dict[str, Any], name: str) -> HostAnswer:
        """The answer when no plugin runs: nothing, the host decides as if we were not wired."""
        return HostAnswer()

    def dispatch(self, rt: Runtime, event: dict[str, Any], name: str) -> HostAnswer:
        """``on_<Event>(turn)`` (the tool call of a gating event checked against :attr:`SHAPES`
        first), else :meth:`host_event`; the errors plugins raised go to stderr."""
        turn = Turn(rt, event, name)
        shape = self.SHAPES.get(name) if self.is_gating(name) else None
        if shape is not None:
            turn.call = tool_call(event, shape, name)
        handler = getattr(self, "on_" + name.replace(".", "_"), None)  # OpenCode names have dots
        answer = handler(turn) if handler is not None else self.host_event(turn)
        answer.stderr.extend(f"agent-hooks: {e}" for e in turn.errors)
        return answer

    def host_event(self, turn: Turn) -> HostAnswer:
        """An event with no canonical hook: plugins see it through ``host_event``."""
        answer = HostAnswer()
        for item in turn.rt.call_runtime_hook("host_event", host=self.name, name=turn.name, payload=turn.event):
            if type(item).__name__ == "HookError":
                answer.stderr.append(f"agent-hooks: {item}")
        return answer


def load_problem(rt: Runtime) -> str | None:
    """Why a gating event must fail closed before any plugin runs: one failed to load."""
    broken = list(getattr(rt, "load_errors", ()))
    if not broken:
        return None
    names = ", ".join(dict.fromkeys(str(getattr(e, "plugin", "?")) for e in broken))
    return (f"a plugin failed to load: {'; '.join(str(e) for e in broken)}. Fix it, "
            f"or disable it (`agenthooks plugins disable {names}`)")


def fail_reason(problem: str) -> str:
    return f"agent-hooks could not check this action, so it is blocked (fail-closed): {problem}"
