"""The chibi dialect (seeds 000 and 001).

chibi's hook names are the canonical names except ``on_context_switch`` (-> ``post_session_switch``);
its payloads are the canonical snake_case payloads. What differs is the answer: chibi reads one
JSON object per plugin, so ``outcome.native`` is the single chibi answer that has the effect of
all our plugins' answers combined, exactly what a chibi plugin would print (``{}`` = no opinion).
:data:`SHAPES` says what that answer is per hook (docs/dialects.md shows it).

The other direction (chibi plugins' answers into canonical answers, canonical events into chibi
payloads) is used by :mod:`agent_hooks_core.dialects.chibi_plugins`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hookspecs._fields import RESULT_FIELDS
from ..hookspecs.catalogue import BY_NAME
from ._base import Call, Dialect, require_object, text_of

if TYPE_CHECKING:
    from ..runtime import Outcome

#: set in ``agenthooks chibi`` (and so in every process it starts): chibi itself runs the chibi
#: plugins there, and a plugin directory holding the ``agenthooks chibi`` wrapper must not make it
#: run itself. :func:`~agent_hooks_core.dialects.chibi_plugins.load_directory` does nothing then.
ENV_INSIDE_CHIBI = "AGENT_HOOKS_CHIBI_EXEC"

#: canonical hook -> the fields a chibi answer may carry for it
ANSWER_FIELDS: dict[str, tuple[str, ...]] = {
    "pre_message": ("prompt",),
    "pre_system_prompt": ("inject",),
    "post_system_prompt": ("inject",),
    "pre_tool": ("arguments", "block", "message"),
    "pre_tool_output": ("output", "block", "message"),
    "pre_api_tools": ("include", "exclude"),
    "pre_api_request": ("request_body",),
    "pre_agentic_loop": ("fallback", "fuel"),
    "post_tool_batch": ("fallback", "fuel_delta"),
    "pre_file_read": ("denied", "reason"),
    "pre_file_write": ("denied", "reason"),
    "pre_shell_exec": ("denied", "reason"),
    "pre_fetch_url": ("denied", "reason"),
    "pre_spawn_agent": ("response", "block", "message"),
    "pre_cache_output": ("summary",),
    "pre_send_message": ("delivered", "via"),
    "pre_clear": ("cancel",),
    "pre_compact": ("cancel", "compaction"),
}


_DENY = "`{denied: true, reason}`, else `{}`: chibi falls through to its own prompt"

#: canonical hook -> the chibi answer ``outcome.native`` is (observe hooks: ``{}``)
SHAPES: dict[str, str] = {
    "pre_message": "`{prompt}` (chibi has no `handled`: a handled call answers the prompt as it stood, or `{}`)",
    "pre_system_prompt": "`{inject}`: every plugin's text, newline-joined",
    "post_system_prompt": "`{inject}`: every plugin's text, newline-joined",
    "pre_tool": "`{block: true, message}`, or `{arguments}` (the arguments as the last handler left them)",
    "pre_tool_output": "`{block: true, message}`, or `{output}` (pi-style `content` answers become its text)",
    "pre_api_tools": "`{exclude}`, or `{include}` with the surviving tool names when any plugin included "
                     "(a chibi answer may not carry both)",
    "pre_api_request": "`{request_body}`: the top-level fields that changed, removed ones as `null`",
    "pre_agentic_loop": "`{fallback, fuel}` as plugins set them (a configured default fallback is not an answer)",
    "post_tool_batch": "`{fallback, fuel_delta}`, the deltas summed",
    "pre_file_read": _DENY,
    "pre_file_write": _DENY,
    "pre_shell_exec": _DENY,
    "pre_fetch_url": _DENY,
    "pre_spawn_agent": "`{response}` or `{block: true, message}`",
    "pre_cache_output": "`{summary}`",
    "pre_send_message": "`{delivered: true, via}`",
    "pre_clear": "`{cancel: true}`",
    "pre_compact": "`{cancel: true}` or `{compaction}`",
}


class ChibiDialect(Dialect):
    name = "chibi"
    systems = ("chibi",)
    shapes = SHAPES
    observe_shape = "`{}`"

    def translate(self, name: str, payload: object) -> Call:
        hook = self.resolve(name)
        data = dict(require_object(self.name, name, payload))
        return Call(self.name, name, hook, data, payload)

    def native(self, call: Call, outcome: Outcome) -> dict[str, object]:
        return chibi_answer(call.hook, outcome.data, call.payload)


DIALECT = ChibiDialect()
#: chibi hook name -> canonical hook
CHIBI_NAMES: dict[str, str] = DIALECT.names
#: canonical hook -> chibi hook name
CANONICAL_TO_CHIBI: dict[str, str] = {hook: name for name, hook in CHIBI_NAMES.items()}


def chibi_answer(hook: str, data: dict[str, object] | None, payload: dict[str, object]) -> dict[str, object]:
    """The combined canonical result ``data`` of ``hook`` as one chibi answer.

    ``payload`` is the canonical payload the call started from (pre_api_request's answer is the
    difference between its ``request_body`` and the result's).
    """
    if not data:
        return {}
    hd = BY_NAME[hook]
    if hd.permission:
        return {"denied": True, "reason": data.get("reason") or f"{hook}: denied"} if data.get("denied") else {}
    if data.get("block") and hook in ("pre_tool", "pre_tool_output", "pre_spawn_agent"):
        return {"block": True, "message": data.get("message") or data.get("reason") or f"{hook}: blocked"}
    if hook == "pre_tool_output":
        if "output" in data:
            return {"output": data["output"]}
        text = text_of(data.get("content"))
        return {"output": text} if text is not None else {}
    if hook == "pre_api_tools":
        if "include" in data:
            tools = data.get("tools", ())
            return {"include": [_tool_name(t) for t in (tools if isinstance(tools, (list, tuple)) else ())]}
        exclude = data.get("exclude")
        return {"exclude": list(exclude)} if isinstance(exclude, (list, tuple)) and exclude else {}
    if hook == "pre_api_request":
        if "request_body" not in data:
            return {}
        patch = _top_level_patch(payload.get("request_body"), data["request_body"])
        return {"request_body": patch} if patch else {}
    if hd.fuel:
        answer: dict[str, object] = {}
        if data.get("fallback_source") == hook and "fallback" in data:
            answer["fallback"] = data["fallback"]
        for name in ("fuel", "fuel_delta"):
            if name in ANSWER_FIELDS[hook] and name in data:
                answer[name] = data[name]
        return answer
    if hd.first_result and not any(data.get(n) for n in hd.first_result_needs):
        return {}
    fields = ANSWER_FIELDS.get(hook)
    if fields is None:
        return {}
    return {name: data[name] for name in fields if name in data and data[name] is not None}


def _tool_name(tool: object) -> object:
    return tool.get("name") if isinstance(tool, dict) else tool


def _top_level_patch(before: object, after: object) -> dict[str, object]:
    """The fields of ``after`` that differ from ``before``; removed fields as null."""
    if not isinstance(after, dict):
        return {}
    before = before if isinstance(before, dict) else {}
    patch = {k: v for k, v in after.items() if k not in before or before[k] != v}
    patch.update({k: None for k in before if k not in after})
    return patch


# -- chibi subprocess plugins: their answers and payloads ----------------------------------------


def from_chibi_answer(hook: str, answer: dict[str, object]) -> dict[str, object] | None:
    """A chibi plugin's answer as a canonical answer: None for observe hooks.

    Fields the canonical result does not know are dropped, as chibi ignores them; so are fields
    only the runtime computes (``tools``, ``fuel`` of post_tool_batch, ``fallback_source``).
    """
    spec = RESULT_FIELDS.get(hook)
    if spec is None:
        return None
    computed = getattr(BY_NAME[hook], "computed", ())
    return {k: v for k, v in answer.items() if k in spec and k not in computed}


def to_chibi_payload(hook: str, event: dict[str, object]) -> dict[str, object]:
    """A canonical event as the JSON a chibi plugin expects for ``hook``.

    The canonical payload is chibi's, plus fields other hosts send; pre_tool_output from a pi
    host carries ``content`` blocks only, so chibi's ``output`` text is made from them.
    """
    data = dict(event)
    if hook == "pre_tool_output" and data.get("output") is None:
        text = text_of(data.get("content"))
        if text is not None:
            data["output"] = text
    return data
