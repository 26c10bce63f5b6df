"""Kimi CLI 1.51.0 (the real CLI from PyPI) with `agenthooks install kimi`, against the fake model
on 127.0.0.1: the guard's deny reaches the model, a benign command runs, a failure of ours blocks,
and the stop gate gets one more turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_hooks_core.bridges.kimi import install as km

from . import harness
from .fakemodel import FakeModel, say, tool_call
from .pins import PINS
from .probes import FORBIDDEN, REASON, hook_file

VERSION = PINS["kimi"]

CONFIG = """\
default_model = "fake"
telemetry = false

[providers.fake]
type = "openai_legacy"
base_url = "{base}"
api_key = "dummy"

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 100000
"""


@pytest.fixture(scope="module")
def kimi(pypi_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return pypi_tool("kimi-cli", VERSION, "kimi")


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch, ".kimi", unset=("KIMI_SHARE_DIR",)) as home:
        yield home


def run_kimi(kimi: Path, home: Path, turns) -> tuple[list[str], FakeModel]:
    """Kimi in print mode against a fake model playing ``turns``: the tool results it sent back last."""
    config = home / ".kimi" / "config.toml"
    with FakeModel(turns) as model:
        # our [[hooks]] stay; only the model settings are (re)written in front of them
        hooks = config.read_text().split("[[hooks]]", 1)[1] if config.exists() else ""
        config.write_text(CONFIG.format(base=model.base_url) + ("\n[[hooks]]" + hooks if hooks else ""))
        results = harness.run_agent([str(kimi), "--print", "-p", "go", "--output-format", "stream-json"], home,
                                    harness.local_env(KIMI_DISABLE_TELEMETRY="1"), model)
        return results, model


def install(argv: list[str] | None = None) -> None:
    if argv is None:  # the command users run
        harness.install("kimi")
        return
    km.plan_install(argv=argv).apply()


@pytest.mark.proves("kimi", "pre_tool", "block")
def test_rm_rf_home_is_denied_with_the_reason(kimi, home):
    install()
    results, _ = run_kimi(kimi, home, [tool_call("Shell", {"command": "rm -rf ~"}), say("ok")])
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in results[0], results


def test_benign_runs(kimi, home):
    install()
    results, _ = run_kimi(kimi, home, [tool_call("Shell", {"command": "echo benign-ran"}), say("ok")])
    assert "benign-ran" in results[0] and "guard" not in results[0], results


def test_a_crash_of_ours_blocks(kimi, home, tmp_path):
    install(harness.hook_argv("kimi", harness.broken_plugin(tmp_path)))
    results, _ = run_kimi(kimi, home, [tool_call("Shell", {"command": "echo should-not-run > ran.txt"}), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in results[0], results


@pytest.mark.proves("kimi", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(kimi, home, tmp_path):
    install(harness.hook_argv("kimi", hook_file(tmp_path)))
    results, _ = run_kimi(kimi, home, [tool_call("Shell", {"command": FORBIDDEN}), say("ok")])
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in results[0], results


def test_a_hook_that_cannot_start_fails_open_and_doctor_says_so(kimi, home, tmp_path):
    """Kimi's own rule, not ours: recorded so a Kimi release that changes it is noticed."""
    install([str(tmp_path / "gone" / "agenthooks"), "kimi"])
    assert any(line.startswith("problem:") and "does not exist" in line for line in km.status())
    results, _ = run_kimi(kimi, home, [tool_call("Shell", {"command": "echo open-ran"}), say("ok")])
    assert "open-ran" in results[0], results


GATE = """
from agent_hooks_core import hookimpl

@hookimpl
def stop_gate(event):
    return {"continue": True, "reason": "not done: run the tests"}
"""


@pytest.mark.proves("kimi", "stop_gate", "block", "continue")
def test_the_stop_gate_gets_one_more_turn(kimi, home, tmp_path):
    gate = tmp_path / "gate.py"
    gate.write_text(GATE)
    install(harness.hook_argv("kimi", gate))
    _, model = run_kimi(kimi, home, [say("finished"), say("ran them")])
    last_user = [m for m in model.requests[-1]["messages"] if m.get("role") == "user"][-1]
    assert "not done: run the tests" in str(last_user["content"]), model.requests[-1]["messages"]
    assert len(model.requests) == 2  # Kimi's own cap: one extra turn per prompt
