"""Codex 0.169.0 (the real binary from npm) with `agenthooks install codex`, against a fake
Responses API on 127.0.0.1: the guard's deny reaches the model, a benign command runs, a secret
in a command's output is redacted, and a failure of ours blocks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges.codex import install as cx

from . import harness
from .fake_responses import FakeResponses
from .pins import PINS
from .probes import FORBIDDEN, REASON, hook_file

VERSION = PINS["codex"]
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture(scope="module")
def codex(npm_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return npm_tool("@openai/codex", VERSION, "codex")


@pytest.fixture
def home(tmp_path, monkeypatch):
    with harness.agent_home(tmp_path, monkeypatch) as home:
        monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
        yield home


#: how the tests run Codex: no approvals and no sandbox, so nothing but our hooks decides
BYPASS = ("--dangerously-bypass-approvals-and-sandbox",)


def run_codex(codex: Path, home: Path, steps: list[tuple[str, str]], argv: list[str] | None = None,
              fake_out: list[FakeResponses] | None = None, mode: tuple[str, ...] = BYPASS, config_lines: str = ""):
    project = home / "project"
    project.mkdir(exist_ok=True)
    if argv is None:
        harness.install("codex")
    else:
        cx.plan_install("user", argv=argv).apply()
    with FakeResponses(steps) as fake:
        config = home / ".codex" / "config.toml"
        config.write_text(
            f'model = "gpt-5-codex"\nmodel_provider = "fake"\n{config_lines}\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "http://127.0.0.1:{fake.port}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n\n'
            + config.read_text())
        env = {**os.environ, "FAKE_KEY": "k", "NO_PROXY": "127.0.0.1,localhost", "AGENT_HOOKS_PLUGINS": "guard"}
        env.pop("OPENAI_API_KEY", None)
        proc = subprocess.run([str(codex), "exec", "--skip-git-repo-check", "--json", *mode, "-C", str(project), "go"],
                              capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-3000:]
        if fake_out is not None:
            fake_out.append(fake)
        return fake.tool_outputs(), proc


def test_install_reports_trusted(codex, home):
    cx.plan_install("user").apply()
    assert cx.status()[0].startswith("ok:"), cx.status()


@pytest.mark.proves("codex", "pre_tool", "block")
def test_rm_rf_home_is_denied_and_the_model_sees_why(codex, home):
    outputs, _ = run_codex(codex, home, [("shell", "sudo rm -rf ~"), ("text", "ok")])
    assert (home / "keep" / "file").read_text() == "still here"
    assert len(outputs) == 1 and "[guard:rm-broad]" in outputs[0], outputs


def test_a_benign_command_runs(codex, home):
    outputs, _ = run_codex(codex, home, [("shell", "ls keep-me-not-here; echo benign-ran"), ("text", "ok")])
    assert "benign-ran" in outputs[0] and "guard" not in outputs[0]


@pytest.mark.proves("codex", "pre_tool_output", "rewrite")
def test_a_secret_in_output_is_redacted(codex, home):
    outputs, _ = run_codex(codex, home, [("shell", f"echo token={SECRET}"), ("text", "ok")])
    assert SECRET not in outputs[0] and "[REDACTED:github-token]" in outputs[0]


@pytest.mark.proves("codex", "pre_tool", "closed")
@pytest.mark.proves("codex", "pre_shell_exec", "closed")
def test_a_crash_of_ours_blocks(codex, home, tmp_path):
    argv = harness.hook_argv("codex", harness.broken_plugin(tmp_path))
    outputs, _ = run_codex(codex, home, [("shell", "echo should-not-run"), ("text", "ok")], argv=argv)
    assert "should-not-run" not in outputs[0].replace("echo should-not-run", "")
    assert "fail-closed" in outputs[0], outputs


@pytest.mark.proves("codex", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(codex, home, tmp_path):
    argv = harness.hook_argv("codex", hook_file(tmp_path))
    outputs, _ = run_codex(codex, home, [("shell", FORBIDDEN), ("text", "ok")], argv=argv)
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in outputs[0], outputs


def test_untrusted_hooks_are_skipped_and_doctor_says_so(codex, home):
    cx.plan_install("user", trust=False).apply()
    assert any("installed but untrusted" in line for line in cx.status())


@pytest.mark.parametrize(("wanted", "limit", "runs"), [
    (2, 3, 2),   # the gate keeps Codex working once, then lets it stop
    (99, 1, 2),  # a gate that never lets go: the user's limit stops it
])
@pytest.mark.proves("codex", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_codex_working_within_the_limit(codex, home, tmp_path, wanted, limit, runs):
    argv = harness.hook_argv("codex", harness.stop_gate(tmp_path, wanted, limit))
    fakes: list[FakeResponses] = []
    run_codex(codex, home, [("shell", "echo ran >> RUNS"), ("text", "ok")] * 3, argv=argv, fake_out=fakes)
    assert (home / "project" / "RUNS").read_text().count("ran") == runs
    assert "not done: only 1 run(s), run it again" in json.dumps(fakes[0].requests)  # the reason reached the model



#: Codex asks before a command the model wants run outside the sandbox. ``codex exec`` has no prompt
#: (it forces approval_policy never) except with --approve-for-me, which sends what no hook decided
#: to its automatic reviewer (here the fake model, whose answer it cannot read: a rejection)
ASKS = 'approval_policy = "on-request"\nsandbox_mode = "workspace-write"\n'


@pytest.mark.parametrize(("command", "approver", "ran", "seen"), [
    ("echo ran > RAN", True, ["ASKED", "RAN"], None),                     # an approver's allow: no prompt
    ("echo ran > RAN", False, ["ASKED"], "not an approver"),              # an allow from a non-approver denies
    ("touch DENIED", True, ["ASKED"], "no DENIED files here [decider]"),  # deny, the reason to the model
    ("touch UNDECIDED", True, ["ASKED"], "automatic approval review"),    # no opinion: Codex's own review
    ("touch CRASH", True, ["ASKED"], "permission_request fails closed"),   # an approver that raises: denied
])
@pytest.mark.proves("codex", "permission_request", "block", "closed")
def test_the_permission_decision_on_codexs_approval(codex, home, tmp_path, command, approver, ran, seen):
    decider = tmp_path / "decider.py"
    decider.write_text(harness.decider(approver, asked=True))
    argv = [sys.executable, "-m", "agent_hooks_core", "codex", "--hook", str(decider)]
    outputs, _ = run_codex(codex, home, [("escalated", command), ("text", "ok")], argv=argv,
                           mode=("--approve-for-me",), config_lines=ASKS)
    project = home / "project"
    assert sorted(p.name for p in project.iterdir() if p.name.isupper()) == ran, outputs
    assert len(outputs) == 1, outputs
    if seen is not None:
        assert seen in outputs[0], outputs
