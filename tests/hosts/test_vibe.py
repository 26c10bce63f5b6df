"""Mistral Vibe 3.0.2 (the real CLI from PyPI) with `agenthooks install vibe`, against the fake
model on 127.0.0.1: the guard's deny reaches the model, a benign command runs, a failure of ours
blocks (strict = true), and project hooks load only in a trusted folder (doctor says so)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from agent_hooks_core.bridges.vibe import install as vb

from . import harness
from .fakemodel import FakeModel, say, tool_call
from .pins import PINS
from .probes import FORBIDDEN, REASON, hook_file

VERSION = PINS["vibe"]

CONFIG = """\
active_model = "fake"
enable_telemetry = false
enable_update_checks = false
enable_auto_update = false

[[providers]]
name = "fake"
api_base = "{base}"
api_key_env_var = "FAKE_API_KEY"
api_style = "openai"

[[models]]
name = "fake-model"
provider = "fake"
alias = "fake"
"""


@pytest.fixture(scope="module")
def vibe(pypi_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return pypi_tool("mistral-vibe", VERSION, "vibe")


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch, ".vibe", unset=("VIBE_HOME",)) as home:
        yield home


def run_vibe(vibe: Path, home: Path, turns, *, args: tuple[str, ...] = ()) -> list[str]:
    """Vibe in print mode against a fake model playing ``turns``; the tool results it sent back."""
    with FakeModel(turns) as model:
        (home / ".vibe" / "config.toml").write_text(CONFIG.format(base=model.base_url))
        return harness.run_agent([str(vibe), "-p", "go", "--auto-approve", "--output", "json", *args], home,
                                 harness.local_env(FAKE_API_KEY="dummy"), model)


def install(argv: list[str] | None = None, scope: str = "user", project: Path | None = None) -> None:
    if argv is None and project is None:  # the command users run
        harness.install("vibe")
        return
    vb.plan_install(scope, project, argv=argv).apply()


@pytest.mark.proves("vibe", "pre_tool", "block")
def test_rm_rf_home_is_denied_with_the_reason(vibe, home):
    install()
    results = run_vibe(vibe, home, [tool_call("bash", {"command": "rm -rf ~"}), say("ok")])
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in results[0], results


def test_benign_runs(vibe, home):
    install()
    results = run_vibe(vibe, home, [tool_call("bash", {"command": "echo benign-ran"}), say("ok")])
    assert "benign-ran" in results[0] and "guard" not in results[0], results


@pytest.mark.proves("vibe", "pre_tool", "closed")
@pytest.mark.proves("vibe", "pre_shell_exec", "closed")
def test_a_crash_of_ours_blocks(vibe, home, tmp_path):
    install(harness.hook_argv("vibe", harness.broken_plugin(tmp_path)))
    results = run_vibe(vibe, home, [tool_call("bash", {"command": "echo should-not-run > ran.txt"}), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in results[0], results


@pytest.mark.proves("vibe", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(vibe, home, tmp_path):
    install(harness.hook_argv("vibe", hook_file(tmp_path)))
    results = run_vibe(vibe, home, [tool_call("bash", {"command": FORBIDDEN}), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in results[0], results


@pytest.mark.proves("vibe", "pre_tool", "closed")
@pytest.mark.proves("vibe", "pre_shell_exec", "closed")
def test_a_bridge_that_cannot_start_blocks(vibe, home, tmp_path):
    """strict = true: a hook command that does not even run is a deny, not a silent allow."""
    install([str(tmp_path / "gone" / "agenthooks"), "vibe"])
    assert any(line.startswith("problem:") and "does not exist" in line for line in vb.status())
    results = run_vibe(vibe, home, [tool_call("bash", {"command": "echo should-not-run > ran.txt"}), say("ok")])
    assert not (home / "project" / "ran.txt").exists(), results


def test_project_hooks_load_in_a_trusted_folder_only(vibe, home):
    project = home / "project"
    install(scope="project", project=project)
    assert any("not trusted" in line and line.startswith("warning:") for line in vb.status(project))
    skipped = run_vibe(vibe, home, [tool_call("bash", {"command": "echo untrusted-ran"}), say("ok")])
    assert "untrusted-ran" in skipped[0], skipped  # the trap doctor warns about: silently skipped
    results = run_vibe(vibe, home, [tool_call("bash", {"command": "rm -rf ~"}), say("ok")], args=("--trust",))
    assert (home / "keep" / "file").exists()
    assert "[guard:" in results[0], results


REWRITE = """
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event):
    if event.arguments.get("command") == "echo original":
        return {"arguments": {"command": "echo rewritten-ran"}}
"""


@pytest.mark.proves("vibe", "pre_tool", "rewrite")
def test_a_rewrite_runs_as_rewritten(vibe, home, tmp_path):
    hook = tmp_path / "rewrite.py"
    hook.write_text(REWRITE)
    install(harness.hook_argv("vibe", hook))
    results = run_vibe(vibe, home, [tool_call("bash", {"command": "echo original"}), say("ok")])
    assert "rewritten-ran" in results[0] and "original" not in results[0], results


SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.proves("vibe", "pre_tool_output", "rewrite")
def test_a_secret_in_the_output_is_redacted(vibe, home):
    install()
    results = run_vibe(vibe, home, [tool_call("bash", {"command": f"echo token={SECRET}"}), say("ok")])
    assert SECRET not in results[0] and "[REDACTED:github-token]" in results[0], results


GATE = """
from agent_hooks_core import hookimpl

@hookimpl
def stop_gate(event):
    return {"continue": True, "reason": "not done: run the tests"}
"""


@pytest.mark.proves("vibe", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_vibe_working_within_the_limit(vibe, home, tmp_path):
    gate = tmp_path / "gate.py"
    gate.write_text(GATE)
    (Path(os.environ["AGENT_HOOKS_HOME"]) / "settings.toml").write_text("stop_gate_limit = 1\n")
    install(harness.hook_argv("vibe", gate))
    with FakeModel([say("finished"), say("ran them"), say("again")]) as model:
        (home / ".vibe" / "config.toml").write_text(CONFIG.format(base=model.base_url))
        proc = subprocess.run([str(vibe), "-p", "go", "--auto-approve", "--output", "json"], cwd=home / "project",
                              env={**os.environ, "FAKE_API_KEY": "dummy", "AGENT_HOOKS_PLUGINS": ""},
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-2000:]
    users = [m for m in model.requests[-1]["messages"] if m.get("role") == "user"]
    assert "not done: run the tests" in str(users[-1]["content"]), model.requests[-1]["messages"]
    assert len(model.requests) == 2  # the user's stop_gate_limit = 1: one more turn, then it stops
