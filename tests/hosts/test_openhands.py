"""OpenHands CLI 1.16.0 (the real CLI from PyPI) with `agenthooks install openhands`, against the
fake model on 127.0.0.1 in a private network namespace: the guard's deny reaches the model, a
benign command runs, a failure of ours blocks, and a project's own hooks.json shadows the user's
(doctor says so)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges.openhands import install as oh

from . import harness
from .fakemodel import say, tool_call
from .netns import run_in_netns
from .pins import PINS
from .probes import FORBIDDEN, REASON, hook_file

VERSION = PINS["openhands"]


@pytest.fixture(scope="module")
def openhands(pypi_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return pypi_tool("openhands", VERSION, "openhands", pythons=("python3.12",))


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch, ".openhands") as home:
        yield home


def shell(command: str):
    # OpenHands rejects a terminal call without security_risk before any hook runs
    return tool_call("terminal", {"command": command, "security_risk": "LOW"})


def run_openhands(openhands: Path, home: Path, turns) -> list[str]:
    env = {**os.environ, "LLM_MODEL": "openai/fake-model", "LLM_API_KEY": "dummy", "LLM_BASE_URL": "{BASE}",
           "OPENHANDS_SUPPRESS_BANNER": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "NO_PROXY": "127.0.0.1,localhost", "AGENT_HOOKS_PLUGINS": "guard"}
    out = run_in_netns([str(openhands), "--headless", "--json", "--override-with-envs", "-t", "go"], turns, env,
                       home / "project", required=False)
    assert out["returncode"] == 0, out["stdout"][-2000:] + out["stderr"][-2000:]
    assert not out["errors"], out["errors"]
    return out["tool_results"]


def install(argv: list[str] | None = None, scope: str = "user", project: Path | None = None) -> None:
    if argv is None and project is None:  # the command users run
        harness.install("openhands")
        return
    oh.plan_install(scope, project, argv=argv).apply()


@pytest.mark.proves("openhands", "pre_tool", "block")
def test_rm_rf_home_is_denied_with_the_reason(openhands, home):
    install()
    results = run_openhands(openhands, home, [shell("rm -rf ~"), say("ok")])
    assert (home / "keep" / "file").read_text() == "still here"
    assert any("[guard:rm-broad]" in r for r in results), results


def test_benign_runs(openhands, home):
    install()
    results = run_openhands(openhands, home, [shell("echo benign-ran"), say("ok")])
    assert "benign-ran" in results[0] and "guard" not in results[0], results


def test_a_crash_of_ours_blocks(openhands, home, tmp_path):
    install(harness.hook_argv("openhands", harness.broken_plugin(tmp_path)))
    results = run_openhands(openhands, home, [shell("echo should-not-run > ran.txt"), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert any("fail-closed" in r for r in results), results


@pytest.mark.proves("openhands", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(openhands, home, tmp_path):
    install(harness.hook_argv("openhands", hook_file(tmp_path)))
    results = run_openhands(openhands, home, [shell(FORBIDDEN), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert any(REASON in r for r in results), results


def test_a_project_hooks_json_shadows_the_users_and_doctor_says_so(openhands, home):
    install()
    own = home / "project" / ".openhands"
    own.mkdir()
    (own / "hooks.json").write_text("{}")
    assert any(line.startswith("problem:") and "reads only that one" in line for line in oh.status(home / "project"))
    results = run_openhands(openhands, home, [shell("echo shadowed-ran"), say("ok")])
    assert "shadowed-ran" in results[0], results  # the trap doctor reports: our hooks did not run


GATE = """
from pathlib import Path
from agent_hooks_core import hookimpl

@hookimpl
def stop_gate(event, ctx):
    runs = Path(ctx.cwd, "RUNS").read_text().count("ran") if Path(ctx.cwd, "RUNS").exists() else 0
    if runs < WANTED:
        return {"continue": True, "reason": f"not done: only {runs} run(s), run it again"}
"""


@pytest.mark.parametrize(("wanted", "limit", "runs"), [
    (2, 3, 2),   # the gate keeps OpenHands working once, then lets it stop
    (99, 1, 2),  # a gate that never lets go: the user's limit stops it
])
@pytest.mark.proves("openhands", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_openhands_working_within_the_limit(openhands, home, tmp_path, wanted, limit, runs):
    gate = tmp_path / "gate.py"
    gate.write_text(GATE.replace("WANTED", str(wanted)))
    (Path(os.environ["AGENT_HOOKS_HOME"]) / "settings.toml").write_text(f"stop_gate_limit = {limit}\n")
    install([sys.executable, "-m", "agent_hooks_core", "openhands", "--hook", str(gate)])
    run_openhands(openhands, home, [shell("echo ran >> RUNS"), say("ok")] * 3)
    assert (home / "project" / "RUNS").read_text().count("ran") == runs
