"""The Kimi CLI adapter on recorded Kimi 1.51.0 payloads, its answers (only exit 2 or a JSON deny
block there), and the installer (``[[hooks]]`` in config.toml; doctor says it fails open)."""

from __future__ import annotations

import sys

import pytest
import tomlkit
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.base import BridgeInputError
from agent_hooks_core.bridges.kimi import install as km
from agent_hooks_core.bridges.kimi.adapter import ADAPTER, EVENTS

from .hostkit_support import Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("kimi")


def test_registered_and_every_event_sampled():
    assert load_adapter("kimi") is ADAPTER
    assert {k.split("/")[0] for k in SAMPLES} == set(EVENTS)


def pre_tool(command):
    event = SAMPLES["PreToolUse"]
    event["tool_input"] = {"command": command}
    return event


def is_deny(answer) -> bool:
    spec = (answer.body or {}).get("hookSpecificOutput", {})
    return spec.get("permissionDecision") == "deny" and bool(spec.get("permissionDecisionReason"))


@pytest.mark.parametrize(("command", "denied"), [("rm -rf ~", True), ("echo hi", False)])
def test_guard_decides_with_a_json_deny(command, denied, tmp_path):
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), pre_tool(command))
    assert answer.exit_code == 0 and is_deny(answer) is denied and answer.blocked is denied


def test_our_failure_is_exit_2_with_the_reason_on_stderr():
    with pytest.raises(BridgeInputError):
        ADAPTER.handle(runtime(Scripted(pre_tool=None)), {"hook_event_name": "PreToolUse", "tool_name": "Shell",
                                                          "tool_input": {"command": 7}})
    answer = ADAPTER.failure("PreToolUse", "bad event")
    assert answer.exit_code == 2 and "fail-closed" in answer.stderr[0] and answer.blocked


def test_a_rewrite_kimi_cannot_run_is_a_deny(tmp_path):
    plugin = Scripted(pre_tool={"arguments": {"command": "echo safer"}})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), pre_tool("echo original"))
    assert is_deny(answer) and "rewrote" in answer.body["hookSpecificOutput"]["permissionDecisionReason"]


def test_stop_gate_continue_and_prompt_block(tmp_path):
    gate = Scripted(stop_gate={"continue": True, "reason": "run the tests first"})
    answer = ADAPTER.handle(runtime(gate, cwd=str(tmp_path)), SAMPLES["Stop"])
    assert answer.body["hookSpecificOutput"]["permissionDecisionReason"] == "run the tests first"
    blocker = Scripted(pre_message={"block": True, "reason": "no secrets in prompts"})
    assert is_deny(ADAPTER.handle(runtime(blocker, cwd=str(tmp_path)), SAMPLES["UserPromptSubmit"]))


# -- installer -------------------------------------------------------------------------------

ARGV = [sys.executable, "-I", "-m", "agent_hooks_core", "kimi"]
MINE = 'default_model = "k2"\n\n[[hooks]]\nevent = "Stop"\ncommand = "notify-send done"\n'


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KIMI_SHARE_DIR", raising=False)
    (tmp_path / ".kimi").mkdir()
    return tmp_path


def test_install_idempotent_and_uninstall_restores(home):
    config = home / ".kimi" / "config.toml"
    config.write_text(MINE)
    km.plan_install(argv=ARGV).apply()
    assert not km.plan_install(argv=ARGV).changed
    data = tomlkit.parse(config.read_text())
    assert data["default_model"] == "k2" and data["hooks"][0]["command"] == "notify-send done"
    assert {h["event"] for h in data["hooks"][1:]} == set(EVENTS)
    assert all(1 <= h["timeout"] <= 600 and h["matcher"] == "" for h in data["hooks"][1:])
    lines = km.status()
    assert lines[0].startswith("ok:") and any("fails open" in line for line in lines)
    km.plan_uninstall().apply()
    assert config.read_text() == MINE


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda t: t.replace(sys.executable, "/nonexistent/python"), "does not exist"),
    (lambda t: t.replace('matcher = ""', 'matcher = "ReadFile"', 1), "matcher"),
])
def test_wiring_that_fails_open_is_a_problem(home, edit, problem):
    km.plan_install(argv=ARGV).apply()
    config = home / ".kimi" / "config.toml"
    config.write_text(edit(config.read_text()))
    assert any(line.startswith("problem:") and problem in line for line in km.status()), km.status()


def test_no_project_scope(home):
    with pytest.raises(km.InstallError, match="no project hooks"):
        km.plan_install("project")
