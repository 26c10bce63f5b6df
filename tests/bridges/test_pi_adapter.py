"""The pi/omp adapter in-process: the capability matrix is what it really fires."""

from __future__ import annotations

from typing import Any

import pytest
from agent_hooks_core import hookimpl
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.capabilities import of
from agent_hooks_core.bridges.pi import OWN_EVENTS
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
    "session_stop": {"messages": [], "turn_id": 1, "session_id": "s1", "stop_hook_active": False,
                     "last_assistant_message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}},
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
    events = [n for n in get_dialect(host).names if not n.startswith("session:")] + list(OWN_EVENTS.get(host, {}))
    for name in events:
        answer = adapter.handle(rt, {"name": name, "payload": dict(PAYLOADS.get(name, {}))})
        assert answer.stderr == [], (name, answer.stderr)
    for tool, args in EXTRA_TOOL_CALLS:
        adapter.handle(rt, {"name": "tool_call", "payload": {"toolName": tool, "input": args}})
    for reason in ("resume", "fork"):
        adapter.handle(rt, {"name": "session_start", "payload": {"reason": reason}})
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


class Gate:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.seen: list[dict[str, Any]] = []

    @hookimpl
    def stop_gate(self, event: Any) -> Any:
        self.seen.append(dict(event))
        return self.answer


def test_omp_session_stop_is_the_stop_gate(tmp_path):
    gate = Gate({"continue": True, "reason": "run the tests"})
    rt = runtime(gate, cwd=str(tmp_path))
    rt.stop_gate_limit = 1
    adapter = load_adapter("omp")
    assert "session_stop" in adapter.subscriptions(rt)
    event = {"name": "session_stop", "payload": PAYLOADS["session_stop"]}
    assert adapter.handle(rt, event).body == {"continue": True, "additionalContext": "run the tests"}
    assert gate.seen[0] == {"subagent": False, "last_assistant_message": "Done.", "stop_hook_active": False,
                            "continuations": 0, "limit": 1}
    second = adapter.handle(rt, event)  # at the limit: omp settles
    assert second.body is None and "stop gate limit reached (1 in a row)" in second.stderr[0]
    assert "session_stop" not in load_adapter("pi").subscriptions(rt)  # pi 0.73.1 has no such event


@pytest.mark.parametrize(("reason", "hook", "event"), [
    ("new", "post_session_switch", {"reason": "new", "previous_session_file": "/s/old.jsonl"}),
    ("resume", "post_session_switch", {"reason": "resume", "previous_session_file": "/s/old.jsonl"}),
    ("fork", "post_session_fork", {"previous_session_file": "/s/old.jsonl"}),
    ("reload", None, None),
])
def test_pi_session_start_reason_fires_the_switch_and_fork_hooks(tmp_path, reason, hook, event):
    """pi 0.73.1 emits no session_switch / session_fork: session_start's reason says it."""
    seen: list[dict[str, Any]] = []

    class Sessions:
        @hookimpl
        def post_session_switch(self, event: Any) -> None:
            seen.append({"hook": "post_session_switch", **dict(event)})

        @hookimpl
        def post_session_fork(self, event: Any) -> None:
            seen.append({"hook": "post_session_fork", **dict(event)})

    plugin = Sessions()
    rt = runtime(plugin, cwd=str(tmp_path))
    load_adapter("pi").handle(rt, {"name": "session_start",
                                   "payload": {"reason": reason, "previousSessionFile": "/s/old.jsonl"}})
    assert seen == ([] if hook is None else [{"hook": hook, **event}])
