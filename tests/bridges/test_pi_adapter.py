"""The pi/omp adapter in-process: the capability matrix is what it really fires."""

from __future__ import annotations

from typing import Any

import pytest
from agent_hooks_core import hookimpl
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.capabilities import of
from agent_hooks_core.dialects import get_dialect
from agent_hooks_core.hookspecs.catalogue import HOOKS

from .hostkit_support import runtime

#: the least each event needs (validation), by host event name; others get {}
PAYLOADS: dict[str, dict[str, Any]] = {
    "tool_call": {"toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"}},
    "tool_result": {"toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"},
                    "content": [{"type": "text", "text": "a.txt"}], "isError": False},
    "tool_execution_end": {"toolName": "bash", "toolCallId": "c1", "result": {"content": []}, "isError": False},
    "input": {"text": "hi", "source": "interactive"},
    "before_agent_start": {"prompt": "hi", "systemPrompt": "be useful"},
    "context": {"messages": []},
    "session_start": {"reason": "startup"},
    "user_bash": {"command": "ls", "excludeFromContext": False, "cwd": "/"},
}
EXTRA_TOOL_CALLS = [("write", {"path": "a.txt", "content": "x"}), ("read", {"path": "a.txt"})]


class Everything:
    def __init__(self) -> None:
        self.fired: set[str] = set()
        for hd in HOOKS:
            setattr(self, hd.name, self._handler(hd.name))

    def _handler(self, hook: str) -> Any:
        def handler(event: Any) -> None:
            self.fired.add(hook)

        handler.__name__ = hook
        return hookimpl(handler)


@pytest.mark.parametrize("host", ["pi", "omp"])
def test_declared_hooks_are_exactly_the_fired_ones(host, tmp_path):
    plugin = Everything()
    rt = runtime(plugin, cwd=str(tmp_path))
    adapter = load_adapter(host)
    events = [n for n in get_dialect(host).names if not n.startswith("session:")]
    for name in events:
        answer = adapter.handle(rt, {"name": name, "payload": dict(PAYLOADS.get(name, {}))})
        assert answer.stderr == [], (name, answer.stderr)
    for tool, args in EXTRA_TOOL_CALLS:
        adapter.handle(rt, {"name": "tool_call", "payload": {"toolName": tool, "input": args}})
    declared = set(of(host)) - {"host_event"}
    assert plugin.fired == declared, (sorted(plugin.fired - declared), sorted(declared - plugin.fired))


@pytest.mark.parametrize("host", ["pi", "omp"])
def test_host_only_events_go_to_host_event(host, tmp_path):
    seen: list[tuple[str, str]] = []

    class Observer:
        @hookimpl
        def host_event(self, host: str, name: str, payload: dict[str, Any]) -> None:
            seen.append((host, name))

    rt = runtime(Observer(), cwd=str(tmp_path))
    adapter = load_adapter(host)
    assert "before_provider_request" in adapter.subscriptions(rt)
    answer = adapter.handle(rt, {"name": "before_provider_request", "payload": {"payload": {"model": "m"}}})
    assert answer.body is None and seen == [(host, "before_provider_request")]
