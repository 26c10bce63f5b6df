"""The stop gate and the permission decision in each hook-command host's own answer shape
(Claude Code's are in test_claude_code.py): a continue keeps the agent working with the reason,
the user's limit bounds it, no opinion changes nothing, an allow counts only from an approver."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.base import BridgeInputError

from .hostkit_support import Scripted, payloads, runtime

CONTINUE = {"continue": True, "reason": "the tests fail: fix them"}

#: host, event, the answer that keeps the agent working
STOP_EVENTS = [
    ("codex", "Stop", {"decision": "block", "reason": "the tests fail: fix them"}),
    ("codex", "SubagentStop", {"decision": "block", "reason": "the tests fail: fix them"}),
    ("gemini", "AfterAgent", {"decision": "deny", "reason": "the tests fail: fix them"}),
    ("cursor", "stop", {"followup_message": "the tests fail: fix them"}),
    ("cursor", "subagentStop", {"followup_message": "the tests fail: fix them"}),
]


@pytest.mark.parametrize(("host", "event", "body"), STOP_EVENTS)
def test_a_continue_keeps_the_agent_working_with_the_reason(host: str, event: str, body: Any, tmp_path: Any) -> None:
    plugin = Scripted(stop_gate=CONTINUE)
    answer = load_adapter(host).handle(runtime(plugin, cwd=str(tmp_path)), payloads(host)[event])
    assert (answer.body, answer.exit_code) == (body, 0)
    assert plugin.calls[0][1]["subagent"] is ("ubagent" in event)


@pytest.mark.parametrize(("host", "event", "body"), STOP_EVENTS)
def test_no_opinion_and_a_failing_gate_let_the_agent_stop(host: str, event: str, body: Any, tmp_path: Any) -> None:
    for answer_of_plugin in (None, {"continue": False}, RuntimeError("disk full")):
        rt = runtime(Scripted(stop_gate=answer_of_plugin), cwd=str(tmp_path))
        answer = load_adapter(host).handle(rt, payloads(host)[event])
        assert answer.body is None and answer.exit_code == 0, answer_of_plugin


@pytest.mark.parametrize(("host", "event", "body"), STOP_EVENTS)
def test_the_limit_lets_the_agent_stop_and_says_so(host: str, event: str, body: Any, tmp_path: Any) -> None:
    rt = runtime(Scripted(stop_gate=CONTINUE), cwd=str(tmp_path))
    rt.stop_gate_limit = 2
    adapter = load_adapter(host)
    answers = [adapter.handle(rt, payloads(host)[event]) for _ in range(4)]
    assert [a.body for a in answers] == [body, body, None, body]  # the stop at the limit restarts the count
    assert any("stop gate limit reached (2 in a row)" in line for line in answers[2].stderr)


def test_cursor_does_not_restart_an_aborted_run(tmp_path: Any) -> None:
    plugin = Scripted(stop_gate=CONTINUE)
    event = {**payloads("cursor")["stop"], "status": "aborted"}
    answer = load_adapter("cursor").handle(runtime(plugin, cwd=str(tmp_path)), event)
    assert answer.body is None and plugin.calls == []


def _decider(answer: Any, approver: bool) -> Scripted:
    plugin = Scripted(permission_request=answer)
    if approver:
        plugin.agent_hooks_approver = True  # type: ignore[attr-defined]
    return plugin


def _codex_decision(body: Any) -> Any:
    return None if body is None else body["hookSpecificOutput"]["decision"]


@pytest.mark.parametrize(("answer", "approver", "decision"), [
    (None, True, None),                                                   # no opinion: Codex asks
    ({"decision": "ask"}, True, None),                                    # ask: Codex asks
    ({"decision": "allow"}, True, {"behavior": "allow"}),                 # an approver's allow
    ({"decision": "allow"}, False, "deny"),                               # not an approver: fails closed
    ({"decision": "deny", "reason": "no publishing"}, False, {"behavior": "deny", "message": "no publishing"}),
    ({"decision": "allow", "arguments": {"command": "npm test"}}, True, None),  # Codex takes no updated input
    (RuntimeError("boom"), False, "deny"),
])
def test_codex_permission_request(answer: Any, approver: bool, decision: Any, tmp_path: Any) -> None:
    event = payloads("codex")["PermissionRequest"]
    answer_ = load_adapter("codex").handle(runtime(_decider(answer, approver), cwd=str(tmp_path)), event)
    got = _codex_decision(answer_.body)
    if decision == "deny":
        assert got["behavior"] == "deny" and "p0 failed" in got["message"], got
    else:
        assert got == decision
    assert answer_.exit_code == 0


def _qwen_decision(body: Any) -> Any:
    return None if body is None else body["hookSpecificOutput"]["decision"]


def _copilot_decision(body: Any) -> Any:
    return body


#: host, how its answer carries the decision, and whether an allow may carry the changed input
PERMISSION_HOSTS = [("qwen", _qwen_decision, True), ("copilot", _copilot_decision, False)]


@pytest.mark.parametrize(("host", "read", "rewrites"), PERMISSION_HOSTS)
@pytest.mark.parametrize(("answer", "approver", "decision"), [
    (None, True, None),                                                   # no opinion: the host asks
    ({"decision": "ask"}, True, None),                                    # ask: the host asks
    ({"decision": "allow"}, True, {"behavior": "allow"}),                 # an approver's allow
    ({"decision": "allow"}, False, "deny"),                               # not an approver: fails closed
    ({"decision": "deny", "reason": "no publishing"}, False, {"behavior": "deny", "message": "no publishing"}),
    (RuntimeError("boom"), False, "deny"),
])
def test_claude_format_permission_request(host: str, read: Any, rewrites: bool, answer: Any, approver: bool,
                                          decision: Any, tmp_path: Any) -> None:
    event = payloads(host)["PermissionRequest"]
    answer_ = load_adapter(host).handle(runtime(_decider(answer, approver), cwd=str(tmp_path)), event)
    got = read(answer_.body)
    if decision == "deny":
        assert got["behavior"] == "deny" and "p0 failed" in got["message"], got
    else:
        assert got == decision
    assert answer_.exit_code == 0


@pytest.mark.parametrize(("host", "read", "rewrites"), PERMISSION_HOSTS)
def test_an_allow_with_changed_input_is_checked_again_or_refused(host: str, read: Any, rewrites: bool,
                                                                  tmp_path: Any) -> None:
    event = payloads(host)["PermissionRequest"]
    changed = {"decision": "allow", "arguments": {"command": "echo changed"}}
    answer = load_adapter(host).handle(runtime(_decider(changed, True), cwd=str(tmp_path)), event)
    # the host takes the changed input, or (no updated input there) asks as usual
    assert read(answer.body) == ({"behavior": "allow", "updatedInput": {"command": "echo changed"}} if rewrites else None)
    if rewrites:  # a shell rule sees the command as rewritten, and its deny wins over the allow
        shell = Scripted(pre_shell_exec=lambda: {"denied": True, "reason": "not that one"})
        rt = runtime(_decider(changed, True), shell, cwd=str(tmp_path))
        got = read(load_adapter(host).handle(rt, event).body)
        assert got == {"behavior": "deny", "message": "not that one"}
        assert shell.calls[0][1]["command"] == "echo changed"


@pytest.mark.parametrize("host", ["qwen", "copilot"])
def test_a_permission_request_we_cannot_read_is_denied(host: str, tmp_path: Any) -> None:
    adapter = load_adapter(host)
    event = {**payloads(host)["PermissionRequest"]}
    event.pop("tool_input" if host == "qwen" else "toolInput")
    with pytest.raises(BridgeInputError):  # the transports answer this with adapter.failure
        adapter.handle(runtime(_decider({"decision": "allow"}, True), cwd=str(tmp_path)), event)
    failed = adapter.failure(adapter.event_name(event), "unreadable")
    assert failed.blocked and failed.exit_code == 0
    assert "deny" in json.dumps(failed.body) and "fail-closed" in json.dumps(failed.body), failed.body
