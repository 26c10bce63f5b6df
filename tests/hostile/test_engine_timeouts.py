"""In-process: a hook call returns by its deadline whatever the handler does.

Timed hooks run their handlers on worker threads the call abandons at the deadline
(``Runtime(bounded=True)``, the default): a handler that swallows every interrupt, or replaces the
SIGALRM handler, loses its answer and the call goes on. Budgets are "within N x the timeout".
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from agent_hooks_core import Runtime

from ..core.helpers import plugin

TIMEOUT = 0.3
BUDGET = 3 * TIMEOUT + 0.5  # thread start and a loaded machine; the handlers below never end by themselves


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """The hostile handlers poll this, so their abandoned threads end with the test."""
    event = threading.Event()
    yield event
    event.set()


def swallows_everything(release: threading.Event) -> Callable[..., Any]:
    def handler(event: Any) -> dict[str, Any]:
        while not release.is_set():
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        return {"block": True, "reason": "too late to count"}

    return handler


def replaces_sigalrm(release: threading.Event) -> Callable[..., Any]:
    swallow = swallows_everything(release)

    def handler(event: Any) -> dict[str, Any]:
        try:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)  # only possible in the main thread
        except ValueError:
            pass
        return swallow(event)

    return handler


def async_swallows(release: threading.Event) -> Callable[..., Any]:
    async def handler(event: Any) -> dict[str, Any]:
        while not release.is_set():
            try:
                time.sleep(0.01)  # blocks instead of awaiting, and swallows every interrupt
            except BaseException:
                pass
        return {"block": True, "reason": "too late to count"}

    return handler


HOSTILE = {"bare-except": swallows_everything, "sigalrm": replaces_sigalrm, "async-bare-except": async_swallows}


def _fire(rt: Runtime, where: str, hook: str, payload: dict[str, Any]) -> Any:
    if where == "fire":
        return rt.fire(hook, payload)
    if where == "afire":
        return asyncio.run(rt.afire(hook, payload))
    box: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: box.setdefault("out", rt.fire(hook, payload)), daemon=True)
    worker.start()
    worker.join(30)
    return box["out"]


#: an async handler under afire is awaited on the host's own loop: one that blocks it is interrupted
#: (main thread), not abandoned; see docs/architecture.md
CASES = [(kind, where) for kind in HOSTILE for where in ("fire", "afire", "worker-thread")
         if not (kind.startswith("async") and where == "afire")]


@pytest.mark.parametrize(("kind", "where"), CASES)
def test_a_handler_that_defeats_interrupts_is_abandoned(kind: str, where: str, release: threading.Event) -> None:
    after: list[str] = []
    previous = signal.getsignal(signal.SIGALRM)
    rt = Runtime([plugin("hostile", pre_message=HOSTILE[kind](release)),
                  plugin("next", pre_message=lambda event: after.append("ran"))], hook_timeout=TIMEOUT)
    start = time.monotonic()
    try:
        out = _fire(rt, where, "pre_message", {"prompt": "hi"})
    finally:
        signal.signal(signal.SIGALRM, previous)
    elapsed = time.monotonic() - start
    assert elapsed < BUDGET, elapsed
    assert [(e.plugin, e.kind) for e in out.errors] == [("hostile", "timeout")]
    assert after == ["ran"] and out.decision == "allowed" and out.stopped_by is None


@pytest.mark.parametrize("where", ["fire", "afire"])
def test_a_gate_timeout_bounds_pre_tool_and_fails_closed(where: str, release: threading.Event) -> None:
    """Bridges set gate_timeout: pre_tool (no default timeout in-process) then blocks by its deadline."""
    rt = Runtime([plugin("hostile", pre_tool=swallows_everything(release))], gate_timeout=TIMEOUT)
    start = time.monotonic()
    out = _fire(rt, where, "pre_tool", {"tool_name": "shell", "arguments": {"command": "rm -rf ~"}})
    assert time.monotonic() - start < BUDGET
    assert out.decision == "blocked" and out.stopped_by == "hostile"
    assert "hostile failed (timed out after 0.3s); pre_tool fails closed" in out.reason


def test_in_process_pre_tool_still_has_no_default_timeout() -> None:
    assert Runtime().gate_timeout is None
    out = Runtime([plugin("slow", pre_tool=lambda event: time.sleep(TIMEOUT + 0.1))], hook_timeout=0.1).fire(
        "pre_tool", {"tool_name": "t"})
    assert out.errors == [] and out.decision == "allowed"


def test_the_bridge_runtime_factory_sets_the_gate_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_hooks_core.runtime import BRIDGE_GATE_TIMEOUT
    from agent_hooks_core.transports import process

    seen: dict[str, Any] = {}
    monkeypatch.setattr(Runtime, "from_settings", classmethod(lambda cls, **kw: seen.update(kw)))
    process.default_runtime_factory(cwd="/tmp", hooks=[], settings=None)
    assert seen["gate_timeout"] == BRIDGE_GATE_TIMEOUT < process.DEFAULT_DEADLINE


def test_hook_called_is_bounded_too(release: threading.Event) -> None:
    hostile = swallows_everything(release)
    rt = Runtime([plugin("meta", hook_called=lambda outcome: hostile(outcome))], hook_timeout=TIMEOUT)
    start = time.monotonic()
    out = rt.fire("post_tool", {"tool_name": "t"})
    assert time.monotonic() - start < BUDGET
    assert [(e.plugin, e.hook, e.kind) for e in out.errors] == [("meta", "hook_called", "timeout")]


def test_bounded_false_keeps_the_calling_thread() -> None:
    """The opt-out runs handlers in the caller's thread (cheaper; interrupts by SIGALRM only)."""
    where: list[str] = []
    handler = plugin("p", post_tool=lambda event: where.append(threading.current_thread().name))
    Runtime([handler], hook_timeout=5, bounded=False).fire("post_tool", {"tool_name": "t"})
    assert where == [threading.current_thread().name]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_fires_on_fresh_workers() -> None:
    """The parent's idle worker threads do not exist in a fork: the child must not wait for them."""
    rt = Runtime([plugin("p", post_tool=lambda event: None)], hook_timeout=5)
    rt.fire("post_tool", {"tool_name": "t"})  # leaves an idle worker in the parent
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit code
        code = 3
        try:
            signal.alarm(10)  # a child that hangs dies of SIGALRM instead of hanging the test
            out = rt.fire("post_tool", {"tool_name": "t"})
            code = 0 if out.handlers == ["p"] and not out.errors else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_handler_that_forks_never_returns_twice() -> None:
    """In-process: the child of a forking handler ends; only the parent goes on."""
    parent = os.getpid()
    children: list[int] = []

    def forks(event: Any) -> None:
        pid = os.fork()
        if pid:
            children.append(pid)

    out = Runtime([plugin("forker", post_tool=forks)], hook_timeout=5).fire("post_tool", {"tool_name": "t"})
    if os.getpid() != parent:  # pragma: no cover - only a child that came back would get here
        os._exit(7)
    assert out.errors == [] and len(children) == 1
    deadline = time.monotonic() + 10
    while True:
        pid, status = os.waitpid(children[0], os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.kill(children[0], signal.SIGKILL)
            pytest.fail("the forked child did not end")
        time.sleep(0.02)  # polling a child process's exit, not synchronising threads
    assert os.waitstatus_to_exitcode(status) == 0


def hangs(release: threading.Event) -> Callable[..., Any]:
    def handler(event: Any) -> None:
        while not release.is_set():
            time.sleep(0.01)  # interruptible: HookTimeout ends it

    return handler


@pytest.mark.parametrize("where", ["fire", "worker-thread"])
def test_a_cheap_handler_runs_in_the_caller_and_is_still_bounded(where: str, release: threading.Event) -> None:
    """Handlers declared cheap skip the worker hand-off (main thread) and keep their deadline."""
    from agent_hooks_core import cheap

    seen: list[int] = []
    rt = Runtime([plugin("hung", pre_message=cheap(hangs(release))),
                  plugin("quick", pre_message=cheap(lambda event: seen.append(threading.get_ident()))),
                  plugin("plain", pre_message=lambda event: seen.append(threading.get_ident()))],
                 hook_timeout=TIMEOUT)
    start = time.monotonic()
    caller: list[int] = []
    out = _fire(rt, where, "pre_message", {"prompt": "hi"}) if where == "fire" else None
    if where == "worker-thread":
        box: dict[str, Any] = {}

        def run() -> None:
            caller.append(threading.get_ident())
            box["out"] = rt.fire("pre_message", {"prompt": "hi"})

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(30)
        out = box["out"]
    assert time.monotonic() - start < BUDGET
    assert out is not None and [(e.plugin, e.kind) for e in out.errors] == [("hung", "timeout")]
    me = threading.get_ident() if where == "fire" else caller[0]
    # main thread: the cheap one ran right here, the undeclared one on a worker; elsewhere both on workers
    assert (seen[0] == me) == (where == "fire") and seen[1] != me, (seen, me)


def test_cheap_handlers_keep_the_reentrancy_guard() -> None:
    from agent_hooks_core import cheap

    depth: list[int] = []
    rt: Runtime

    def again(event: Any) -> None:
        depth.append(1)
        rt.fire("pre_message", {"prompt": "inner"})  # a handler firing its own hook is skipped

    rt = Runtime([plugin("loop", pre_message=cheap(again))], hook_timeout=TIMEOUT)
    rt.fire("pre_message", {"prompt": "hi"})
    rt.fire("pre_message", {"prompt": "again"})
    assert depth == [1, 1]
