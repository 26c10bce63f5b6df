"""Decisions made once: the reducer says what a call decided and who stopped it (Outcome.stopped_by)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_hooks_core import Runtime

from .helpers import answering, plugin

TOOL = {"tool_name": "shell", "arguments": {"command": "ls"}}
READ = {"path": "/etc/passwd"}


def _boom(event: Any) -> None:
    raise RuntimeError("boom")


# (hook, payload, [(plugin, answer)], decision, stopped_by)
CASES = [
    ("pre_tool", TOOL, [("a", None), ("b", {"block": True}), ("c", {"block": True})], "blocked", "b"),
    ("pre_tool", TOOL, [("a", {"arguments": {"command": "pwd"}}), ("b", None)], "modified", None),
    ("pre_tool", TOOL, [("a", None)], "allowed", None),
    ("pre_tool", TOOL, [("a", None), ("b", _boom)], "blocked", "b"),  # fail-closed: the failing plugin
    ("pre_message", {"prompt": "hi"}, [("a", {"handled": True})], "blocked", "a"),
    ("pre_compact", {}, [("a", {}), ("b", {"cancel": True})], "blocked", "b"),
    ("pre_file_read", READ, [("a", {"denied": False}), ("b", {"denied": True, "reason": "no"})], "denied", "b"),
    ("pre_file_read", READ, [("a", {"denied": False})], "allowed", None),
    ("pre_file_read", READ, [], "denied", None),  # no handler: the runtime denied, no plugin did
    ("pre_spawn_agent", {}, [("a", {"block": True})], "blocked", "a"),
    ("post_tool", {**TOOL, "result": "x"}, [("a", {"anything": 1})], "observed", None),
]


@pytest.mark.parametrize("mode", ["fire", "afire"])
@pytest.mark.parametrize(("hook", "payload", "answers", "decision", "stopped_by"), CASES)
def test_decision_and_stopped_by(mode: str, hook: str, payload: dict[str, Any], answers: list[tuple[str, Any]],
                                 decision: str, stopped_by: str | None) -> None:
    plugins = [plugin(name, **{hook: answer}) if callable(answer) else answering(name, hook, answer)
               for name, answer in answers]
    rt = Runtime(plugins)
    out = rt.fire(hook, payload) if mode == "fire" else asyncio.run(rt.afire(hook, payload))
    assert (out.decision, out.stopped_by) == (decision, stopped_by)
    assert out.to_dict()["stopped_by"] == stopped_by and out.to_dict()["decision"] == decision


def test_decision_is_the_reducers_not_re_derived() -> None:
    """Outcome.decision reads what the reducer decided, even if a caller edits data afterwards."""
    out = Runtime([answering("g", "pre_tool", {"block": True, "reason": "no"})]).fire("pre_tool", TOOL)
    assert out.data is not None
    out.data.pop("block")
    assert out.decision == "blocked" and out.stopped_by == "g"
