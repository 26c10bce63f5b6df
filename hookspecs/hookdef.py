"""What a canonical hook is: :class:`HookDef`, and :func:`canonical`, the decorator that declares one.

A canonical hook is declared once, on its hookspec in :mod:`.specs`::

    @canonical("tool", "chain(arguments) + short-circuit(block) + fail-closed",
               event="PreToolEvent", result="PreToolResult",
               chain=("arguments",), stop_on=("block",), fail_closed=True)
    def pre_tool(event, ctx):
        '''The model asked for a tool call; before the tool runs.

        ...
        '''

The first paragraph of the docstring is the hook's summary; the decorator's arguments are its
combination rule (read by :mod:`agent_hooks_core.reducer`), its seed aliases and the names of its
pydantic models in :mod:`.models`. The catalogue, ``agenthooks hooks``, docs/hooks.md and every
count are derived from these declarations. Models are named, not imported: the runtime reads the
declarations on its hot path and must not import pydantic.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from .markers import hookspec

Category = Literal[
    "session", "message", "agent", "tool", "api", "loop", "permission", "subagent", "cache",
    "delivery", "index", "context", "resources",
]

F = TypeVar("F", bound=Callable[..., object])

#: The attribute :func:`canonical` sets on a hookspec function.
ATTRIBUTE = "agent_hooks_def"


@dataclass(frozen=True)
class HookDef:
    """One canonical hook and the rule that combines its answers.

    The rule fields are read by :mod:`agent_hooks_core.reducer`; ``rule`` is the human text.
    """

    name: str
    category: Category
    summary: str
    rule: str
    event_model: str = ""
    """The name of the event payload's model in :mod:`agent_hooks_core.hookspecs.models`."""
    result_model: str | None = None
    """The name of the result model there; None for observe hooks."""
    chain: tuple[str, ...] = ()
    """Fields each handler may replace; the next handler sees the new value (chain)."""
    stop_on: tuple[str, ...] = ()
    """A truthy value in any of these fields ends the call; that answer wins (short-circuit)."""
    concat: tuple[str, ...] = ()
    """String fields joined in handler order (concat)."""
    accumulate: tuple[tuple[str, str], ...] = ()
    """(answer field, result list) pairs: values from every handler, in order (accumulate)."""
    last_wins: tuple[str, ...] = ()
    """The last handler that sets the field wins (last-wins)."""
    first_result: bool = False
    """The first non-empty answer wins and ends the call (pluggy ``firstresult``)."""
    first_result_needs: tuple[str, ...] = ()
    """For first-result hooks: an answer counts only if one of these fields is truthy."""
    merge_patch: str | None = None
    """A field applied in order as an RFC 7386 JSON merge patch."""
    permission: bool = False
    """deny-wins: any ``denied: true`` denies, first reason kept."""
    deny_without_handler: bool = False
    """No handler registered: denied (fail-safe)."""
    fail_closed: bool = False
    """A handler error or invalid answer blocks (or denies) instead of being skipped."""
    tool_filter: bool = False
    """include-intersection + exclude-union over ``tools``."""
    fuel: bool = False
    """saturating-sum of ``fuel_delta`` and the fallback precedence of the agentic loop."""
    deep_copy: tuple[str, ...] = ()
    """Payload fields deep-copied before the first handler sees them."""
    computed: tuple[str, ...] = ()
    """Result fields only the runtime sets in the combined result; an answer setting one is invalid."""
    timeout: bool = True
    """False: no default timeout (the hook may prompt the user), like pi's tool_call."""
    bounded: bool = False
    """The stop gate's bound: the runtime passes ``continuations`` (in a row, this session) and
    ``limit`` (the user's ``stop_gate_limit``) in the payload; at the limit a ``continue`` is overruled."""
    verdict: bool = False
    """The permission decision: deny wins, then ask, then allow; an allow counts only from a plugin
    that declares ``agent_hooks_approver = True``; no answer passes through to the host's prompt."""
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Seed system -> that system's names for this hook."""

    @property
    def observe(self) -> bool:
        """True when answers are ignored and every handler runs."""
        return not (
            self.chain or self.stop_on or self.concat or self.accumulate or self.last_wins
            or self.first_result or self.merge_patch or self.permission or self.tool_filter or self.fuel
            or self.verdict
        )


def summary_of(func: Callable[..., object]) -> str:
    """The first paragraph of ``func``'s docstring on one line, reST literals as Markdown."""
    doc = inspect.cleandoc(func.__doc__ or "")
    first = " ".join(doc.split("\n\n", 1)[0].split())
    if not first:
        raise TypeError(f"hookspec {func.__name__!r} has no docstring: its first paragraph is the summary")
    return first.replace("``", "`")


def canonical(
    category: Category,
    rule: str,
    *,
    event: str,
    result: str | None = None,
    aliases: Mapping[str, tuple[str, ...]] | None = None,
    chain: tuple[str, ...] = (),
    stop_on: tuple[str, ...] = (),
    concat: tuple[str, ...] = (),
    accumulate: tuple[tuple[str, str], ...] = (),
    last_wins: tuple[str, ...] = (),
    first_result: bool = False,
    first_result_needs: tuple[str, ...] = (),
    merge_patch: str | None = None,
    permission: bool = False,
    deny_without_handler: bool = False,
    fail_closed: bool = False,
    tool_filter: bool = False,
    fuel: bool = False,
    deep_copy: tuple[str, ...] = (),
    computed: tuple[str, ...] = (),
    timeout: bool = True,
    bounded: bool = False,
    verdict: bool = False,
) -> Callable[[F], F]:
    """Declare the decorated function as a canonical hook and a pluggy hookspec.

    ``category`` groups it in the docs; ``rule`` is the combination rule in words; ``event`` and
    ``result`` name its models in :mod:`.models` (``result`` None: an observe hook); the other
    keywords are the :class:`HookDef` fields of the same names.
    """

    def declare(func: F) -> F:
        hd = HookDef(
            name=func.__name__, category=category, summary=summary_of(func), rule=rule,
            event_model=event, result_model=result, chain=chain, stop_on=stop_on, concat=concat,
            accumulate=accumulate, last_wins=last_wins, first_result=first_result,
            first_result_needs=first_result_needs, merge_patch=merge_patch, permission=permission,
            deny_without_handler=deny_without_handler, fail_closed=fail_closed, tool_filter=tool_filter,
            fuel=fuel, deep_copy=deep_copy, computed=computed, timeout=timeout, bounded=bounded,
            verdict=verdict, aliases=dict(aliases or {}),
        )
        if (result is None) != hd.observe:
            raise TypeError(f"hook {hd.name!r}: a result model goes with a combination rule, and only with one")
        setattr(func, ATTRIBUTE, hd)
        marked: F = hookspec(firstresult=first_result)(func)
        return marked

    return declare


def declared(namespace: Mapping[str, object]) -> tuple[HookDef, ...]:
    """The hooks declared with :func:`canonical` in ``namespace`` (a module's ``vars()``), in order."""
    return tuple(getattr(obj, ATTRIBUTE) for obj in namespace.values() if hasattr(obj, ATTRIBUTE))
