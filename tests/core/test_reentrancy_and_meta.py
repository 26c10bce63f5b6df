"""The re-entrancy guard (chibi's rule) and the ``hook_called`` meta hook."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from agent_hooks_core import Outcome, Runtime

from .helpers import plugin


def test_firing_a_hook_from_its_own_handler_skips_in_process_handlers() -> None:
    inner: list[Outcome] = []
    calls: list[str] = []

    def guard(event: Any, ctx: Any) -> None:
        calls.append(f"guard {event.tool_name}")
        if event.tool_name == "outer":
            inner.append(ctx.runtime.fire("pre_tool", {"tool_name": "inner"}))

    def external(event: Any) -> None:
        calls.append(f"external {event.tool_name}")

    rt = Runtime([plugin("guard", pre_tool=guard)])
    rt.register(plugin("chibi_plugin", pre_tool=external), external=True)
    out = rt.fire("pre_tool", {"tool_name": "outer"})
    assert calls == ["guard outer", "external inner", "external outer"]
    assert inner[0].handlers == ["chibi_plugin"]
    assert inner[0].notes == ["re-entrant pre_tool: in-process handlers skipped (guard)"]
    assert out.notes == [] and out.handlers == ["guard", "chibi_plugin"]


@pytest.mark.parametrize("hook", ["pre_file_read", "pre_file_write", "pre_shell_exec"])
def test_a_re_entrant_permission_check_with_no_handler_left_is_denied(hook: str) -> None:
    inner: list[Outcome] = []
    payload = {"path": "/x", "command": "ls"}

    def handler(event: Any, ctx: Any) -> None:
        inner.append(ctx.runtime.fire(hook, payload))

    out = Runtime([plugin("p", **{hook: handler})]).fire(hook, payload)
    assert out.data == {"denied": False}
    assert inner[0].decision == "denied" and "fail-safe" in inner[0].reason
    assert inner[0].notes


def test_other_hooks_fired_from_a_handler_run_normally() -> None:
    calls: list[str] = []

    def on_tool(event: Any, ctx: Any) -> None:
        calls.append("pre_tool")
        ctx.runtime.fire("post_tool", {"tool_name": "t"})

    rt = Runtime([plugin("p", pre_tool=on_tool, post_tool=lambda event: calls.append("post_tool"))])
    rt.fire("pre_tool", {"tool_name": "t"})
    assert calls == ["pre_tool", "post_tool"]


def test_the_guard_is_per_call_chain_not_per_thread_or_loop() -> None:
    """Two concurrent pre_tool calls (tasks or threads) are not re-entrant: both run the guard."""
    async def slow_guard(event: Any) -> dict[str, Any]:
        await asyncio.sleep(0.02)
        return {"block": True, "reason": f"blocked {event.tool_name}"}

    rt = Runtime([plugin("guard", pre_tool=slow_guard)])

    async def both() -> list[Outcome]:
        return list(await asyncio.gather(*(rt.afire("pre_tool", {"tool_name": n}) for n in "ab")))

    outs = asyncio.run(both())
    assert [o.reason for o in outs] == ["blocked a", "blocked b"] and all(not o.notes for o in outs)

    def slow_sync(event: Any) -> dict[str, Any]:
        time.sleep(0.02)
        return {"block": True}

    rt = Runtime([plugin("guard", pre_tool=slow_sync)])
    results: list[Outcome] = []
    threads = [threading.Thread(target=lambda: results.append(rt.fire("pre_tool", {"tool_name": "t"})))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [o.decision for o in results] == ["blocked"] * 4


def test_the_guard_follows_a_handler_into_its_worker_thread() -> None:
    """Off the main thread a handler with a timeout runs in a worker thread; it is still the same call."""
    inner: list[Outcome] = []

    def handler(event: Any, ctx: Any) -> None:
        if event.tool_name == "outer":
            inner.append(ctx.runtime.fire("post_tool", {"tool_name": "inner"}))

    rt = Runtime([plugin("p", post_tool=handler)], hook_timeout=5)
    worker = threading.Thread(target=lambda: rt.fire("post_tool", {"tool_name": "outer"}))
    worker.start()
    worker.join(5)
    assert inner and inner[0].handlers == [] and inner[0].notes


# -- hook_called ---------------------------------------------------------------------------------


def test_hook_called_sees_every_fire() -> None:
    seen: list[Outcome] = []
    contexts: list[Any] = []

    def meta(outcome: Outcome, ctx: Any) -> None:
        seen.append(outcome)
        contexts.append(ctx)

    rt = Runtime([plugin("audit", hook_called=meta),
                  plugin("guard", pre_tool=lambda event: {"block": True, "reason": "no"}),
                  plugin("broken", post_tool=lambda event: 1 / 0)], host="test-host", session_id="s1")
    rt.fire("pre_tool", {"tool_name": "t"})
    rt.fire("post_tool", {"tool_name": "t"})
    first, second = seen
    assert (first.hook, first.decision, first.answered, first.reason) == ("pre_tool", "blocked", ["guard"], "no")
    assert first.event["tool_name"] == "t" and first.data["block"] is True and first.duration >= 0
    assert second.hook == "post_tool" and second.data is None and second.handlers == ["broken"]
    assert [(e.plugin, e.message) for e in second.errors] == [("broken", "ZeroDivisionError: division by zero")]
    assert contexts[0].plugin == "audit" and contexts[0].host == "test-host" and contexts[0].session_id == "s1"
    assert first.to_dict()["decision"] == "blocked"


@pytest.mark.parametrize("mode", ["fire", "afire"])
def test_hook_called_errors_are_isolated_and_recorded(mode: str) -> None:
    calls: list[str] = []

    async def async_meta(outcome: Outcome) -> None:
        await asyncio.sleep(0)
        calls.append("async")

    rt = Runtime([plugin("bad", hook_called=lambda outcome: 1 / 0), plugin("good", hook_called=async_meta),
                  plugin("p", pre_message=lambda event: {"prompt": "x"})])
    out = rt.fire("pre_message", {"prompt": "a"}) if mode == "fire" else asyncio.run(
        rt.afire("pre_message", {"prompt": "a"}))
    assert out.data == {"prompt": "x"} and calls == ["async"]
    assert [(e.plugin, e.hook, e.kind) for e in out.errors] == [("bad", "hook_called", "error")]


def test_hook_called_has_a_timeout() -> None:
    rt = Runtime([plugin("slow", hook_called=lambda outcome: time.sleep(5))], timeouts={"hook_called": 0.1})
    start = time.monotonic()
    out = rt.fire("agent_start", {})
    assert time.monotonic() - start < 1.5
    assert [(e.plugin, e.kind) for e in out.errors] == [("slow", "timeout")]


def test_hooks_fired_from_hook_called_do_not_re_enter_it() -> None:
    seen: list[str] = []

    def meta(outcome: Outcome, ctx: Any) -> None:
        seen.append(outcome.hook)
        if outcome.hook == "turn_start":
            ctx.runtime.fire("turn_end", {})

    Runtime([plugin("audit", hook_called=meta)]).fire("turn_start", {})
    assert seen == ["turn_start"]
