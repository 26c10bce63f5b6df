"""The untrusted-project notice reaches the user in every host, once per session per project.

A project with a hook file nobody trusted: discovery leaves it out and says so. Claude Code shows
it as ``systemMessage``, Codex gets a stderr line, pi (``serve --stdio``) a ``ui.notify``; each
session sees it once, a new session again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..bridges.payloads import event
from ..bridges.stdio_client import Session

HOOK = "from agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event):\n    return None\n"
CODEX = json.loads(Path(__file__).parent.parent.joinpath("bridges", "payloads", "codex.json").read_text())["recorded"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(home))
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    root = tmp_path / "project"
    (root / ".agent-hooks" / "hooks").mkdir(parents=True)
    (root / ".agent-hooks" / "hooks" / "sneaky.py").write_text(HOOK)
    return root


def _run(host: str, payload: dict) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "agent_hooks_core", host], input=json.dumps(payload).encode(),
                          capture_output=True, env=dict(os.environ), timeout=60)


def test_claude_code_shows_it_as_a_system_message_once_per_session(project):
    def message(session: str) -> str | None:
        proc = _run("claude-code", event("PreToolUse", str(project), session_id=session,
                                         tool_input={"command": "ls"}))
        assert proc.returncode == 0, proc.stderr
        return (json.loads(proc.stdout) if proc.stdout.strip() else {}).get("systemMessage")

    first = message("s1")
    assert first is not None and "skipped untrusted sneaky" in first and "agenthooks trust" in first
    assert message("s1") is None  # once per session
    assert message("s2") == first  # a new session is told again


def test_codex_gets_it_on_stderr_once_per_session(project):
    payload = {**CODEX["PreToolUse"], "cwd": str(project), "session_id": "c1"}
    first = _run("codex", payload)
    assert first.returncode == 0 and b"skipped untrusted sneaky" in first.stderr
    assert b"skipped untrusted" not in _run("codex", payload).stderr


def test_pi_gets_a_ui_notify_once_per_session(project):
    s = Session(project)
    try:
        s.initialize()
        call = {"type": "tool_call", "toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"}}
        s.event("tool_call", call)
        s.event("tool_call", call)
        notes = [n["params"]["message"] for n in s.notifications if n["method"] == "ui.notify"]
        assert len([m for m in notes if "skipped untrusted sneaky" in m]) == 1, notes
    finally:
        s.close()
