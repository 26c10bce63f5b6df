"""Factory Droid 0.225.2 (the real binary from npm) with `agenthooks install droid`, against the
fake model (OpenAI chat) inside a private network namespace (Droid looks up external hosts): the
guard's deny reaches the model, a benign command runs, a failure of ours blocks, and a
``{"hooks": …}`` wrapper in hooks.json, which Droid silently ignores, is reported by doctor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_hooks_core.bridges import droid

from . import harness
from .fakemodel import say, tool_call
from .netns import run_in_netns
from .npm_agents import agents, base_env
from .probes import FORBIDDEN, REASON, hook_file


@pytest.fixture(scope="module")
def cli(npm_set) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return agents(npm_set) / "@factory" / "cli-linux-x64" / "bin" / "droid"


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch) as home:
        yield home


def run_droid(cli: Path, home: Path, command: str, repeat: int = 1) -> list[str]:
    model = {"model": "fake-model", "displayName": "Fake", "baseUrl": "{BASE}", "apiKey": "dummy",
             "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}
    # Droid rejects an Execute call without riskLevel and riskLevelReason before any hook runs
    call = {"command": command, "riskLevel": "low", "riskLevelReason": "a test"}
    env = base_env(home, FACTORY_OTEL_ENABLED="false", FACTORY_TELEMETRY_INGEST_BASE_URL="http://127.0.0.1:9")
    out = run_in_netns([str(cli), "exec", "-m", "custom:Fake-0", "--auto", "high", "-o", "json", "go"],
                       [tool_call("Execute", call), say("ok")] * repeat, env, home / "project",
                       files={str(home / ".factory" / "settings.json"): {"customModels": [model]}})
    assert out["returncode"] == 0 and not out["errors"], out
    return list(out["tool_results"])


def install(argv: list[str] | None = None) -> None:
    if argv is None:  # the command users run
        harness.install("droid")
        return
    droid.INSTALLER.plan_install("user", argv=argv).apply()


@pytest.mark.proves("droid", "pre_tool", "block")
def test_rm_rf_home_is_denied_with_the_reason(cli, home):
    install()
    outputs = run_droid(cli, home, "rm -rf ~")
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in outputs[0], outputs


def test_benign_runs(cli, home):
    install()
    outputs = run_droid(cli, home, "echo benign-ran")
    assert "benign-ran" in outputs[0] and "guard" not in outputs[0], outputs


@pytest.mark.proves("droid", "pre_tool", "closed")
@pytest.mark.proves("droid", "pre_shell_exec", "closed")
def test_a_crash_of_ours_blocks(cli, home, tmp_path):
    install(harness.hook_argv("droid", harness.broken_plugin(tmp_path)))
    outputs = run_droid(cli, home, "echo x > ran.txt")
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in outputs[0], outputs


@pytest.mark.proves("droid", "pre_shell_exec", "block")
@pytest.mark.proves("droid", "pre_tool", "rewrite")
def test_a_shell_gate_blocks_and_a_rewrite_runs_as_rewritten(cli, home, tmp_path):
    install(harness.hook_argv("droid", hook_file(tmp_path)))
    blocked = run_droid(cli, home, FORBIDDEN)
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in blocked[0], blocked
    rewritten = run_droid(cli, home, "echo original")
    assert "rewritten-ran" in rewritten[0] and "original" not in rewritten[0], rewritten


def test_a_hooks_wrapper_is_ignored_by_droid_and_reported_by_doctor(cli, home):
    install()
    path = home / ".factory" / "hooks.json"
    path.write_text(json.dumps({"hooks": json.loads(path.read_text())}))
    assert any(line.startswith("problem:") and "wrapper" in line for line in droid.INSTALLER.status(str(home)))
    (home / "keep" / "victim").write_text("x")
    run_droid(cli, home, f"rm {home / 'keep' / 'victim'}")
    assert not (home / "keep" / "victim").exists()  # the trap: Droid ran it, our hooks never saw it


@pytest.mark.parametrize(("wanted", "limit", "runs"), [(2, 3, 2), (99, 1, 2)])
@pytest.mark.proves("droid", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_droid_working_within_the_limit(cli, home, tmp_path, wanted, limit, runs):
    install(harness.hook_argv("droid", harness.stop_gate(tmp_path, wanted, limit)))
    run_droid(cli, home, "echo ran >> RUNS", repeat=3)
    assert (home / "project" / "RUNS").read_text().count("ran") == runs
