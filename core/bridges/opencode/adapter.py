"""OpenCode hooks (as the shipped plugin sends them over ``serve --stdio``) -> canonical hooks.

The plugin sends ``{"name": <OpenCode hook>, "payload": {"input": …, "output": …}}`` (the JSON
parts of the hook's two arguments) and applies the answer: ``{"block": reason}`` makes it throw
in ``tool.execute.before`` (OpenCode then does not run the tool and hands the message to the
model), ``{"args": …}`` replaces ``output.args``, ``{"output": …}`` replaces a tool's output text,
``{"system": [...]}`` appends system prompt
parts, ``{"context": [...], "prompt": …}`` shapes a compaction, ``{"text": …}`` rewrites the
user's message, ``{"params": …}`` patches ``chat.params``.

OpenCode 1.18.33 declares a ``permission.ask`` plugin hook but never calls it (its permission
service asks the user directly), so the bridge does not register it: every gate is
``tool.execute.before``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..base import BridgeInputError, HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.opencode import EVENTS

if TYPE_CHECKING:
    from ...runtime import Runtime

#: bus events (the ``event`` hook's ``event.type``) with a canonical counterpart
BUS = {"session.created": ("on_start", "session_start"), "session.idle": ("agent_end",),
       "session.compacted": ("post_compact",), "session.deleted": ("on_end",)}

#: hook -> canonical hooks whose implementers make the plugin subscribe to it
WANTS = {
    "tool.execute.before": ("pre_tool", "pre_shell_exec", "pre_file_write", "pre_file_read", "pre_fetch_url"),
    "tool.execute.after": ("pre_tool_output", "post_tool"),
    "chat.message": ("pre_message",),
    "chat.params": ("pre_api_request",),
    "experimental.chat.system.transform": ("pre_system_prompt",),
    "experimental.session.compacting": ("on_compacting", "pre_compact"),
    "event": ("on_start", "session_start", "agent_end", "post_compact", "on_end", "host_event"),
}

_PATHS = ("filePath", "file_path", "path")

#: what each gating hook must carry to be checked
SHAPES = {
    "tool.execute.before": ToolShape(name=("payload", "input", "tool"), input=("payload", "output", "args"), fields={
        "bash": needs("command"),
        **{t: needs(*_PATHS) for t in ("write", "edit", "multiedit", "read")},
        **{t: needs(*_PATHS, optional=True) for t in ("glob", "grep", "list")},
        **{t: needs("patchText", "patch", "input") for t in ("patch", "apply_patch")},
        "webfetch": needs("url"),
    }),
}


def permission_calls(tool: str, args: dict[str, Any], cwd: str) -> g.Calls:
    if tool == "bash":
        return g.shell(args.get("command"), tool)
    path = args.get("filePath") or args.get("file_path") or args.get("path")
    if tool in ("write", "edit", "multiedit"):
        content = args.get("content") if tool == "write" and isinstance(args.get("content"), str) else None
        return g.writes([(path, content)], tool, cwd)
    if tool in ("patch", "apply_patch"):
        text = args.get("patchText") or args.get("patch") or args.get("input")
        return g.writes(g.patch_files(text), tool, cwd) if isinstance(text, str) else []
    if tool in ("read", "glob", "grep", "list"):
        return g.reads([path], tool, cwd)
    if tool == "webfetch":
        return g.fetches(args.get("url"), tool)
    return []


class OpenCodeAdapter(Adapter):
    name = "opencode"
    TITLE = "OpenCode"
    EVENT_KEY = "name"
    GATING = frozenset({"tool.execute.before"})
    SHAPES = SHAPES
    EVENTS = EVENTS

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        return {"host": self.name}  # the stdio server builds the runtime once per session

    def subscriptions(self, rt: Runtime | None) -> list[str]:
        """The hooks worth subscribing to: those some enabled plugin cares about."""
        if rt is None:
            return ["tool.execute.before"]  # fail-closed needs the gate even when loading failed
        return [h for h in EVENTS if h == "tool.execute.before" or any(rt.implementers(c) for c in WANTS[h])]

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in self.GATING or event_name is None:
            return HostAnswer(body={"block": fail_reason(problem)}, stderr=[problem], blocked=True)
        return HostAnswer(stderr=[f"agent-hooks ({event_name}): {problem}"])

    @staticmethod
    def _parts(turn: Turn) -> tuple[dict[str, Any], dict[str, Any]]:
        payload = turn.obj("payload")
        inp, out = payload.get("input") or {}, payload.get("output") or {}
        if not isinstance(inp, dict) or not isinstance(out, dict):
            raise BridgeInputError(f"{turn.name}: payload input and output must be objects")
        return inp, out

    def handle(self, rt: Any, event: dict[str, Any]) -> HostAnswer:
        name = self.event_name(event)
        if name is not None and name not in EVENTS:
            raise BridgeInputError(f"unknown OpenCode hook {name!r}")
        return super().handle(rt, event)

    # -- tools ---------------------------------------------------------------------------------

    def on_tool_execute_before(self, turn: Turn) -> HostAnswer:
        inp, _ = self._parts(turn)
        tool, args = turn.tool()  # checked by SHAPES
        cwd = turn.rt.cwd
        call_id = inp.get("callID") if isinstance(inp.get("callID"), str) else None
        verdict = g.gate(turn.rt, tool, args, call_id, lambda a: permission_calls(tool, a, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            return HostAnswer(body={"block": verdict.reason.strip() or "blocked by agent-hooks"}, blocked=True)
        return HostAnswer(body={"args": verdict.arguments} if verdict.changed else None)

    def on_tool_execute_after(self, turn: Turn) -> HostAnswer:
        inp, out = self._parts(turn)
        tool = str(inp.get("tool") or "")
        raw_args = inp.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        call_id = inp.get("callID") if isinstance(inp.get("callID"), str) else None
        change = output(turn.rt, tool, args, out.get("output"), call_id=call_id, errors=turn.errors)
        return HostAnswer(body={"output": change.text} if change is not None else None)

    # -- messages, model, compaction ---------------------------------------------------------

    def on_chat_message(self, turn: Turn) -> HostAnswer:
        _, out = self._parts(turn)
        raw_parts = out.get("parts")
        parts: list[Any] = raw_parts if isinstance(raw_parts, list) else []
        texts: list[str] = [p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text"
                 and isinstance(p.get("text"), str)]
        if not texts:
            return HostAnswer()
        prompt = "\n".join(texts)
        res = turn.fire("pre_message", {"prompt": prompt})
        data = res.data or {}
        if res.decision == "blocked":
            who = g.stopper(res) or "a plugin"
            return HostAnswer(body={"block": res.reason or f"the prompt was blocked by {who}"}, blocked=True)
        new = data.get("prompt")
        return HostAnswer(body={"text": new} if isinstance(new, str) and new != prompt else None)

    def on_chat_params(self, turn: Turn) -> HostAnswer:
        _, out = self._parts(turn)
        res = turn.fire("pre_api_request", {"request_body": out})
        body = (res.data or {}).get("request_body")
        return HostAnswer(body={"params": body} if isinstance(body, dict) and body != out else None)

    def on_experimental_chat_system_transform(self, turn: Turn) -> HostAnswer:
        inject = turn.system_prompt()
        texts = [t for t in (inject, *turn.messages()) if t]
        return HostAnswer(body={"system": texts} if texts else None)

    def on_experimental_session_compacting(self, turn: Turn) -> HostAnswer:
        pre = turn.fire("pre_compact", {"trigger": "auto"})
        if (pre.data or {}).get("cancel"):
            turn.errors.append("a plugin asked to cancel the compaction; OpenCode cannot cancel it here")
        res = turn.fire("on_compacting", {})
        data = res.data or {}
        body = {k: data[k] for k in ("context", "prompt") if data.get(k)}
        return HostAnswer(body=body or None)

    def on_event(self, turn: Turn) -> HostAnswer:
        inp, _ = self._parts(turn)
        raw = inp.get("event")
        bus: dict[str, Any] = raw if isinstance(raw, dict) else inp
        kind = bus.get("type")
        for hook in BUS.get(kind, ()) if isinstance(kind, str) else ():
            payload: dict[str, Any] = {
                "on_start": {"project_root": turn.rt.cwd}, "session_start": {"reason": "startup"},
                "agent_end": {}, "post_compact": {}, "on_end": {"reason": "session deleted"},
            }[hook]
            turn.fire(hook, payload)
        if not (isinstance(kind, str) and kind in BUS):
            turn.rt.call_runtime_hook("host_event", host=self.name, name=str(kind), payload=bus)
        return HostAnswer()


ADAPTER = OpenCodeAdapter()
