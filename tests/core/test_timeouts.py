"""Timeouts a hung handler cannot defeat: sync (sleep, busy loop) and async, in and off the main thread."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.errors import ConfigError, HookTimeout
from agent_hooks_core.timeouts import GRACE

from .helpers import plugin

TIMEOUT = 0.2
#: how late a timeout may be reported (watchdog tick, thread start, a loaded CI machine)
SLACK = GRACE + 0.6


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Hung handlers poll this, so the ones abandoned in worker threads stop after the test."""
    event = threading.Event()
    yield event
    event.set()


def hang_sleep(release: threading.Event) -> Callable[..., Any]:
    def handler(event: Any) -> None:
        while not release.is_set():
            time.sleep(0.005)

    return handler


def hang_busy(release: threading.Event) -> Callable[..., Any]:
    def handler(event: Any) -> None:
        while not release.is_set():
            pass

    return handler


def hang_async(release: threading.Event) -> Callable[..., Any]:
    async def handler(event: Any) -> None:
        while not release.is_set():
            await asyncio.sleep(0.005)

    return handler


def hang_async_blocking(release: threading.Event) -> Callable[..., Any]:
    async def handler(event: Any) -> None:  # an async def that blocks instead of awaiting
        while not release.is_set():
            time.sleep(0.005)

    return handler


HANGS = {"sleep": hang_sleep, "busy": hang_busy, "async": hang_async, "async-blocking": hang_async_blocking}


def _fire(rt: Runtime, where: str, hook: str, payload: dict[str, Any]) -> Any:
    if where == "fire":
        return rt.fire(hook, payload)
    if where == "afire":
        return asyncio.run(rt.afire(hook, payload))
    box: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: box.setdefault("out", rt.fire(hook, payload)))
    worker.start()
    worker.join(10)
    return box["out"]


@pytest.mark.parametrize("where", ["fire", "afire", "worker-thread"])
@pytest.mark.parametrize("kind", list(HANGS))
def test_a_hung_handler_times_out_and_the_rest_run(kind: str, where: str, release: threading.Event) -> None:
    after: list[str] = []
    rt = Runtime([plugin("hung", post_tool=HANGS[kind](release)),
                  plugin("next", post_tool=lambda event: after.append("ran"))], hook_timeout=TIMEOUT)
    start = time.monotonic()
    out = _fire(rt, where, "post_tool", {"tool_name": "t"})
    elapsed = time.monotonic() - start
    assert TIMEOUT <= elapsed < TIMEOUT + SLACK, elapsed
    assert [(e.plugin, e.kind, e.message) for e in out.errors] == [("hung", "timeout", "timed out after 0.2s")]
    assert after == ["ran"] and out.handlers == ["hung", "next"]


@pytest.mark.parametrize("where", ["fire", "afire"])
def test_a_hung_async_handler_is_cancelled(where: str) -> None:
    seen: list[str] = []

    async def waits(event: Any) -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    rt = Runtime([plugin("waits", turn_start=waits)], hook_timeout=TIMEOUT)
    out = _fire(rt, where, "turn_start", {})
    assert [e.kind for e in out.errors] == ["timeout"]
    assert seen == ["cancelled"]


def test_pre_tool_has_no_default_timeout() -> None:
    def slow(event: Any) -> dict[str, Any]:
        time.sleep(0.3)  # e.g. waiting for the user's answer
        return {"block": True, "reason": "user said no"}

    out = Runtime([plugin("ask", pre_tool=slow)], hook_timeout=0.1).fire("pre_tool", {"tool_name": "t"})
    assert out.errors == [] and out.reason == "user said no"


@pytest.mark.parametrize(("options", "timed_out"), [
    ({"hook_timeout": 0.1}, True),
    ({"hook_timeout": None}, False),
    ({"hook_timeout": 0.1, "timeouts": {"post_tool": None}}, False),
    ({"hook_timeout": 30, "timeouts": {"post_tool": 0.1}}, True),
    ({"hook_timeout": 0.1, "timeouts": {"pre_tool": 5}}, True),
])
def test_configurable_timeouts(options: dict[str, Any], timed_out: bool) -> None:
    out = Runtime([plugin("slow", post_tool=lambda event: time.sleep(0.3))], **options).fire(
        "post_tool", {"tool_name": "t"})
    assert [e.kind for e in out.errors] == (["timeout"] if timed_out else [])


