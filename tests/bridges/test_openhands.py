"""The OpenHands CLI adapter on recorded OpenHands 1.16.0 payloads, its answers, and the installer
(one hooks.json is read: a project's own file shadowing the user's is a doctor problem)."""

from __future__ import annotations

import json
import sys

import pytest
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.base import BridgeInputError
from agent_hooks_core.bridges.openhands import install as oh
from agent_hooks_core.bridges.openhands.adapter import ADAPTER, EVENTS

from .hostkit_support import Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("openhands")


def test_registered_and_every_event_sampled():
    assert load_adapter("openhands") is ADAPTER
    assert {k.split("/")[0] for k in SAMPLES} == set(EVENTS)


def pre_tool(command):
    event = SAMPLES["PreToolUse"]
    event["tool_input"]["command"] = command
    return event


@pytest.mark.parametrize(("command", "denied"), [("rm -rf ~", True), ("echo hi", False)])
def test_guard_decides_with_a_top_level_decision(command, denied, tmp_path):
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), pre_tool(command))
    assert answer.exit_code == 0 and answer.blocked is denied
    assert ((answer.body or {}).get("decision") == "deny") is denied
    assert "hookSpecificOutput" not in (answer.body or {})  # OpenHands does not read it


def test_our_failure_blocks_on_both_paths():
    with pytest.raises(BridgeInputError):
        ADAPTER.handle(runtime(Scripted(pre_tool=None)), {"event_type": "PreToolUse", "tool_name": "terminal",
                                                          "tool_input": {"command": None}})
    answer = ADAPTER.failure("PreToolUse", "bad event")
    assert answer.body["decision"] == "deny" and answer.exit_code == 2 and "fail-closed" in answer.stderr[0]


def test_rewrite_is_a_deny_and_stop_gate_continues(tmp_path):
    rewrite = Scripted(pre_tool={"arguments": {"command": "echo safer"}})
    answer = ADAPTER.handle(runtime(rewrite, cwd=str(tmp_path)), pre_tool("echo original"))
    assert answer.body["decision"] == "deny" and "rewrote" in answer.body["reason"]
    gate = Scripted(stop_gate={"continue": True, "reason": "run the tests first"})
    stop = ADAPTER.handle(runtime(gate, cwd=str(tmp_path)), SAMPLES["Stop"])
    assert stop.body == {"decision": "deny", "reason": "run the tests first"}


@pytest.mark.parametrize(("answers", "body"), [
    ({"pre_message": {"block": True, "reason": "not today"}}, {"decision": "deny", "reason": "not today"}),
    ({"pre_message": {"prompt": "fix it well"}, "pre_system_prompt": {"inject": "rule one"}},
     {"additionalContext": "agent-hooks: p0 rewrote the user's prompt; treat this as the prompt:\n"
                           "fix it well\n\nrule one"}),
    ({}, None),
])
def test_a_prompt_is_blocked_or_given_context_openhands_reads(answers, body, tmp_path):
    event = {**SAMPLES["UserPromptSubmit"], "message": "fix it"}
    answer = ADAPTER.handle(runtime(Scripted(**answers), cwd=str(tmp_path)), event)
    assert answer.body == body and answer.blocked is (body is not None and "decision" in body)


# -- installer -------------------------------------------------------------------------------

ARGV = [sys.executable, "-I", "-m", "agent_hooks_core", "openhands"]
MINE = {"PostToolUse": [{"matcher": "file_editor", "hooks": [{"type": "command", "command": "make fmt"}]}]}


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home" / ".openhands").mkdir(parents=True)
    return tmp_path / "home"


@pytest.mark.parametrize("wrapped", [False, True])
def test_install_idempotent_and_uninstall_restores(home, tmp_path, wrapped):
    path = home / ".openhands" / "hooks.json"
    original = {"hooks": MINE} if wrapped else MINE
    path.write_text(json.dumps(original))
    oh.plan_install("user", argv=ARGV).apply()
    assert not oh.plan_install("user", argv=ARGV).changed
    data = json.loads(path.read_text())
    events = data["hooks"] if wrapped else data
    assert set(events) == set(EVENTS) and events["PostToolUse"][0] == MINE["PostToolUse"][0]
    assert any(line.startswith("ok:") for line in oh.status(tmp_path / "elsewhere"))
    oh.plan_uninstall("user").apply()
    assert json.loads(path.read_text()) == original


def test_a_project_hooks_json_shadows_the_users(home, tmp_path):
    oh.plan_install("user", argv=ARGV).apply()
    project = tmp_path / "repo"
    (project / ".openhands").mkdir(parents=True)
    (project / ".openhands" / "hooks.json").write_text(json.dumps(MINE))
    assert any(line.startswith("problem:") and "reads only that one" in line for line in oh.status(project))
    oh.plan_install("project", project, argv=ARGV).apply()
    assert not any(line.startswith("problem:") for line in oh.status(project))


@pytest.mark.parametrize(("text", "problem"), [("{", "not valid JSON"), ('{"PreToolUze": []}', "unknown event")])
def test_bad_files_are_one_line_and_untouched(home, text, problem):
    path = home / ".openhands" / "hooks.json"
    path.write_text(text)
    with pytest.raises(oh.InstallError, match=problem):
        oh.plan_install("user", argv=ARGV)
    assert path.read_text() == text
