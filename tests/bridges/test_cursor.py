"""The Cursor adapter on payloads built from Cursor's documented hook inputs (no Cursor binary
can be installed here: protocol tests only), and its installer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.cursor import install as cu
from agent_hooks_core.bridges.cursor.adapter import ADAPTER, EVENTS, GATING

from .hostkit_support import SECRET, Recorder, Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("cursor")

#: each gating event's answer fields (docs/hosts/cursor.md)
SHAPES = {
    "preToolUse": {"decision", "permission", "reason", "updated_input"},
    "beforeShellExecution": {"permission", "user_message", "agent_message"},
    "beforeMCPExecution": {"permission", "user_message", "agent_message"},
    "beforeReadFile": {"permission", "user_message"},
    "subagentStart": {"decision", "reason"},
    "beforeSubmitPrompt": {"continue", "user_message"},
    "sessionStart": {"env", "additional_context", "continue", "user_message"},
    "postToolUse": {"updated_mcp_tool_output"},
}


def assert_cursor_shape(event: str, body: object) -> None:
    if body is None:
        return
    assert isinstance(body, dict) and set(body) <= SHAPES[event], (event, body)


def test_registered_and_every_event_sampled():
    assert load_adapter("cursor") is ADAPTER
    assert {k.split("/")[0] for k in SAMPLES} == set(EVENTS)


EXPECTED = {
    "sessionStart": ["on_start", "session_start"], "sessionEnd": ["on_end"],
    "preToolUse": ["pre_tool", "pre_shell_exec"], "preToolUse/Write": ["pre_tool", "pre_file_write"],
    "preToolUse/Read": ["pre_tool", "pre_file_read"], "postToolUse": ["pre_tool_output", "post_tool"],
    "postToolUse/mcp": ["pre_tool_output", "post_tool"], "postToolUseFailure": ["pre_tool_output", "post_tool"],
    "subagentStart": ["pre_spawn_agent"], "subagentStop": ["post_spawn_agent"],
    "beforeShellExecution": ["pre_tool", "pre_shell_exec"], "afterShellExecution": [],
    "beforeMCPExecution": ["pre_tool"], "afterMCPExecution": [], "beforeReadFile": ["pre_tool", "pre_file_read"],
    "afterFileEdit": ["post_tool"], "beforeSubmitPrompt": ["pre_message"], "preCompact": ["pre_compact"],
    "stop": ["agent_end"], "afterAgentResponse": [], "afterAgentThought": [],
}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_each_payload(key, tmp_path):
    rec = Recorder()
    ev = SAMPLES[key]
    answer = ADAPTER.handle(runtime(rec, cwd=str(tmp_path)), ev)
    assert rec.hooks() == EXPECTED[key]
    assert not answer.blocked and answer.exit_code == 0
    if answer.body is not None:
        assert_cursor_shape(ev["hook_event_name"], answer.body)


@pytest.mark.parametrize(("key", "change", "field"), [
    ("preToolUse", {"tool_input": {"command": "sudo rm -rf ~"}}, "decision"),
    ("beforeShellExecution", {"command": "sudo rm -rf ~"}, "permission"),
    ("beforeReadFile", {"file_path": "/repo/.env"}, "permission"),
    ("preToolUse/Write", {"tool_input": {"file_path": ".git/config", "contents": "x"}}, "decision"),
])
def test_guard_denies_in_each_events_shape(key, change, field, tmp_path):
    ev = {**SAMPLES[key], **change, "workspace_roots": [str(tmp_path)], "cwd": str(tmp_path)}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.blocked and answer.body[field] == "deny", answer.body
    if key.startswith("preToolUse"):
        assert answer.body["permission"] == "deny" and "[guard:" in answer.body["reason"]
    assert_cursor_shape(ev["hook_event_name"], answer.body)


def test_ls_allowed(tmp_path):
    ev = {**SAMPLES["beforeShellExecution"], "command": "ls", "cwd": str(tmp_path)}
    assert ADAPTER.handle(guard_runtime(str(tmp_path)), ev).body == {"permission": "allow"}


def test_rewrite_on_pre_tool_use_and_refused_where_it_cannot_be_said(tmp_path):
    plugin = Scripted(pre_tool={"arguments": {"command": "ls -la"}})
    rt = runtime(plugin, cwd=str(tmp_path))
    assert ADAPTER.handle(rt, SAMPLES["preToolUse"]).body["updated_input"] == {"command": "ls -la"}
    refused = ADAPTER.handle(rt, SAMPLES["beforeShellExecution"])
    assert refused.blocked and refused.body["permission"] == "deny"


def test_mcp_output_redacted_other_output_cannot_be(tmp_path):
    ev = {**SAMPLES["postToolUse/mcp"], "tool_output": f"token={SECRET}"}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert "[REDACTED:github-token]" in answer.body["updated_mcp_tool_output"]
    shell = ADAPTER.handle(guard_runtime(str(tmp_path)), {**SAMPLES["postToolUse"], "tool_output": f"t={SECRET}"})
    assert shell.body is None


def test_mcp_tool_input_string_is_parsed(tmp_path):
    plugin = Scripted(pre_tool={"block": True, "reason": "no issues today"})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["beforeMCPExecution"])
    assert plugin.calls[0][1]["arguments"] == {"title": "x"}
    assert answer.body["permission"] == "deny" and answer.body["agent_message"] == "no issues today"


@pytest.mark.parametrize("event", sorted(GATING))
def test_failure_on_gating_events_is_deny_and_exit_2(event):
    answer = ADAPTER.failure(event, "broke")
    assert answer.exit_code == 2 and answer.blocked
    assert "deny" in answer.body.values()


def test_the_command_fails_closed(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "cursor", "--event", "beforeReadFile"],
                          input=b"", capture_output=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and json.loads(proc.stdout)["permission"] == "deny"


# -- installer -----------------------------------------------------------------------------------

def test_install_fail_closed_idempotent_uninstall(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    path = tmp_path / ".cursor" / "hooks.json"
    path.parent.mkdir()
    mine = {"version": 1, "hooks": {"stop": [{"command": "./mine.sh"}]}}
    path.write_text(json.dumps(mine))
    argv = [sys.executable, "-I", "-m", "agent_hooks_core", "cursor"]
    cu.plan_install("user", argv=argv).apply()
    assert not cu.plan_install("user", argv=argv).changed
    data = json.loads(path.read_text())
    assert data["hooks"]["stop"][0] == {"command": "./mine.sh"}
    for event in GATING:
        assert data["hooks"][event][0]["failClosed"] is True
    assert "failClosed" not in data["hooks"]["stop"][1]
    assert cu.status()[0].startswith("ok:")
    data["hooks"]["beforeReadFile"][0]["failClosed"] = False
    path.write_text(json.dumps(data))
    assert any(line.startswith("problem:") and "beforeReadFile" in line for line in cu.status())
    cu.plan_uninstall("user").apply()
    assert json.loads(path.read_text()) == mine
