"""Handler signatures, sync and async handlers, and what a handler may return."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
from agent_hooks_core import HookContext, HookEvent, Runtime, hookimpl
from agent_hooks_core.hookspecs.models import PreMessageResult, PreToolResult

from .helpers import plugin

PAYLOAD = {"tool_name": "shell", "arguments": {"command": "ls"}}


@pytest.mark.parametrize("mode", ["fire", "afire"])
def test_event_and_ctx_signatures(mode: str) -> None:
    got: dict[str, Any] = {}

    def only_event(event: HookEvent) -> None:
        got["event"] = event

    def event_and_ctx(event: HookEvent, ctx: HookContext) -> None:
        got["both"] = (event, ctx)

    def only_ctx(ctx: HookContext) -> None:
        got["ctx"] = ctx

    def nothing() -> None:
        got["nothing"] = True

    rt = Runtime([plugin("a", post_tool=only_event), plugin("b", post_tool=event_and_ctx),
                  plugin("c", post_tool=only_ctx), plugin("d", post_tool=nothing)], cwd="/somewhere")
    out = rt.fire("post_tool", PAYLOAD) if mode == "fire" else asyncio.run(rt.afire("post_tool", PAYLOAD))
    assert out.handlers == ["a", "b", "c", "d"] and not out.errors
    assert isinstance(got["event"], HookEvent) and got["event"].tool_name == "shell"
    event, ctx = got["both"]
    assert event["arguments"] == {"command": "ls"} and ctx.plugin == "b" and ctx.cwd == "/somewhere"
    assert got["ctx"].plugin == "c"
    assert got["nothing"] is True


def test_ctx_must_come_last() -> None:
    def backwards(ctx: Any, event: Any) -> None: ...

    with pytest.raises(Exception, match="take ctx last"):
        Runtime([plugin("p", post_tool=backwards)])


def _mixed_plugins(log: list[str]) -> list[Any]:
    async def a1(event: HookEvent) -> dict[str, Any]:
        await asyncio.sleep(0.01)  # a slow async handler still answers before the next one runs
        log.append(f"a1 saw {event.prompt}")
        return {"prompt": event.prompt + " +a1"}

    def s2(event: HookEvent) -> dict[str, Any]:
        log.append(f"s2 saw {event.prompt}")
        return {"prompt": event.prompt + " +s2"}

    async def a3(event: HookEvent, ctx: HookContext) -> dict[str, Any]:
        await asyncio.sleep(0)
        log.append(f"a3 saw {event.prompt}")
        return {"handled": True}

    def s4(event: HookEvent) -> None:
        log.append("s4")

    return [plugin("a1", pre_message=a1), plugin("s2", pre_message=s2), plugin("a3", pre_message=a3),
            plugin("s4", pre_message=s4)]


EXPECTED_LOG = ["a1 saw hi", "s2 saw hi +a1", "a3 saw hi +a1 +s2"]


@pytest.mark.parametrize("mode", ["fire", "afire", "fire-in-running-loop"])
def test_async_handlers_keep_chain_and_short_circuit_order(mode: str) -> None:
    log: list[str] = []
    rt = Runtime(_mixed_plugins(log))
    if mode == "fire":
        out = rt.fire("pre_message", {"prompt": "hi"})
    elif mode == "afire":
        out = asyncio.run(rt.afire("pre_message", {"prompt": "hi"}))
    else:  # a sync host call made from async code: the async handlers run on another loop
        async def host() -> Any:
            return rt.fire("pre_message", {"prompt": "hi"})

        out = asyncio.run(host())
    assert log == EXPECTED_LOG  # s4 never runs: a3 handled the prompt
    assert out.data == {"prompt": "hi +a1 +s2", "handled": True}
    assert out.handlers == ["a1", "s2", "a3"] and out.answered == ["a1", "s2", "a3"]
    assert out.decision == "blocked"


def test_concurrent_afire_calls_interleave_but_each_keeps_its_order() -> None:
    log: list[str] = []

    async def slow(event: HookEvent) -> None:
        log.append(f"slow start {event.prompt}")
        await asyncio.sleep(0.02)
        log.append(f"slow end {event.prompt}")

    def fast(event: HookEvent) -> dict[str, Any]:
        log.append(f"fast {event.prompt}")
        return {"prompt": event.prompt.upper()}

    rt = Runtime([plugin("slow", pre_message=slow), plugin("fast", pre_message=fast)])

    async def both() -> list[Any]:
        return list(await asyncio.gather(rt.afire("pre_message", {"prompt": "x"}),
                                         rt.afire("pre_message", {"prompt": "y"})))

    outs = asyncio.run(both())
    assert [o.data for o in outs] == [{"prompt": "X"}, {"prompt": "Y"}]
    for p in "xy":
        mine = [e for e in log if e.endswith(p)]
        assert mine == [f"slow start {p}", f"slow end {p}", f"fast {p}"]
    assert log.index("slow start y") < log.index("slow end x")  # really concurrent


@pytest.mark.parametrize("mode", ["fire", "afire"])
def test_awaitables_returned_by_sync_callables_are_awaited(mode: str) -> None:
    async def answer(prompt: str) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"prompt": prompt}

    def returns_coroutine(event: HookEvent) -> Any:
        return answer(event.prompt + "!")

    def logged(func: Any) -> Any:  # a decorator that hides that the function is async
        @functools.wraps(func)
        def wrapper(*args: Any) -> Any:
            return func(*args)

        return wrapper

    class P:
        @hookimpl
        @logged
        async def pre_message(self, event: HookEvent) -> dict[str, Any]:
            return {"prompt": event.prompt + "?"}

    rt = Runtime([plugin("a", pre_message=returns_coroutine), ("b", P())])
    assert rt.implementers("pre_message") == ["a", "b"]
    out = rt.fire("pre_message", {"prompt": "hi"}) if mode == "fire" else asyncio.run(
        rt.afire("pre_message", {"prompt": "hi"}))
    assert out.data == {"prompt": "hi!?"} and not out.errors


@pytest.mark.parametrize(("answer", "data"), [
    (None, {}),
    ({}, {}),
    ({"arguments": {"command": "pwd"}}, {"arguments": {"command": "pwd"}}),
    (PreToolResult(arguments={"command": "pwd"}), {"arguments": {"command": "pwd"}}),
    (PreToolResult(block=True, reason="no"), {"block": True, "reason": "no", "message": "no"}),
    (PreToolResult(), {}),
])
def test_dict_model_or_none(answer: Any, data: dict[str, Any]) -> None:
    out = Runtime([plugin("p", pre_tool=lambda event: answer)]).fire("pre_tool", PAYLOAD)
    assert out.data == data and not out.errors


def test_a_model_of_another_hook_is_an_invalid_answer() -> None:
    out = Runtime([plugin("p", pre_tool=lambda event: PreMessageResult(prompt="x"))]).fire("pre_tool", PAYLOAD)
    assert out.decision == "blocked"
    assert [e.kind for e in out.errors] == ["invalid"] and "unknown result field 'prompt'" in out.errors[0].message


def test_dict_subclass_answers_are_plain_dicts() -> None:
    class Answer(dict):  # type: ignore[type-arg]
        pass

    out = Runtime([plugin("p", pre_message=lambda event: Answer(prompt="x"))]).fire("pre_message", {"prompt": "a"})
    assert out.data == {"prompt": "x"} and type(out.data["prompt"]) is str


def test_handlers_see_a_hook_event_with_attribute_access() -> None:
    seen: list[Any] = []
    rt = Runtime([plugin("p", pre_send_message=lambda event: seen.append(event))])
    rt.fire("pre_send_message", {"from": "default", "to": "research", "extra_field": 1})
    event = seen[0]
    assert event.hook == "pre_send_message"
    assert event.from_ == "default" and event["from"] == "default"
    assert event.to == "research" and event.extra_field == 1
    assert event.content is None  # a declared optional field the host did not send
    with pytest.raises(AttributeError, match="pre_send_message event has no field 'nope'"):
        _ = event.nope
    assert event.model().from_ == "default"
