"""The omp dialect: oh-my-pi's hook subsystem (seed 002).

Names are omp's (``session_before_branch``, ``session.compacting``, ``auto_retry_start``,
``ttsr_triggered``, ...); payloads and result shapes are pi's (see :mod:`.pi`). What differs is
how the answers of several handlers combine: omp's ``HookRunner`` rules (:data:`RULES`) apply
in this dialect only; firing canonically, or in the pi dialect, is untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..reducer import Reduction
from .pi import SHAPES as PI_SHAPES
from .pi import PiDialect

if TYPE_CHECKING:
    from ..runtime import Outcome
    from ._base import Call


class LastResultReduction(Reduction):
    """omp's rule: handlers all see the original event; the last non-empty answer is the result.

    A ``stop_on`` answer (block, cancel) still ends the call, and fail-closed hooks still fail
    closed: both come from :class:`Reduction`, which this class runs on an empty result per answer.
    """

    _fields: dict[str, object] | None = None

    def accept(self, plugin: str, answer: object) -> bool:
        previous, self.result, self._fields = self.result, {}, None
        stop = super().accept(plugin, answer)
        if not stop:
            fields = self._fields
            if fields:  # the whole answer replaces the previous one (a false block/cancel says nothing)
                self.result = {k: v for k, v in fields.items() if not (k in self.hd.stop_on and not v)}
            else:  # no opinion, or an invalid answer that was skipped: the last result stands
                self.result = previous
        return stop

    def fail(self, plugin: str, message: str, kind: str = "error", *, closed: bool = True) -> bool:
        previous = self.result
        stop = super().fail(plugin, message, kind, closed=closed)
        if not stop:
            self.result = previous
        return stop

    def _apply_chain(self, fields: dict[str, object]) -> None:
        self._fields = fields
        for name in self.hd.chain:  # into the result only: the next handler sees the original
            if name in fields:
                self.result[name] = fields[name]


_LATEST = "short-circuit(cancel), else the latest returned result (the whole answer, not field by field)"

#: canonical hook -> omp's rule, where it differs from the canonical one (seed 002, HookRunner)
RULES: dict[str, str] = {
    "pre_tool": "short-circuit(block) + fail-closed, else the last returned result wins; "
                "handlers cannot rewrite the input",
    "pre_tool_output": "every handler sees the tool's own result; the last returned override wins "
                       "(no chaining, no short-circuit)",
    "before_agent_start": "first-result(message): the first returned message is kept, later ones ignored",
    "pre_session_switch": _LATEST,
    "pre_session_fork": _LATEST,
    "pre_compact": _LATEST,
    "pre_session_tree": _LATEST,
    "on_compacting": "the latest returned result wins",
}

#: canonical hooks whose omp rule is "the latest result wins"
LAST_RESULT_HOOKS = frozenset(RULES) - {"before_agent_start"}

#: canonical hook -> omp's result shape: pi's, except where omp's rules make it another
SHAPES: dict[str, str] = {
    **PI_SHAPES,
    "before_agent_start": "`{systemPrompt?: [text], message?: {customType, content, display, details}}`: "
                          "the first message returned",
    "pre_tool": "`{block: true, reason}`, or the last answer's `{reason}`; the input is never rewritten",
    "pre_tool_output": "`{content?, details?, isError?}` of the last handler that returned an override",
    "pre_session_fork": "`{cancel: true}` or `{skipConversationRestore}`",
    "on_compacting": "`{context?, prompt?, preserveData?}` of the last handler that answered",
}

#: omp keeps pi's notes except where its own rule says otherwise
NOTES: dict[str, str] = {
    "pre_tool_output": "also fires when the tool failed (`isError: true`, the error text as `content`); "
                       "the host rethrows the original error afterwards",
}


class OmpDialect(PiDialect):
    name = "omp"
    systems = ("omp",)
    mutable_input = False
    shapes = SHAPES
    rules = RULES
    notes = NOTES

    def reduction(self, hook: str) -> type[Reduction] | None:
        return LastResultReduction if hook in LAST_RESULT_HOOKS else None

    def translate(self, name: str, payload: object) -> Call:
        call = super().translate(name, payload)
        parts = call.payload.get("system_prompt")
        if call.hook == "before_agent_start" and isinstance(parts, list):
            # omp sends its system prompt as parts; plugins see (and chain) one text
            call.payload["system_prompt"] = "\n\n".join(p for p in parts if isinstance(p, str))
        return call

    def _native_before_agent_start(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        native: dict[str, object] = {}
        if isinstance(data.get("system_prompt"), str):
            native["systemPrompt"] = [data["system_prompt"]]  # omp takes the parts that replace its own
        messages = data.get("messages")
        if isinstance(messages, list) and messages:
            native["message"] = _camel_message(messages[0])
        return native or None

    def _native_pre_tool(self, call: Call, outcome: Outcome, data: dict[str, object]) -> object:
        if data.get("block"):
            return {"block": True, "reason": data.get("reason") or data.get("message") or "blocked"}
        native = {name: data[name] for name in ("block", "reason") if name in data}
        return native or None


def _camel_message(message: object) -> object:
    from ._base import camel_keys

    return camel_keys(message)


DIALECT = OmpDialect()
