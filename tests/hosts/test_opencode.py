"""OpenCode 1.18.33 (the real binary from npm) with `agenthooks install opencode`: the shipped
plugin talks to `agenthooks serve --stdio`; against a fake chat-completions server on 127.0.0.1
the guard's deny reaches the model, a benign command runs, a secret is redacted, and a server
that cannot start or a plugin that fails to load blocks the tool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

try:
    from agent_hooks_core.serve import stdio  # noqa: F401  (serve --stdio)
except ImportError:  # pragma: no cover - until the stdio transport is installed
    pytest.skip("agenthooks serve --stdio is not available", allow_module_level=True)

from agent_hooks_core.bridges.opencode import install as oc

from .fake_chat import FakeChat
from .pins import PINS
from .probes import FORBIDDEN, REASON, hook_file

VERSION = PINS["opencode"]
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
QUIET = {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
         "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1"}


def write_config(project: Path, base_url: str) -> None:
    """The project's ``opencode.json``: the fake model at ``base_url`` its only provider, every
    permission granted (what runs is the hooks' to decide)."""
    config = {"$schema": "https://opencode.ai/config.json", "model": "fake/m1",
              "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                                    "options": {"baseURL": base_url, "apiKey": "k"},
                                    "models": {"m1": {"name": "m1", "tool_call": True}}}},
              "permission": {"bash": "allow", "external_directory": "allow", "edit": "allow"}}
    (project / "opencode.json").write_text(json.dumps(config))


@pytest.fixture(scope="module")
def opencode(npm_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return npm_tool("opencode-ai", VERSION, "opencode")


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    (home / "keep").mkdir(parents=True)
    (home / "keep" / "file").write_text("still here")
    (home / "project").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


def run_opencode(opencode: Path, home: Path, command: str) -> list[str]:
    project = home / "project"
    with FakeChat([("call", "bash", {"command": command, "description": "run it"}), ("text", "ok", None)]) as fake:
        write_config(project, fake.base_url)
        env = {**os.environ, **QUIET, "PWD": str(project), "AGENT_HOOKS_PLUGINS": "guard",
               "NO_PROXY": "127.0.0.1,localhost"}
        proc = subprocess.run([str(opencode), "run", "--model", "fake/m1", "go"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return fake.tool_results()


@pytest.mark.proves("opencode", "pre_tool", "block")
def test_rm_rf_home_is_denied(opencode, home):
    oc.plan_install("user").apply()
    results = run_opencode(opencode, home, "sudo rm -rf ~")
    assert (home / "keep" / "file").read_text() == "still here"
    assert "[guard:rm-broad]" in results[0], results


@pytest.mark.proves("opencode", "pre_tool_output", "rewrite")
def test_benign_runs_and_secret_is_redacted(opencode, home):
    oc.plan_install("user").apply()
    results = run_opencode(opencode, home, f"echo benign-ran token={SECRET}")
    assert "benign-ran" in results[0]
    assert SECRET not in results[0] and "[REDACTED:github-token]" in results[0]


@pytest.mark.proves("opencode", "pre_tool", "closed")
@pytest.mark.proves("opencode", "pre_shell_exec", "closed")
def test_a_server_that_cannot_start_blocks(opencode, home):
    oc.plan_install("user", python=str(home / "no-such-python")).apply()
    results = run_opencode(opencode, home, "echo should-not-run > ran.txt")
    assert not (home / "project" / "ran.txt").exists()
    assert "fail-closed" in results[0], results


@pytest.mark.proves("opencode", "pre_tool", "closed")
@pytest.mark.proves("opencode", "pre_shell_exec", "closed")
def test_a_plugin_that_fails_to_load_blocks(opencode, home, tmp_path):
    broken = tmp_path / "broken_plugin.py"
    broken.write_text("raise RuntimeError('plugin exploded at import')\n")
    oc.plan_install("project", home / "project", python=sys.executable, args=["--hook", str(broken)]).apply()
    results = run_opencode(opencode, home, "echo should-not-run > ran.txt")
    assert not (home / "project" / "ran.txt").exists()
    assert "exploded" in results[0] or "fail-closed" in results[0], results


@pytest.mark.proves("opencode", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(opencode, home, tmp_path):
    oc.plan_install("project", home / "project", python=sys.executable,
                    args=["--hook", str(hook_file(tmp_path))]).apply()
    results = run_opencode(opencode, home, FORBIDDEN)
    assert not (home / "project" / "ran.txt").exists()
    assert REASON in results[0], results
