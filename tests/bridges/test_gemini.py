"""The Gemini CLI adapter on recorded Gemini CLI 0.61 payloads, its answers, and the installer."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.gemini import install as gm
from agent_hooks_core.bridges.gemini.adapter import ADAPTER, BUILTIN_TOOLS, EVENTS

from .hostkit_support import SECRET, Recorder, Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("gemini")
#: top-level fields Gemini reads (docs/hosts/gemini.md); permissionDecision would be ignored
TOP = {"decision", "reason", "continue", "stopReason", "systemMessage", "suppressOutput", "hookSpecificOutput"}


def assert_gemini_shape(event: str, body: object) -> None:
    if body is None:
        return
    assert isinstance(body, dict) and set(body) <= TOP, body
    assert body.get("decision") in (None, "allow", "deny", "ask")
    if body.get("decision") == "deny":
        assert body["reason"].strip()
    spec = body.get("hookSpecificOutput")
    if spec is not None:
        assert spec["hookEventName"] == event


def test_registered_and_every_event_sampled():
    assert load_adapter("gemini") is ADAPTER
    assert {k.split("/")[0] for k in SAMPLES} == set(EVENTS)


EXPECTED = {
    "SessionStart": ["on_start", "session_start"], "SessionEnd": ["on_end"], "BeforeAgent": ["pre_message"],
    "AfterAgent": ["agent_end"], "BeforeModel": ["pre_api_request"], "AfterModel": [],
    "BeforeToolSelection": ["pre_api_tools"], "BeforeTool": ["pre_tool", "pre_shell_exec"],
    "BeforeTool/write_file": ["pre_tool", "pre_file_write"], "BeforeTool/replace": ["pre_tool", "pre_file_write"],
    "BeforeTool/read_file": ["pre_tool", "pre_file_read"],
    "BeforeTool/web_fetch": ["pre_tool", "pre_fetch_url", "pre_fetch_url"], "BeforeTool/mcp": ["pre_tool"],
    "AfterTool": ["pre_tool_output", "post_tool"], "AfterTool/error": ["pre_tool_output", "post_tool"],
    "PreCompress": ["pre_compact"], "Notification": [],
}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_each_payload_fires_its_hooks_and_answers_in_gemini_shape(key, tmp_path):
    rec = Recorder()
    answer = ADAPTER.handle(runtime(rec, cwd=str(tmp_path)), SAMPLES[key])
    assert rec.hooks() == EXPECTED[key]
    assert answer.exit_code == 0 and not answer.blocked
    assert_gemini_shape(SAMPLES[key]["hook_event_name"], answer.body)


def test_web_fetch_urls_come_out_of_the_prompt(tmp_path):
    rec = Recorder()
    ADAPTER.handle(runtime(rec, cwd=str(tmp_path)), SAMPLES["BeforeTool/web_fetch"])
    assert [e["url"] for h, e in rec.calls if h == "pre_fetch_url"] == ["https://example.com/a",
                                                                        "http://169.254.169.254/latest"]


@pytest.mark.parametrize(("key", "args"), [("BeforeTool", {"command": "sudo rm -rf ~"}),
                                           ("BeforeTool/replace", {"file_path": ".git/config", "old_string": "a",
                                                                   "new_string": "b"})])
def test_guard_denies_with_top_level_decision(key, args, tmp_path):
    ev = {**SAMPLES[key], "cwd": str(tmp_path), "tool_input": args}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.blocked and answer.body["decision"] == "deny" and "[guard:" in answer.body["reason"]
    assert_gemini_shape("BeforeTool", answer.body)


def test_ls_passes(tmp_path):
    ev = {**SAMPLES["BeforeTool"], "cwd": str(tmp_path), "tool_input": {"command": "ls"}}
    assert ADAPTER.handle(guard_runtime(str(tmp_path)), ev).body is None


def test_rewrite_replaces_the_arguments_and_leaves_removed_keys_out(tmp_path):
    plugin = Scripted(pre_tool={"arguments": {"command": "ls -la"}})
    ev = {**SAMPLES["BeforeTool"], "tool_input": {"command": "ls", "dir_path": "x"}}
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), ev)
    assert answer.body == {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "ls -la"}}}


def test_secret_in_output_replaced(tmp_path):
    ev = {**SAMPLES["AfterTool"], "cwd": str(tmp_path),
          "tool_response": {"llmContent": f"token={SECRET}", "returnDisplay": "x"}}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.body["decision"] == "deny"
    assert SECRET not in answer.body["reason"] and "[REDACTED:github-token]" in answer.body["reason"]


def test_tool_selection_is_an_allowlist(tmp_path):
    plugin = Scripted(pre_api_tools={"exclude": ["run_shell_command"]})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["BeforeToolSelection"])
    config = answer.body["hookSpecificOutput"]["toolConfig"]
    assert config["mode"] == "AUTO"
    assert config["allowedFunctionNames"] == [t for t in BUILTIN_TOOLS if t != "run_shell_command"]


def test_before_model_patch(tmp_path):
    plugin = Scripted(pre_api_request={"request_body": {"config": {"temperature": 0}}})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["BeforeModel"])
    assert answer.body["hookSpecificOutput"]["llm_request"]["config"]["temperature"] == 0


def test_prompt_block(tmp_path):
    answer = ADAPTER.handle(runtime(Scripted(pre_message={"block": True, "reason": "nope"}), cwd=str(tmp_path)),
                            SAMPLES["BeforeAgent"])
    assert answer.body == {"decision": "deny", "reason": "nope"} and answer.blocked


@pytest.mark.parametrize(("event", "code"), [("BeforeTool", 2), (None, 2), ("AfterAgent", 1)])
def test_failure(event, code):
    answer = ADAPTER.failure(event, "broke")
    assert answer.exit_code == code
    if code == 2:
        assert answer.body["decision"] == "deny" and "broke" in answer.body["reason"]


def test_the_command_fails_closed(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "gemini"], input=b"{oops",
                          capture_output=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and json.loads(proc.stdout)["decision"] == "deny"
    assert b"Traceback" not in proc.stderr


# -- installer -------------------------------------------------------------------------------

ARGV = [sys.executable, "-I", "-m", "agent_hooks_core", "gemini"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    return tmp_path


def test_install_idempotent_keeps_settings_and_uninstall_restores(home):
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    original = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "mine"}]}]}}
    settings.write_text(json.dumps(original))
    gm.plan_install("user", argv=ARGV).apply()
    assert not gm.plan_install("user", argv=ARGV).changed
    data = json.loads(settings.read_text())
    assert data["security"] == original["security"]
    ours = data["hooks"]["BeforeTool"][1]["hooks"][0]
    assert ours["timeout"] == 60_000 and ours["name"] == "agent-hooks"  # milliseconds
    assert set(data["hooks"]) == set(EVENTS)
    assert gm.status()[0].startswith("ok:")
    gm.plan_uninstall("user").apply()
    assert json.loads(settings.read_text()) == original


def test_project_needs_a_trusted_folder(home, tmp_path):
    project = tmp_path / "proj"
    plan = gm.plan_install("project", project, argv=ARGV)
    assert any("trusted folder" in n for n in plan.notes)
    plan.apply()
    assert any("not trusted" in line for line in gm.status(project))
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    assert any(line.startswith("ok:") and "project" in line for line in gm.status(project))


def test_disabled_hooks_are_problems(home):
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    assert any(line.startswith("problem:") and "turned off" in line for line in gm.status())


def test_dry_run(home):
    out = io.StringIO()
    gm.install("user", dry_run=True, out=out)
    assert "60000" in out.getvalue() and not (home / ".gemini").exists()
    assert os.environ["HOME"] == str(home)
