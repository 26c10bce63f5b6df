"""Wrap a Python host's tool so every call goes through the hooks (seed 002's HookToolWrapper).

pre_tool (may rewrite arguments or block) → the tool → pre_tool_output (may rewrite the output;
also fired on error with ``is_error``, after which the error is re-raised) → post_tool.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from .engine import Steps, adrive, drive
from .errors import AgentHooksError
from .runtime import Outcome
from .timeouts import run_coroutine

if TYPE_CHECKING:
    from .runtime import Runtime

#: what the steps ask of the driver: fire a hook with a payload, or run the tool with its arguments
Request = tuple[Literal["fire"], str, dict[str, object]] | tuple[Literal["run"], dict[str, object]]


class ToolBlocked(AgentHooksError):
    """pre_tool blocked the call; ``str()`` is the reason."""

    def __init__(self, reason: str, outcome: Outcome) -> None:
        super().__init__(reason)
        self.outcome = outcome


def _data(out: object) -> dict[str, object]:
    """The combined answer of a ``("fire", ...)`` request's result (an :class:`Outcome`)."""
    return (out.data if isinstance(out, Outcome) else None) or {}


def _output_field(value: object) -> str:
    """Where a tool's return value goes in the event: text, content blocks, or anything else."""
    if isinstance(value, str):
        return "output"
    if isinstance(value, list):
        return "content"
    return "details"


def _apply_output(value: object, out: object) -> object:
    """The value the caller gets: the replacement ``message`` when blocked, else the same-kind field."""
    data = _data(out)
    if data.get("block"):
        return data.get("message") or ""
    return data.get(_output_field(value), value)


class HookToolWrapper:
    """``wrapped(**arguments)`` runs ``func`` between the tool hooks of ``runtime``."""

    def __init__(self, runtime: Runtime, tool_name: str, func: Callable[..., object]) -> None:
        self.runtime = runtime
        self.tool_name = tool_name
        self.func = func

    def _pre(self, out: object, arguments: dict[str, object]) -> dict[str, object]:
        data = _data(out)
        if data.get("block") and isinstance(out, Outcome):
            raise ToolBlocked(str(data.get("reason") or data.get("message") or "blocked"), out)
        changed = data.get("arguments", arguments)  # the reducer checked it is an object
        return changed if isinstance(changed, dict) else arguments

    def _base(self, arguments: dict[str, object], call_id: str | None) -> dict[str, object]:
        base: dict[str, object] = {"tool_name": self.tool_name, "arguments": arguments}
        if call_id is not None:
            base["tool_call_id"] = call_id
        return base

    def _steps(self, tool_call_id: str | None, arguments: dict[str, object]) -> Steps[Request, object]:
        """The tool call, once: yields ("fire", hook, payload) and ("run", arguments) requests."""
        arguments = self._pre((yield ("fire", "pre_tool", self._base(arguments, tool_call_id))), arguments)
        base = self._base(arguments, tool_call_id)
        try:
            value = yield ("run", arguments)
        except Exception as exc:
            yield ("fire", "pre_tool_output", {**base, "output": str(exc), "is_error": True})
            yield ("fire", "post_tool", {**base, "result": str(exc), "is_error": True})
            raise
        value = _apply_output(value, (yield ("fire", "pre_tool_output", {**base, _output_field(value): value})))
        yield ("fire", "post_tool", {**base, "result": value, "is_error": False})
        return value

    def __call__(self, tool_call_id: str | None = None, **arguments: object) -> object:
        def perform(request: Request) -> object:
            if len(request) == 3:  # ("fire", hook, payload)
                return self.runtime.fire(request[1], request[2])
            value = self.func(**request[1])
            return run_coroutine(value, None) if inspect.isawaitable(value) else value  # an async tool, sync host

        return drive(self._steps(tool_call_id, arguments), perform)

    async def acall(self, tool_call_id: str | None = None, **arguments: object) -> object:
        async def perform(request: Request) -> object:
            if len(request) == 3:  # ("fire", hook, payload)
                return await self.runtime.afire(request[1], request[2])
            value = self.func(**request[1])
            return (await value) if isinstance(value, Awaitable) else value

        return await adrive(self._steps(tool_call_id, arguments), perform)
