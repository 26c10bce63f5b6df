"""GitHub Copilot CLI 1.0.102 (the real binary from npm, offline) with `agenthooks install copilot`,
against the fake model (OpenAI chat) on 127.0.0.1: the guard's deny reaches the model, a benign
command runs, a failure of ours blocks, and repository hooks need a trusted folder (which doctor
reports)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges import copilot

from . import harness
from .fakemodel import FakeModel, say, tool_call
from .npm_agents import agents, base_env, run, write_json
from .probes import FORBIDDEN, REASON, hook_file


@pytest.fixture(scope="module")
def cli(npm_set) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return agents(npm_set) / "@github" / "copilot-linux-x64" / "copilot"


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch, unset=("COPILOT_HOME",)) as home:
        yield home


def run_copilot(cli: Path, home: Path, command: str, repeat: int = 1, mode: str = "--allow-all") -> list[str]:
    turns = [tool_call("bash", {"command": command, "description": "run it"}), say("ok")] * repeat
    with FakeModel(turns) as model:
        env = base_env(home, COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=model.base_url,
                       COPILOT_PROVIDER_API_KEY="dummy", COPILOT_MODEL="fake-model", COPILOT_AUTO_UPDATE="false")
        proc = run([str(cli), "-p", "go", mode, "--output-format", "json", "--no-auto-update",
                    "--disable-client-telemetry"], home / "project", env)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert not model.errors
        return model.tool_results()


def install(argv: list[str] | None = None, *extra: str) -> None:
    if argv is None:  # the command users run
        harness.install("copilot", *extra)
        return
    copilot.INSTALLER.plan_install("user", argv=argv).apply()


@pytest.mark.proves("copilot", "pre_tool", "block")
def test_rm_rf_home_is_denied_with_the_reason(cli, home):
    install()
    outputs = run_copilot(cli, home, "rm -rf ~")
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in outputs[0], outputs


def test_benign_runs(cli, home):
    install()
    outputs = run_copilot(cli, home, "echo benign-ran")
    assert "benign-ran" in outputs[0] and "guard" not in outputs[0], outputs


@pytest.mark.proves("copilot", "pre_tool", "closed")
@pytest.mark.proves("copilot", "pre_shell_exec", "closed")
def test_a_crash_of_ours_blocks(cli, home, tmp_path):
    install(harness.hook_argv("copilot", harness.broken_plugin(tmp_path)))
    outputs = run_copilot(cli, home, "echo x > ran.txt")
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in outputs[0], outputs


@pytest.mark.proves("copilot", "pre_shell_exec", "block")
@pytest.mark.proves("copilot", "pre_tool", "rewrite")
def test_a_shell_gate_blocks_and_a_rewrite_runs_as_rewritten(cli, home, tmp_path):
    install(harness.hook_argv("copilot", hook_file(tmp_path)))
    blocked = run_copilot(cli, home, FORBIDDEN)
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in blocked[0], blocked
    rewritten = run_copilot(cli, home, "echo original")
    assert "rewritten-ran" in rewritten[0] and "original" not in rewritten[0], rewritten


def test_repository_hooks_run_only_in_a_trusted_folder_and_doctor_says_so(cli, home, monkeypatch):
    project = home / "project"
    monkeypatch.chdir(project)
    install(None, "--project")
    assert any(line.startswith("warning:") and "trust" in line for line in copilot.INSTALLER.status(str(project)))
    (home / "keep" / "victim").write_text("x")
    run_copilot(cli, home, f"rm {home / 'keep' / 'victim'}")
    assert not (home / "keep" / "victim").exists()  # the trap: Copilot skipped our hooks silently
    write_json(home / ".copilot" / "config.json", {"trusted_folders": [str(project)]})
    assert not any(line.startswith("warning:") for line in copilot.INSTALLER.status(str(project))
                   if "trust" in line)
    outputs = run_copilot(cli, home, "rm -rf ~")
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in outputs[0], outputs
    assert json.loads((project / ".github" / "hooks" / "agent-hooks.json").read_text())["version"] == 1


@pytest.mark.parametrize(("wanted", "limit", "runs"), [(2, 3, 2), (99, 1, 2)])
@pytest.mark.proves("copilot", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_copilot_working_within_the_limit(cli, home, tmp_path, wanted, limit, runs):
    install(harness.hook_argv("copilot", harness.stop_gate(tmp_path, wanted, limit)))
    run_copilot(cli, home, "echo ran >> RUNS", repeat=3)
    assert (home / "project" / "RUNS").read_text().count("ran") == runs



NO_PROMPT = "no interactive user response was available"


@pytest.mark.parametrize(("command", "approver", "ran", "seen"), [
    ("echo ran > RAN", True, ["RAN"], None),                           # an approver's allow: no prompt needed
    ("echo ran > RAN", False, [], "not an approver"),                  # an allow from a non-approver denies
    ("touch DENIED", True, [], "no DENIED files here [decider]"),      # deny, the reason to the model
    ("touch UNDECIDED", True, [], NO_PROMPT),                          # no opinion: Copilot's own decision
    ("touch CRASH", True, [], "permission_request fails closed"),          # an approver that raises: denied
])
@pytest.mark.proves("copilot", "permission_request", "block", "closed")
def test_the_permission_decision_on_copilots_permission_check(cli, home, tmp_path, command, approver, ran, seen):
    decider = tmp_path / "decider.py"
    decider.write_text(harness.decider(approver))
    install([sys.executable, "-m", "agent_hooks_core", "copilot", "--hook", str(decider)])
    # tools are not pre-approved, so Copilot -p would refuse the command for want of a prompt
    results = run_copilot(cli, home, command, mode="--allow-all-paths")
    project = home / "project"
    assert sorted(p.name for p in project.iterdir() if p.name.isupper()) == ran
    assert len(results) == 1, results
    if seen is not None:
        assert seen in results[0], results


COUNTER = """
from pathlib import Path
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event, ctx):
    with open(Path(ctx.cwd, "COUNT"), "a") as f:
        f.write(ctx.host + "\\n")
"""


def test_with_claudes_project_hooks_too_each_event_reaches_the_plugins_once(cli, home, monkeypatch):
    """Copilot also runs a trusted repository's .claude/settings.json hooks. Ours there are exec-form
    (``command`` + ``args``), which Copilot 1.0.102 runs without the args: our Claude Code bridge does
    not start there, and the Copilot hooks answer alone. Shell-form entries would reach the Claude Code
    bridge, which then stands down for the Copilot hooks (tests/bridges/test_claude_format_hosts.py)."""
    import os

    project = home / "project"
    monkeypatch.chdir(project)
    counter = Path(os.environ["AGENT_HOOKS_HOME"]) / "counter.py"
    counter.write_text(COUNTER)
    (Path(os.environ["AGENT_HOOKS_HOME"]) / "settings.toml").write_text(f"hooks = [{str(counter)!r}]\n")
    trust = subprocess.run([sys.executable, "-m", "agent_hooks_core", "trust"], capture_output=True, text=True,
                           timeout=60, cwd=home)
    assert trust.returncode == 0, trust.stderr
    write_json(home / ".copilot" / "config.json", {"trusted_folders": [str(project)]})
    claude = subprocess.run([sys.executable, "-m", "agent_hooks_core", "install", "claude-code", "--project"],
                            capture_output=True, text=True, timeout=60)
    assert claude.returncode == 0, claude.stderr
    install()
    outputs = run_copilot(cli, home, "echo two")
    assert (project / "COUNT").read_text().splitlines() == ["copilot"], outputs
