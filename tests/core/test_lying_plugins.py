"""A broken, slow or lying plugin never takes the host down and never lets pre_tool or a permission through."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.errors import HookTimeout
from agent_hooks_core.hookspecs.catalogue import HOOKS
from agent_hooks_core.hookspecs.models import RESULTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from .helpers import plugin

GUARDED = [h.name for h in HOOKS if h.fail_closed]  # pre_tool and the permission hooks
PAYLOADS = {
    "pre_tool": {"tool_name": "shell_exec", "arguments": {"command": "rm -rf /"}},
    "pre_file_read": {"path": "/etc/shadow"},
    "pre_file_write": {"path": "/work/.env", "content": "x"},
    "pre_shell_exec": {"command": "rm -rf /"},
    "pre_fetch_url": {"url": "http://169.254.169.254/"},
    "permission_request": {"tool_name": "Bash", "arguments": {"command": "rm -rf /"}},
}


class Evil(BaseException):
    """Not an Exception: a plugin's own BaseException subclass."""


class LyingDict(dict):  # type: ignore[type-arg]
    """Says block/denied is false when asked with get(), holds true underneath."""

    def get(self, key: Any, default: Any = None) -> Any:
        return False


class ItemsRaise(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("items lied")

    def keys(self) -> Any:
        raise RuntimeError("keys lied")


class DumpsAllow:
    """Looks like a result model; its dump is an allow in the wrong shape."""

    def model_dump(self, **kwargs: Any) -> Any:
        return {"allow": True}


def _raises(exc: BaseException) -> Callable[[Any], Any]:
    def handler(event: Any) -> Any:
        raise exc

    return handler


LIARS: dict[str, Callable[[Any], Any]] = {
    "raises": _raises(RuntimeError("boom")),
    "sys-exit": _raises(SystemExit(0)),
    "own-base-exception": _raises(Evil("evil")),
    "own-hook-timeout": _raises(HookTimeout(987654)),
    "generator-exit": _raises(GeneratorExit()),
    "string": lambda event: "allow",
    "true": lambda event: True,
    "int-flag": lambda event: {"block": 0, "denied": 0},
    "string-flag": lambda event: {"block": "false"},
    "typo": lambda event: {"allowed": True},
    "camel-case": lambda event: {"isAllowed": True},
    "lying-dict": lambda event: LyingDict(block=False, denied=False, bogus=1),
    "items-raise": lambda event: ItemsRaise(bogus=1),
    "dumps-allow": lambda event: DumpsAllow(),
    "object": lambda event: object(),
    "the-event-itself": lambda event: event,
}


def _assert_stopped(hook: str, out: Any, plugin_name: str = "liar") -> None:
    assert out.decision == ("blocked" if hook == "pre_tool" else "denied"), out.data
    assert plugin_name in (out.reason or "")
    assert [e.plugin for e in out.errors] == [plugin_name]


@pytest.mark.parametrize("mode", ["fire", "afire"])
@pytest.mark.parametrize("liar", list(LIARS))
@pytest.mark.parametrize("hook", GUARDED)
def test_a_lying_plugin_never_lets_a_guarded_hook_through(hook: str, liar: str, mode: str) -> None:
    after: list[str] = []
    rt = Runtime([plugin("liar", **{hook: LIARS[liar]}),
                  plugin("later", **{hook: lambda event: after.append("ran")})])
    out = rt.fire(hook, PAYLOADS[hook]) if mode == "fire" else asyncio.run(rt.afire(hook, PAYLOADS[hook]))
    _assert_stopped(hook, out)
    assert after == []  # the call ended at the liar


@pytest.mark.parametrize("hook", GUARDED)
def test_an_async_liar_and_a_slow_one(hook: str) -> None:
    async def async_liar(event: Any) -> Any:
        await asyncio.sleep(0)
        return "yes"

    for mode in ("fire", "afire"):
        rt = Runtime([plugin("liar", **{hook: async_liar})])
        out = rt.fire(hook, PAYLOADS[hook]) if mode == "fire" else asyncio.run(rt.afire(hook, PAYLOADS[hook]))
        _assert_stopped(hook, out)
    rt = Runtime([plugin("liar", **{hook: lambda event: time.sleep(5)})], hook_timeout=0.1,
                 timeouts={"pre_tool": 0.1})
    _assert_stopped(hook, rt.fire(hook, PAYLOADS[hook]))


def test_keyboard_interrupt_still_reaches_the_host() -> None:
    rt = Runtime([plugin("p", post_tool=_raises(KeyboardInterrupt()))])
    with pytest.raises(KeyboardInterrupt):
        rt.fire("post_tool", {"tool_name": "t"})


def test_cancelling_afire_cancels_it() -> None:
    """The host's own cancellation is not a handler error to be recorded and swallowed."""
    async def slow(event: Any) -> None:
        await asyncio.sleep(10)

    rt = Runtime([plugin("p", pre_tool=slow)])

    async def host() -> None:
        task = asyncio.ensure_future(rt.afire("pre_tool", {"tool_name": "t"}))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(host())


def _valid(hook: str, answer: Any) -> bool:
    model = RESULTS[hook]
    assert model is not None
    try:
        model.model_validate(answer, strict=True)
    except ValidationError:
        return False
    return True


def _constant(answer: Any) -> Callable[[Any], Any]:
    return lambda event: answer


FIELDS = st.sampled_from(["block", "denied", "reason", "message", "arguments", "allow", "blocked", "", "decision"])
VALUES = (st.none() | st.booleans() | st.integers(-1, 1) | st.text(max_size=3) | st.just({}) | st.just([])
          | st.sampled_from(["allow", "deny", "ask"]))
ANSWERS = st.none() | VALUES | st.dictionaries(FIELDS, VALUES, max_size=3)


@pytest.mark.parametrize("hook", GUARDED)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers=st.lists(ANSWERS, min_size=1, max_size=3))
def test_nothing_but_valid_non_blocking_answers_allows(hook: str, answers: list[Any]) -> None:
    """Property: the call goes through only if every answer was None or valid, and none blocked or denied
    (an ``allow`` decision from these plugins, none of them an approver, denies)."""
    rt = Runtime([plugin(f"p{i}", **{hook: _constant(a)}) for i, a in enumerate(answers)])
    out = rt.fire(hook, PAYLOADS[hook])
    allowed = out.decision in ("allowed", "modified")
    ok = all(a is None or (isinstance(a, dict) and _valid(hook, a) and not a.get("block") and not a.get("denied")
                           and a.get("decision") not in ("deny", "allow"))
             for a in answers)
    assert allowed == ok, (answers, out.data, out.errors)
