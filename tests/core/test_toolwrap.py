"""HookToolWrapper: pre_tool → the tool → pre_tool_output (also on error, then re-raise) → post_tool."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_hooks_core import HookToolWrapper, Runtime, ToolBlocked

from .helpers import plugin


class Recorder:
    """Records every tool hook the wrapper fires and answers as told."""

    def __init__(self, pre_tool: Any = None, pre_tool_output: Any = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.answers = {"pre_tool": pre_tool, "pre_tool_output": pre_tool_output}

    def plugin(self) -> Any:
        def make(hook: str) -> Any:
            def handler(event: Any) -> Any:
                self.calls.append((hook, dict(event)))
                return self.answers.get(hook)

            return handler

        return plugin("rec", **{h: make(h) for h in ("pre_tool", "pre_tool_output", "post_tool")})

    @property
    def hooks(self) -> list[str]:
        return [h for h, _ in self.calls]


def _call(wrapper: HookToolWrapper, mode: str, **kwargs: Any) -> Any:
    if mode == "sync":
        return wrapper(**kwargs)
    return asyncio.run(wrapper.acall(**kwargs))


def _tools(mode: str) -> dict[str, Any]:
    if mode == "sync":
        def read(path: str) -> str:
            return f"contents of {path}"

        def fails(path: str) -> str:
            raise FileNotFoundError(path)

        def blocks(path: str) -> list[dict[str, str]]:
            return [{"type": "text", "text": path}]
    else:
        async def read(path: str) -> str:  # type: ignore[misc]
            await asyncio.sleep(0)
            return f"contents of {path}"

        async def fails(path: str) -> str:  # type: ignore[misc]
            await asyncio.sleep(0)
            raise FileNotFoundError(path)

        async def blocks(path: str) -> list[dict[str, str]]:  # type: ignore[misc]
            return [{"type": "text", "text": path}]
    return {"read": read, "fails": fails, "blocks": blocks}


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_the_happy_path(mode: str) -> None:
    rec = Recorder()
    wrapper = HookToolWrapper(Runtime([rec.plugin()]), "read", _tools(mode)["read"])
    assert _call(wrapper, mode, path="a.txt", tool_call_id="c1") == "contents of a.txt"
    assert rec.hooks == ["pre_tool", "pre_tool_output", "post_tool"]
    pre, out, post = (c for _, c in rec.calls)
    assert pre == {"tool_name": "read", "arguments": {"path": "a.txt"}, "tool_call_id": "c1"}
    assert out["output"] == "contents of a.txt" and out["is_error"] is False
    assert post["result"] == "contents of a.txt" and post["is_error"] is False


@pytest.mark.parametrize("mode", MODES)
def test_pre_tool_rewrites_arguments(mode: str) -> None:
    rec = Recorder(pre_tool={"arguments": {"path": "/safe/path"}})
    wrapper = HookToolWrapper(Runtime([rec.plugin()]), "read", _tools(mode)["read"])
    assert _call(wrapper, mode, path="/etc/passwd") == "contents of /safe/path"
    assert rec.calls[2][1]["arguments"] == {"path": "/safe/path"}


@pytest.mark.parametrize("mode", MODES)
def test_pre_tool_block_raises_and_the_tool_never_runs(mode: str) -> None:
    ran: list[str] = []

    def tool(path: str) -> str:
        ran.append(path)
        return ""

    rec = Recorder(pre_tool={"block": True, "reason": "blocked by policy"})
    wrapper = HookToolWrapper(Runtime([rec.plugin()]), "read", tool)
    with pytest.raises(ToolBlocked, match="blocked by policy") as info:
        _call(wrapper, mode, path="x")
    assert ran == [] and rec.hooks == ["pre_tool"] and info.value.outcome.decision == "blocked"


@pytest.mark.parametrize("mode", MODES)
def test_a_failing_pre_tool_handler_blocks(mode: str) -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("guard crashed")

    wrapper = HookToolWrapper(Runtime([plugin("guard", pre_tool=broken)]), "read", _tools(mode)["read"])
    with pytest.raises(ToolBlocked, match=r"guard failed \(RuntimeError: guard crashed\)"):
        _call(wrapper, mode, path="x")


@pytest.mark.parametrize("mode", MODES)
def test_pre_tool_output_rewrites_or_replaces(mode: str) -> None:
    rec = Recorder(pre_tool_output={"output": "[redacted]"})
    assert _call(HookToolWrapper(Runtime([rec.plugin()]), "read", _tools(mode)["read"]), mode, path="x") == "[redacted]"
    assert rec.calls[2][1]["result"] == "[redacted]"  # post_tool sees what the caller gets
    rec = Recorder(pre_tool_output={"block": True, "message": "Replacement shown to the LLM"})
    assert _call(HookToolWrapper(Runtime([rec.plugin()]), "read", _tools(mode)["read"]), mode,
                 path="x") == "Replacement shown to the LLM"
    rec = Recorder(pre_tool_output={"content": [{"type": "text", "text": "X"}], "details": {"d": 1}})
    blocks = _call(HookToolWrapper(Runtime([rec.plugin()]), "blocks", _tools(mode)["blocks"]), mode, path="p")
    assert blocks == [{"type": "text", "text": "X"}]  # a content-block tool gets content back, not details


@pytest.mark.parametrize("mode", MODES)
def test_errors_fire_pre_tool_output_with_is_error_then_post_tool_then_re_raise(mode: str) -> None:
    rec = Recorder(pre_tool_output={"output": "ignored on error"})
    wrapper = HookToolWrapper(Runtime([rec.plugin()]), "fails", _tools(mode)["fails"])
    with pytest.raises(FileNotFoundError, match=r"missing\.txt"):
        _call(wrapper, mode, path="missing.txt")
    assert rec.hooks == ["pre_tool", "pre_tool_output", "post_tool"]
    out, post = rec.calls[1][1], rec.calls[2][1]
    assert out["is_error"] is True and out["output"] == "missing.txt"
    assert post["is_error"] is True and post["result"] == "missing.txt"


def test_the_sync_wrapper_runs_an_async_tool() -> None:
    rec = Recorder()
    assert HookToolWrapper(Runtime([rec.plugin()]), "read", _tools("async")["read"])(path="a") == "contents of a"
    assert rec.calls[2][1]["result"] == "contents of a"
