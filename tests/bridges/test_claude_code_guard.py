"""The bridge with the real first-party guard plugin (installed in the test environment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .payloads import event

pytest.importorskip("agent_hooks_guard")


def bridge(ev: dict, *args: str) -> tuple[int, dict | None, str]:
    env = {**os.environ, "AGENT_HOOKS_PLUGINS": "guard"}
    env.pop("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", None)
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", *args],
                          input=json.dumps(ev), capture_output=True, text=True, env=env, cwd=ev["cwd"], timeout=60)
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else None), proc.stderr


def bash(cwd, command: str) -> dict:
    return event("PreToolUse", str(cwd), tool_input={"command": command, "description": "x"})


@pytest.mark.parametrize("command", ["rm -rf ~", "rm -r -f  ~/", "bash -c 'rm -rf ~'"])
def test_guard_denies_rm_rf_home(tmp_path, command):
    code, reply, err = bridge(bash(tmp_path, command))
    assert code == 0, err
    out = reply["hookSpecificOutput"]
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
    assert "[guard:" in out["permissionDecisionReason"]


def test_guard_lets_ls_through(tmp_path):
    assert bridge(bash(tmp_path, "ls -la")) == (0, None, "")


def test_with_ask_the_guard_asks_through_claude_code(tmp_path):
    code, reply, _ = bridge(bash(tmp_path, "rm -rf ~"), "--ask")
    out = reply["hookSpecificOutput"]
    assert (code, out["permissionDecision"]) == (0, "ask")
    assert "[guard:" in out["permissionDecisionReason"]


def test_guard_protects_secrets_from_reads(tmp_path):
    ev = event("PreToolUse", str(tmp_path), tool_name="Read", tool_input={"file_path": str(tmp_path / ".env")})
    code, reply, _ = bridge(ev)
    assert (code, reply["hookSpecificOutput"]["permissionDecision"]) == (0, "deny")


def test_guard_redacts_tool_output(tmp_path):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    ev = event("PostToolUse", str(tmp_path), tool_name="Bash", tool_input={"command": "env"},
               tool_response={"stdout": f"GITHUB_TOKEN={secret}\n", "stderr": "", "interrupted": False,
                              "isImage": False})
    code, reply, _ = bridge(ev)
    assert code == 0
    updated = reply["hookSpecificOutput"]["updatedToolOutput"]
    assert secret not in updated["stdout"] and updated["stderr"] == "" and updated["isImage"] is False