def test_pre_tool_timeout_when_configured_blocks() -> None:
    out = Runtime([plugin("slow", pre_tool=lambda event: time.sleep(5))], timeouts={"pre_tool": 0.1}).fire(
        "pre_tool", {"tool_name": "t"})
    assert out.decision == "blocked" and "slow failed (timed out after 0.1s)" in out.reason


@pytest.mark.parametrize(("options", "message"), [
    ({"timeouts": {"pre_tol": 1}}, "timeouts: unknown hook 'pre_tol' (did you mean 'pre_tool'?)"),
    ({"timeouts": {"post_tool": -1}}, "timeouts.post_tool must be a positive number of seconds or None, not -1"),
    ({"timeouts": {"post_tool": "5"}}, "not '5'"),
    ({"hook_timeout": 0}, "hook_timeout must be a positive number"),
    ({"hook_timeout": True}, "not True"),
    ({"default_fallback": "call_bot"}, "default_fallback must be call_agent or call_user"),
])
def test_bad_runtime_options_are_one_line_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        Runtime(**options)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_nested_fire_keeps_the_outer_deadline(release: threading.Event) -> None:
    """The outer handler's deadline passes while an inner hook's handler hangs: the outer one is abandoned."""
    def outer(event: Any, ctx: Any) -> None:
        ctx.runtime.fire("turn_start", {})
        time.sleep(5)  # never reached in time

    rt = Runtime([plugin("outer", post_tool=outer), plugin("inner", turn_start=hang_sleep(release))],
                 hook_timeout=TIMEOUT, timeouts={"turn_start": 10})
    start = time.monotonic()
    out = rt.fire("post_tool", {"tool_name": "t"})
    assert time.monotonic() - start < TIMEOUT + SLACK
    assert [(e.plugin, e.kind) for e in out.errors] == [("outer", "timeout")]


def test_nested_inner_timeout_is_the_inner_handlers(release: threading.Event) -> None:
    inner_out: list[Any] = []

    def outer(event: Any, ctx: Any) -> None:
        inner_out.append(ctx.runtime.fire("turn_start", {}))
        time.sleep(0.05)  # the outer handler goes on, within its own deadline

    rt = Runtime([plugin("outer", post_tool=outer), plugin("inner", turn_start=hang_sleep(release))],
                 hook_timeout=1.0, timeouts={"turn_start": 0.1})
    out = rt.fire("post_tool", {"tool_name": "t"})
    assert out.errors == []
    assert [(e.plugin, e.kind) for e in inner_out[0].errors] == [("inner", "timeout")]
    # after a timeout the watchdog is disarmed: a handler within its deadline is left alone
    out = Runtime([plugin("ok", post_tool=lambda event: time.sleep(0.1))], hook_timeout=0.3).fire(
        "post_tool", {"tool_name": "t"})
    assert out.errors == []


def test_a_handler_that_swallows_the_timeout_loses_its_answer() -> None:
    def stubborn(event: Any) -> dict[str, Any]:
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        return {"prompt": "too late"}

    out = Runtime([plugin("stubborn", pre_message=stubborn)], hook_timeout=0.1).fire("pre_message", {"prompt": "a"})
    assert out.data == {} and [e.kind for e in out.errors] == ["timeout"]


def test_a_foreign_sigalrm_reaches_the_previous_handler() -> None:
    got: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: got.append(signum))
    try:
        Runtime([plugin("p", post_tool=lambda event: None)], hook_timeout=1).fire("post_tool", {"tool_name": "t"})
        signal.raise_signal(signal.SIGALRM)  # not sent by the watchdog: forwarded
        assert got == [signal.SIGALRM]
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_hook_timeout_is_a_base_exception() -> None:
    """A plugin's ``except Exception`` cannot swallow it."""
    assert not issubclass(HookTimeout, Exception)
