"""Qwen Code 0.24.4 (the real CLI from npm) with `agenthooks install qwen`, against the fake model
(OpenAI chat) on 127.0.0.1: the guard's deny reaches the model, a benign command runs, and a failure
of ours blocks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges import qwen

from . import harness
from .fakemodel import FakeModel, say, tool_call
from .npm_agents import agents, base_env, run, write_json
from .probes import FORBIDDEN, REASON, hook_file


@pytest.fixture(scope="module")
def cli(npm_set) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return agents(npm_set) / "@qwen-code" / "qwen-code" / "cli-entry.js"


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch) as home:
        write_json(home / ".qwen" / "settings.json", {
            "telemetry": {"enabled": False}, "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False}})
        yield home


def run_qwen(cli: Path, home: Path, turns) -> list[str]:
    with FakeModel(turns) as model:
        proc = run(["node", str(cli), "go", "--auth-type", "openai", "--openai-base-url", model.base_url,
                    "--openai-api-key", "dummy", "-m", "fake-model", "--yolo", "-o", "json"],
                   home / "project", base_env(home))
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert not model.errors
        return model.tool_results()


def install(argv: list[str] | None = None) -> None:
    if argv is None:  # the command users run
        harness.install("qwen")
        return
    qwen.INSTALLER.plan_install("user", argv=argv).apply()


@pytest.mark.proves("qwen", "pre_tool", "block")
def test_rm_rf_home_is_denied_with_the_reason(cli, home):
    install()
    outputs = run_qwen(cli, home, [tool_call("run_shell_command", {"command": "rm -rf ~"}), say("ok")])
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in outputs[0], outputs


def test_benign_runs(cli, home):
    install()
    outputs = run_qwen(cli, home, [tool_call("run_shell_command", {"command": "echo benign-ran"}), say("ok")])
    assert "benign-ran" in outputs[0] and "guard" not in outputs[0], outputs


@pytest.mark.proves("qwen", "pre_tool", "closed")
@pytest.mark.proves("qwen", "pre_shell_exec", "closed")
def test_a_crash_of_ours_blocks(cli, home, tmp_path):
    install(harness.hook_argv("qwen", harness.broken_plugin(tmp_path)))
    outputs = run_qwen(cli, home, [tool_call("run_shell_command", {"command": "echo x > ran.txt"}), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in outputs[0], outputs


@pytest.mark.proves("qwen", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_and_a_rewritten_call_is_denied(cli, home, tmp_path):
    """Qwen 0.24.4 ignores a PreToolUse updatedInput: the rewritten call is denied, never run as it was."""
    install(harness.hook_argv("qwen", hook_file(tmp_path)))
    outputs = run_qwen(cli, home, [tool_call("run_shell_command", {"command": FORBIDDEN}),
                                   tool_call("run_shell_command", {"command": "echo original"}), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in outputs[0], outputs
    assert "cannot run a rewritten call" in outputs[1] and "Output:" not in outputs[1], outputs



@pytest.mark.parametrize(("wanted", "limit", "runs"), [(2, 3, 2), (99, 1, 2)])
@pytest.mark.proves("qwen", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_qwen_working_within_the_limit(cli, home, tmp_path, wanted, limit, runs):
    install(harness.hook_argv("qwen", harness.stop_gate(tmp_path, wanted, limit)))
    run_qwen(cli, home, [tool_call("run_shell_command", {"command": "echo ran >> RUNS"}), say("ok")] * 3)
    assert (home / "project" / "RUNS").read_text().count("ran") == runs




@pytest.mark.parametrize(("command", "approver", "ran", "seen"), [
    ("echo ran > RAN", True, ["RAN", "REWRITTEN"], None),              # allowed, with updated input
    ("echo ran > RAN", False, [], "not an approver"),                  # an allow from a non-approver denies
    ("touch DENIED", True, [], "no DENIED files here [decider]"),      # deny, the reason to the model
    ("touch CRASH", True, [], "permission_request fails closed"),          # an approver that raises: denied
])
@pytest.mark.proves("qwen", "permission_request", "block", "rewrite", "closed")
def test_the_permission_decision_on_qwens_prompt(cli, home, tmp_path, command, approver, ran, seen):
    """No opinion (Qwen then asks its client, and waits) is covered by the protocol tests: a stream-json
    run without a client answering never ends."""
    import json

    decider = tmp_path / "decider.py"
    decider.write_text(harness.decider(approver, rewrite=True))
    install([sys.executable, "-m", "agent_hooks_core", "qwen", "--hook", str(decider)])
    # qwen -p refuses what needs a prompt before any hook runs; stream-json mode would ask its
    # client, and fires PermissionRequest first
    message = json.dumps({"type": "user", "session_id": "s", "parent_tool_use_id": None,
                          "message": {"role": "user", "content": "go"}})
    with FakeModel([tool_call("run_shell_command", {"command": command}), say("ok")]) as model:
        proc = subprocess.run(["node", str(cli), "--input-format", "stream-json", "-o", "stream-json",
                               "--auth-type", "openai", "--openai-base-url", model.base_url, "--openai-api-key",
                               "dummy", "-m", "fake-model"], cwd=home / "project", env=base_env(home),
                              input=message + "\n", capture_output=True, text=True, timeout=300)
        results = model.tool_results()
    assert proc.returncode == 0, proc.stderr[-2000:]
    project = home / "project"
    assert sorted(p.name for p in project.iterdir() if p.name.isupper()) == ran
    assert len(results) == 1, results
    if seen is not None:
        assert seen in results[0], results
