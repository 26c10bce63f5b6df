"""Dialects: fire hooks by a seed system's own names and payload shapes, get its result shapes back.

``rt.fire("tool_call", {"toolName": "bash", "input": {...}}, dialect="pi")`` translates the pi
event into the canonical ``pre_tool`` call, fires it through every plugin, and returns the
:class:`~agent_hooks_core.runtime.Outcome` with ``outcome.native`` set to pi's own result shape
(``{"block": True, "reason": ...}``, or None when no plugin had an opinion).

========== ====================================================================================
dialect    names and shapes
========== ====================================================================================
chibi      chibi's hook names and snake_case JSON; results as a chibi plugin prints them
           (``{}`` = no opinion). Seeds 000/001.
pi         pi's extension events (``input``, ``tool_call``, ``context``, ``session_before_*``, ...)
           and the pi-coding-agent hooks' single ``session`` event with its ``reason``; camelCase
           fields; results in pi's shapes. ``pi-ext`` and ``pi-agent`` are the same dialect.
           Seeds 003/004.
omp        oh-my-pi's hook events, shapes as pi, and omp's own conflict rules (tool_call: the last
           result wins unless a handler blocks; tool_result: the last override wins; the first
           before_agent_start message is kept; session_before_*: the latest result). Seed 002.
========== ====================================================================================

This package is imported by ``agenthooks chibi`` (a fresh process per chibi hook call): it imports
nothing heavy, and each dialect module is imported only when that dialect is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ..runtime import Outcome, Runtime
    from ._base import Call, Dialect

#: dialect name -> module implementing it (``DIALECT`` in that module)
DIALECTS: dict[str, str] = {
    "chibi": "chibi",
    "pi": "pi",
    "pi-ext": "pi",
    "pi-agent": "pi",
    "omp": "omp",
}

__all__ = ["DIALECTS", "afire_dialect", "fire_dialect", "get_dialect"]


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name`` (chibi, pi, pi-ext, pi-agent, omp).

    Raises :class:`~agent_hooks_core.dialects._base.UnknownDialectError` (an ``AgentHooksError``
    and a ``ValueError``) for any other name.
    """
    module_name = DIALECTS.get(name)
    if module_name is None:
        from ._base import UnknownDialectError

        raise UnknownDialectError(f"unknown dialect {name!r}; one of canonical, {', '.join(DIALECTS)}")
    import importlib

    module = importlib.import_module(f"{__name__}.{module_name}")
    return cast("Dialect", module.DIALECT)


def fire_dialect(rt: Runtime, dialect: str, name: str, payload: object) -> Outcome:
    """Fire the seed hook ``name`` of ``dialect`` with the seed-shaped ``payload``.

    Raises :class:`~agent_hooks_core.errors.UnknownHookError` for a name the dialect does not have
    and :class:`~agent_hooks_core.errors.PayloadError` for a payload it cannot translate.
    """
    d, call = _translate(dialect, name, payload)
    with _in_host_words(d, call):
        outcome = rt.fire(call.hook, call.payload, reduction=call.reduction)
    outcome.native = d.native(call, outcome)
    return outcome


async def afire_dialect(rt: Runtime, dialect: str, name: str, payload: object) -> Outcome:
    """Like :func:`fire_dialect`, through :meth:`Runtime.afire`."""
    d, call = _translate(dialect, name, payload)
    with _in_host_words(d, call):
        outcome = await rt.afire(call.hook, call.payload, reduction=call.reduction)
    outcome.native = d.native(call, outcome)
    return outcome


def _translate(dialect: str, name: str, payload: object) -> tuple[Dialect, Call]:
    d = get_dialect(dialect)
    return d, d.translate(name, payload)


@contextmanager
def _in_host_words(d: Dialect, call: Call) -> Iterator[None]:
    """A PayloadError about the canonical payload, reworded with the host's hook and field names."""
    from ..errors import PayloadError

    try:
        yield
    except PayloadError as exc:
        raise d.payload_error(call, exc) from None
