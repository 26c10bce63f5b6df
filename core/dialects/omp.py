"""The omp dialect: oh-my-pi's hook subsystem (seed 002).

Names are omp's (``session_before_branch``, ``session.compacting``, ``auto_retry_start``,
``ttsr_triggered``, ...); payloads and result shapes are pi's (see :mod:`.pi`). What differs is
how the answers of several handlers combine. omp's ``HookRunner``:

==================== =========================================================================
event                omp rule (applied in this dialect only; canonical firing is untouched)
==================== =========================================================================
tool_call            the first ``block`` ends the call; otherwise the last returned result wins.
                     Handlers cannot rewrite the input (they get a copy). A handler that raises
                     blocks the call (fail-closed).
tool_result          every handler sees the tool's own result; the last returned override wins
                     (no chaining, no short-circuit)
before_agent_start   the first returned message is kept; later ones are ignored
session_before_*     the latest returned result is kept; ``cancel: true`` ends the call
session.compacting   the latest returned result wins
context              chained, as canonical
==================== =========================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..reducer import Reduction
from .pi import PiDialect

if TYPE_CHECKING:
    from ..runtime import Outcome
    from ._base import Call


class LastResultReduction(Reduction):
    """omp's rule: handlers all see the original event; the last non-empty answer is the result.

    A ``stop_on`` answer (block, cancel) still ends the call, and fail-closed hooks still fail
    closed: both come from :class:`Reduction`, which this class runs on an empty result per answer.
    """

    _fields: dict[str, Any] | None = None

    def accept(self, plugin: str, answer: Any) -> bool:
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

    def _apply_chain(self, fields: dict[str, Any]) -> None:
        self._fields = fields
        for name in self.hd.chain:  # into the result only: the next handler sees the original
            if name in fields:
                self.result[name] = fields[name]


#: canonical hooks whose omp rule is "the latest result wins"
LAST_RESULT_HOOKS = frozenset({
    "pre_tool", "pre_tool_output", "pre_session_switch", "pre_session_fork", "pre_compact",
    "pre_session_tree", "on_compacting",
})


class OmpDialect(PiDialect):
    name = "omp"
    systems = ("omp",)
    mutable_input = False

    def reduction(self, hook: str) -> Any:
        return LastResultReduction if hook in LAST_RESULT_HOOKS else None

    def _native_before_agent_start(self, call: Call, outcome: Outcome, data: dict[str, Any]) -> Any:
        messages = data.get("messages")
        return {"message": _camel_message(messages[0])} if messages else None

    def _native_pre_tool(self, call: Call, outcome: Outcome, data: dict[str, Any]) -> Any:
        if data.get("block"):
            return {"block": True, "reason": data.get("reason") or data.get("message") or "blocked"}
        native = {name: data[name] for name in ("block", "reason") if name in data}
        return native or None


def _camel_message(message: Any) -> Any:
    from ._base import camel_keys

    return camel_keys(message)


DIALECT = OmpDialect()
