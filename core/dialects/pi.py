"""The pi dialect: pi's extension events (seed 003) and the pi-coding-agent hooks (seed 004).

Names: every pi-ext event name (``input``, ``before_agent_start``, ``context``, ``tool_call``,
``tool_result``, ``session_before_fork``, ``resources_discover``, ``user_bash``, ...) and
pi-agent's single ``session`` event, whose ``reason`` picks the canonical hook
(``before_branch`` -> ``pre_session_fork``, ``shutdown`` -> ``on_end``, ...). The catalogue's
``session:<reason>`` spelling is accepted as a name too. ``pi-ext`` and ``pi-agent`` are this
dialect under their seed names.

Payloads: top-level camelCase keys become snake_case (``toolName`` -> ``tool_name``,
``isError`` -> ``is_error``, ``systemPrompt`` -> ``system_prompt``); ``input`` of tool events
becomes ``arguments``, ``text`` of ``input`` becomes ``prompt``; the ``type`` discriminator is
dropped. Nested host data (messages, entries, preparation, content blocks) passes unchanged.

Results are in pi's shapes (None when no plugin had an opinion); :data:`SHAPES` says which per
hook, :data:`NOTES` what else differs from the canonical call (docs/dialects.md shows both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import PayloadError
from ._base import Call, Dialect, camel, camel_keys, require_object, snake

if TYPE_CHECKING:
    from ..reducer import Reduction
    from ..runtime import Outcome

#: (canonical hook, pi key) -> canonical key, where the generic camelCase -> snake_case is not it
RENAMES: dict[tuple[str, str], str] = {
    ("pre_tool", "input"): "arguments",
    ("pre_tool_output", "input"): "arguments",
    ("pre_message", "text"): "prompt",
}

#: (canonical hook, canonical key) -> pi key: the reverse of RENAMES
NATIVE_KEYS: dict[tuple[str, str], str] = {(hook, canonical): key for (hook, key), canonical in RENAMES.items()}

_CANCEL = "`{cancel: true}`"

#: canonical hook -> pi's result shape (``outcome.native``); observe hooks: null
SHAPES: dict[str, str] = {
    "pre_message": '`{action: "continue"}`, `{action: "transform", text, images?}` or `{action: "handled"}` '
                   "(a canonical `block` answer is reported as handled; `images` only when a plugin set them)",
    "before_agent_start": "`{systemPrompt?, message?}`: one `{customType, content, display, details}` "
                          "holding every plugin's message content, in order (the first one's type)",
    "pre_llm_context": "`{messages}`",
    "pre_tool": "`{block: true, reason}`, else null; a rewrite of the arguments is applied to the host's "
                "`event.input` object in place (pi handlers mutate the event)",
    "pre_tool_output": "`{content?, details?, isError?}`; a chibi-style `output` answer becomes one text block, "
                       "a `block` answer replaces the content with its message",
    "pre_session_switch": _CANCEL,
    "pre_session_fork": "`{cancel?, skipConversationRestore?}`",
    "pre_clear": _CANCEL,
    "pre_compact": "`{cancel: true}` or `{compaction: {summary, firstKeptEntryId, tokensBefore, ...}}`",
    "pre_session_tree": "`{cancel: true}` or `{summary: {summary, details?}, label?}`",
    "resources_discover": "`{skillPaths, promptPaths, themePaths}`, each accumulated over the plugins",
    "user_bash": "`{operations}` or `{result: {output, exitCode, cancelled, truncated}}` (the first answer)",
}

#: canonical hook -> what else holds in the pi dialect
NOTES: dict[str, str] = {
    "pre_tool_output": "also fires when the tool failed: the host sends `isError: true` and the error text "
                       "as `content`; plugins may rewrite it, or flip `isError`",
}

#: result fields whose value is an object with pi-side camelCase keys of its own
_NESTED = frozenset({"compaction", "result", "message"})


def one_message(messages: list[object]) -> object:
    """pi reads one ``message`` from each handler of ``before_agent_start`` (the agent-hooks extension
    is one handler), so several plugins' messages travel as one: the first one's type and fields,
    every message's content in order."""
    first = camel_keys(messages[0])
    if len(messages) == 1 or not isinstance(first, dict):
        return first
    blocks: list[object] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        blocks.extend([{"type": "text", "text": content}] if isinstance(content, str)
                      else content if isinstance(content, list) else [])
    return {**first, "content": blocks}


