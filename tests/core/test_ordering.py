"""Handler order: tryfirst/trylast, then the explicit ``order``, then load order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_hooks_core import Runtime

from .helpers import answering, plugin

# (plugins as (name, marker options) in load order, explicit order, expected call order)
ORDER_CASES = [
    ([("a", {}), ("b", {}), ("c", {})], [], ["a", "b", "c"]),
    ([("c", {}), ("b", {}), ("a", {})], [], ["c", "b", "a"]),
    ([("a", {}), ("b", {"tryfirst": True}), ("c", {})], [], ["b", "a", "c"]),
    ([("a", {"trylast": True}), ("b", {}), ("c", {})], [], ["b", "c", "a"]),
    ([("a", {"trylast": True}), ("b", {"tryfirst": True}), ("c", {})], [], ["b", "c", "a"]),
    ([("a", {}), ("b", {}), ("c", {})], ["c", "a"], ["c", "a", "b"]),
    ([("a", {}), ("b", {}), ("c", {})], ["b"], ["b", "a", "c"]),
    ([("a", {}), ("b", {}), ("c", {})], ["nobody", "c"], ["c", "a", "b"]),
    # the explicit order sorts within each marker group; it never overrides tryfirst/trylast
    ([("a", {"tryfirst": True}), ("b", {}), ("c", {"tryfirst": True})], ["c"], ["c", "a", "b"]),
    ([("a", {}), ("b", {"trylast": True}), ("c", {})], ["b", "c"], ["c", "a", "b"]),
    ([("a", {"tryfirst": True}), ("b", {"tryfirst": True}), ("c", {"trylast": True}), ("d", {"trylast": True})],
     ["d", "b"], ["b", "a", "d", "c"]),
]


@pytest.mark.parametrize(("plugins", "order", "expected"), ORDER_CASES)
def test_call_order(plugins: list[tuple[str, dict[str, Any]]], order: list[str], expected: list[str]) -> None:
    log: list[str] = []
    rt = Runtime([answering(name, "post_tool", None, log, **opts) for name, opts in plugins], order=order)
    out = rt.fire("post_tool", {"tool_name": "t"})
    assert log == expected
    assert out.handlers == expected
    assert rt.implementers("post_tool") == expected
    log.clear()
    asyncio.run(rt.afire("post_tool", {"tool_name": "t"}))
    assert log == expected


def test_load_order_is_list_order_and_named_tuples() -> None:
    log: list[str] = []
    rt = Runtime([("second", answering("x", "post_tool", None, log)), answering("y", "post_tool", None, log)])
    assert rt.plugins == ["second", "y"]
    rt.fire("post_tool", {"tool_name": "t"})
    assert log == ["x", "y"]  # the log names come from the plugins' own labels


def test_register_later_keeps_load_order_and_unregister() -> None:
    log: list[str] = []
    rt = Runtime([answering("a", "post_tool", None, log)])
    rt.register(answering("b", "post_tool", None, log, tryfirst=True))
    rt.register(answering("c", "post_tool", None, log))
    assert rt.implementers("post_tool") == ["b", "a", "c"]
    rt.unregister("a")
    assert rt.implementers("post_tool") == ["b", "c"]
    assert rt.plugins == ["b", "c"]


def test_order_decides_who_short_circuits() -> None:
    first = answering("first", "pre_tool", {"block": True, "reason": "first"})
    second = answering("second", "pre_tool", {"block": True, "reason": "second"})
    assert Runtime([first, second]).fire("pre_tool", {"tool_name": "t"}).reason == "first"
    first = answering("first", "pre_tool", {"block": True, "reason": "first"})
    second = answering("second", "pre_tool", {"block": True, "reason": "second"})
    assert Runtime([first, second], order=["second"]).fire("pre_tool", {"tool_name": "t"}).reason == "second"


def test_hooks_of_lists_a_plugins_hooks() -> None:
    p = plugin("p", pre_tool=lambda event: None, hook_called=lambda outcome: None, on_start=lambda: None)
    rt = Runtime([p])
    assert sorted(rt.hooks_of("p")) == ["hook_called", "on_start", "pre_tool"]
    assert [h.plugin for h in rt.handlers("pre_tool")] == ["p"]
