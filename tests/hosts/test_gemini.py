"""Gemini CLI 0.61.0 (the real binary from npm) with `agenthooks install gemini`, against a fake
Gemini API on 127.0.0.1: deny reaches the model, a benign command runs, a secret is redacted, a
failure of ours blocks, and project hooks need a trusted folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from agent_hooks_core.bridges.gemini import install as gm

from . import harness
from .fake_gemini import FakeGemini
from .pins import PINS
from .probes import FORBIDDEN, REASON, hook_file

VERSION = PINS["gemini"]
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture(scope="module")
def gemini(npm_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return npm_tool("@google/gemini-cli", VERSION, "gemini")


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch, ".gemini", unset=("GEMINI_CLI_TRUSTED_FOLDERS_PATH",)) as home:
        (home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
        yield home


def run_gemini(gemini: Path, home: Path, steps, *, trust: bool = True, extra_env: dict | None = None) -> list[str]:
    with FakeGemini(steps) as fake:
        env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{fake.port}", "GEMINI_API_KEY": "k",
               "NO_PROXY": "127.0.0.1,localhost", "AGENT_HOOKS_PLUGINS": "guard", **(extra_env or {})}
        if trust:
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        proc = subprocess.run([str(gemini), "-p", "go", "--approval-mode", "yolo", "-o", "json", "-m",
                               "gemini-2.5-flash"], cwd=home / "project", env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return fake.tool_outputs()


def install(argv: list[str] | None = None, scope: str = "user", project: Path | None = None) -> None:
    if argv is None and project is None:  # the command users run
        harness.install("gemini")
        return
    gm.plan_install(scope, project, argv=argv).apply()


@pytest.mark.proves("gemini", "pre_tool", "block")
def test_rm_rf_home_is_denied(gemini, home):
    install()
    outputs = run_gemini(gemini, home, [("shell", "sudo rm -rf ~"), ("text", "ok")])
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in outputs[0], outputs


def test_benign_runs(gemini, home):
    install()
    outputs = run_gemini(gemini, home, [("shell", "echo benign-ran"), ("text", "ok")])
    assert "benign-ran" in outputs[0] and "guard" not in outputs[0]


@pytest.mark.proves("gemini", "pre_tool_output", "rewrite")
def test_secret_redacted(gemini, home):
    install()
    outputs = run_gemini(gemini, home, [("shell", f"echo token={SECRET}"), ("text", "ok")])
    assert SECRET not in outputs[0] and "[REDACTED:github-token]" in outputs[0]


@pytest.mark.proves("gemini", "pre_tool", "closed")
@pytest.mark.proves("gemini", "pre_shell_exec", "closed")
def test_a_crash_of_ours_blocks(gemini, home, tmp_path):
    install(harness.hook_argv("gemini", harness.broken_plugin(tmp_path)))
    outputs = run_gemini(gemini, home, [("shell", "echo should-not-run > ran.txt"), ("text", "ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in outputs[0], outputs


@pytest.mark.proves("gemini", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(gemini, home, tmp_path):
    install(harness.hook_argv("gemini", hook_file(tmp_path)))
    outputs = run_gemini(gemini, home, [("shell", FORBIDDEN), ("text", "ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in outputs[0], outputs


def test_project_hooks_load_in_a_trusted_folder_only(gemini, home):
    install(scope="project", project=home / "project")
    assert any("not trusted" in line for line in gm.status(home / "project"))
    outputs = run_gemini(gemini, home, [("shell", "sudo rm -rf ~/keep"), ("text", "ok")])
    assert "[guard:" in outputs[0], outputs


REWRITE = """
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event):
    if event.arguments.get("command") == "echo original":
        return {"arguments": {"command": "echo rewritten-ran"}}  # description removed
"""


@pytest.mark.proves("gemini", "pre_tool", "rewrite")
def test_a_rewrite_that_removes_an_argument_runs_as_rewritten(gemini, home, tmp_path):
    """Gemini CLI replaces the arguments and revalidates them: a removed key must be absent, not null."""
    hook = tmp_path / "rewrite.py"
    hook.write_text(REWRITE)
    install(harness.hook_argv("gemini", hook))
    call = json.dumps({"name": "run_shell_command", "args": {"command": "echo original", "description": "say it"}})
    outputs = run_gemini(gemini, home, [("call", call), ("text", "ok")])
    assert "rewritten-ran" in outputs[0] and "original" not in outputs[0], outputs


@pytest.mark.parametrize(("wanted", "limit", "runs"), [(2, 3, 2), (99, 1, 2)])
@pytest.mark.proves("gemini", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_gemini_working_within_the_limit(gemini, home, tmp_path, wanted, limit, runs):
    install(harness.hook_argv("gemini", harness.stop_gate(tmp_path, wanted, limit)))
    run_gemini(gemini, home, [("shell", "echo ran >> RUNS"), ("text", "ok")] * 3)
    assert (home / "project" / "RUNS").read_text().count("ran") == runs