class PiDialect(Dialect):
    name = "pi"
    systems: tuple[str, ...] = ("pi-ext", "pi-agent")
    shapes = SHAPES
    notes = NOTES
    #: a host may rewrite a tool call's arguments in place (pi yes, omp no)
    mutable_input = True

    def translate(self, name: str, payload: object) -> Call:
        data = require_object(self.name, name, payload)
        if name == "session":
            reason = data.get("reason")
            if not isinstance(reason, str):
                raise PayloadError(f"{self.name} session: payload needs a `reason` "
                                   f"({', '.join(sorted(self._session_reasons()))})")
            key = f"session:{reason}"
            if key not in self.names:
                raise PayloadError(f"{self.name} session: unknown reason {reason!r}; one of "
                                   f"{', '.join(sorted(self._session_reasons()))}")
            hook = self.names[key]
            name = key
            data = {k: v for k, v in data.items() if k != "reason"}  # the discriminator, like `type`
        else:
            hook = self.resolve(name)
        canonical: dict[str, object] = {}
        for key, value in data.items():
            if key == "type":
                continue
            canonical[RENAMES.get((hook, key)) or snake(key)] = value
        if hook == "pre_tool" and not self.mutable_input and isinstance(arguments := canonical.get("arguments"), dict):
            canonical["arguments"] = dict(arguments)
        return Call(self.name, name, hook, canonical, payload, self.reduction(hook))

    def native_key(self, hook: str, key: str) -> str:
        return NATIVE_KEYS.get((hook, key)) or camel(key)

    def _session_reasons(self) -> list[str]:
        return [n.partition(":")[2] for n in self.names if n.startswith("session:")]

    def reduction(self, hook: str) -> type[Reduction] | None:
        return None

    def native(self, call: Call, outcome: Outcome) -> object:
        data = outcome.data
        if data is None:
            return None
        shape = getattr(self, f"_native_{call.hook}", None)
        if shape is not None:
            return shape(call, outcome, data)
        native = {camel(k): (camel_keys(v) if k in _NESTED else v) for k, v in data.items()}
        return native or None

    # -- per hook ------------------------------------------------------------------------------

    def _native_pre_message(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        if data.get("handled") or data.get("block"):
            return {"action": "handled"}
        if "prompt" in data or "images" in data:
            native: dict[str, object] = {"action": "transform", "text": outcome.event.get("prompt")}
            if "images" in data:  # omitted: pi keeps the original images
                native["images"] = data["images"]
            return native
        return {"action": "continue"}

    def _native_before_agent_start(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        native: dict[str, object] = {}
        if "system_prompt" in data:
            native["systemPrompt"] = data["system_prompt"]
        messages = data.get("messages")
        if isinstance(messages, list) and messages:
            native["message"] = one_message(messages)
        return native or None

    def _native_pre_llm_context(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        return {"messages": data["messages"]} if "messages" in data else None

    def _native_pre_tool(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        if data.get("block"):
            return {"block": True, "reason": data.get("reason") or data.get("message") or "blocked"}
        if self.mutable_input and "arguments" in data:
            self._rewrite_input(call, data["arguments"])
        return None

    def _rewrite_input(self, call: Call, arguments: object) -> None:
        """pi hands handlers the event; a handler's changes to ``event.input`` are what runs."""
        original = call.original
        if isinstance(original, dict) and isinstance(original.get("input"), dict) and isinstance(arguments, dict):
            target = original["input"]
            if target is not arguments:
                target.clear()
                target.update(arguments)

    def _native_pre_tool_output(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        if data.get("block"):
            message = data.get("message") or data.get("reason") or ""
            return {"content": [{"type": "text", "text": message}]}
        native: dict[str, object] = {}
        if "content" in data:
            native["content"] = data["content"]
        elif "output" in data:
            native["content"] = [{"type": "text", "text": data["output"]}]
        if "details" in data:
            native["details"] = data["details"]
        if "is_error" in data:
            native["isError"] = data["is_error"]
        return native or None


DIALECT = PiDialect()
