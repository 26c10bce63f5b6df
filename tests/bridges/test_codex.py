"""The Codex adapter on recorded Codex 0.169 payloads, and its answers' shapes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.codex.adapter import ADAPTER, EVENTS

from .hostkit_support import SECRET, Recorder, Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("codex")

#: what Codex accepts in a reply, per event (host-protocols C4 / docs/hosts/codex.md); anything
#: else makes the run "failed", which lets the tool run
ALLOWED_SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput",
                   "additionalContext"},
    "PermissionRequest": {"hookEventName", "decision"},
    "PostToolUse": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SubagentStart": {"hookEventName", "additionalContext"},
}
ALLOWED_TOP = {"PreToolUse": {"hookSpecificOutput"}, "PermissionRequest": {"hookSpecificOutput"},
               "PostToolUse": {"hookSpecificOutput", "decision", "reason"},
               "UserPromptSubmit": {"hookSpecificOutput", "decision", "reason"},
               "PreCompact": {"continue", "stopReason"}}


def assert_codex_shape(event: str, body: object) -> None:
    if body is None:
        return
    assert isinstance(body, dict)
    assert set(body) <= ALLOWED_TOP.get(event, {"hookSpecificOutput"}), body
    spec = body.get("hookSpecificOutput")
    if spec is not None:
        assert spec["hookEventName"] == event
        assert set(spec) <= ALLOWED_SPECIFIC[event], spec
        if spec.get("permissionDecision") == "deny":
            assert spec["permissionDecisionReason"].strip()
        if spec.get("permissionDecision") is not None:
            assert spec["permissionDecision"] in ("deny", "allow")
            if spec["permissionDecision"] == "allow":
                assert "updatedInput" in spec


def test_registered():
    assert load_adapter("codex") is ADAPTER


def test_every_event_has_a_sample_and_maps():
    names = {k.split("/")[0] for k in SAMPLES}
    assert names == set(EVENTS)


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_every_payload_is_handled_in_codex_shapes(key, tmp_path):
    ev = SAMPLES[key]
    rec = Recorder()
    answer = ADAPTER.handle(runtime(rec, cwd=str(tmp_path)), ev)
    assert answer.exit_code == 0 and not answer.blocked
    assert_codex_shape(ev["hook_event_name"], answer.body)


EXPECTED_HOOKS = {
    "SessionStart": ["on_start", "session_start"],
    "SessionEnd": ["on_end"],
    "UserPromptSubmit": ["pre_message"],
    "PreToolUse": ["pre_tool", "pre_shell_exec"],
    "PreToolUse/apply_patch": ["pre_tool", "pre_file_write", "pre_file_write"],
    "PreToolUse/mcp": ["pre_tool"],
    "PermissionRequest": ["pre_shell_exec"],
    "PostToolUse": ["pre_tool_output", "post_tool"],
    "PostToolUse/mcp": ["pre_tool_output", "post_tool"],
    "PreCompact": ["pre_compact"],
    "PostCompact": ["post_compact"],
    "SubagentStart": ["pre_spawn_agent"],
    "SubagentStop": ["post_spawn_agent"],
    "Stop": ["agent_end"],
    "Interrupt": [],
    "PreModelRequest": [],
    "PostModelRequest": [],
}


@pytest.mark.parametrize("key", sorted(EXPECTED_HOOKS))
def test_canonical_hooks_fired(key, tmp_path):
    rec = Recorder()
    ADAPTER.handle(runtime(rec, cwd=str(tmp_path)), SAMPLES[key])
    assert rec.hooks() == EXPECTED_HOOKS[key]


def test_apply_patch_is_one_write_per_file(tmp_path):
    rec = Recorder()
    ADAPTER.handle(runtime(rec, cwd="/repo"), SAMPLES["PreToolUse/apply_patch"])
    writes = [e for h, e in rec.calls if h == "pre_file_write"]
    assert [(w["path"], w.get("content")) for w in writes] == [("/repo/notes/todo.txt", "first\nsecond\n"),
                                                               ("/repo/src/app.py", None)]


@pytest.mark.parametrize("command", ["sudo rm -rf ~", "rm -rf ~/"])
def test_guard_denies_in_the_deny_shape(tmp_path, command):
    ev = {**SAMPLES["PreToolUse"], "cwd": str(tmp_path), "tool_input": {"command": command}}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.blocked and answer.exit_code == 0
    assert_codex_shape("PreToolUse", answer.body)
    spec = answer.body["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny" and "[guard:rm-broad]" in spec["permissionDecisionReason"]


def test_guard_denies_a_patch_to_git_internals(tmp_path):
    patch = "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+rm -rf /\n*** End Patch\n"
    ev = {**SAMPLES["PreToolUse/apply_patch"], "cwd": str(tmp_path), "tool_input": {"command": patch}}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.blocked, answer
    assert "[guard:" in answer.body["hookSpecificOutput"]["permissionDecisionReason"]


def test_ls_passes_without_an_answer(tmp_path):
    ev = {**SAMPLES["PreToolUse"], "cwd": str(tmp_path), "tool_input": {"command": "ls"}}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert (answer.body, answer.exit_code, answer.blocked) == (None, 0, False)


def test_rewrite_is_allow_with_updated_input(tmp_path):
    plugin = Scripted(pre_tool={"arguments": {"command": "ls -la"}})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["PreToolUse"])
    assert answer.body == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                  "updatedInput": {"command": "ls -la"}}}


def test_rewrite_without_a_command_string_is_refused(tmp_path):
    plugin = Scripted(pre_tool={"arguments": {"cmd": "ls"}})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["PreToolUse"])
    assert answer.exit_code == 2 and answer.blocked and "command" in answer.stderr[0]


def test_a_raising_pre_tool_plugin_denies(tmp_path):
    plugin = Scripted(pre_tool=RuntimeError("boom"))
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["PreToolUse"])
    assert answer.blocked and "boom" in answer.body["hookSpecificOutput"]["permissionDecisionReason"]


def test_secret_in_output_is_replaced_by_feedback(tmp_path):
    ev = {**SAMPLES["PostToolUse"], "cwd": str(tmp_path), "tool_response": f"token={SECRET}\n"}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.body["decision"] == "block"
    assert SECRET not in answer.body["reason"] and "[REDACTED:github-token]" in answer.body["reason"]


def test_permission_request_denied(tmp_path):
    ev = {**SAMPLES["PermissionRequest"], "cwd": str(tmp_path), "tool_input": {"command": "sudo rm -rf /"}}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    decision = answer.body["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny" and "[guard:" in decision["message"]


def test_prompt_block_and_context(tmp_path):
    blocked = ADAPTER.handle(runtime(Scripted(pre_message={"block": True, "reason": "no"}), cwd=str(tmp_path)),
                             SAMPLES["UserPromptSubmit"])
    assert blocked.body == {"decision": "block", "reason": "no"}
    injected = ADAPTER.handle(runtime(Scripted(pre_system_prompt={"inject": "be careful"}), cwd=str(tmp_path)),
                              SAMPLES["SessionStart"])
    assert injected.body["hookSpecificOutput"]["additionalContext"] == "be careful"


@pytest.mark.parametrize(("event", "code", "blocked"), [
    ("PreToolUse", 2, True), (None, 2, True), ("Stop", 1, False), ("SessionStart", 1, False),
])
def test_failure_shapes(event, code, blocked):
    answer = ADAPTER.failure(event, "it broke")
    assert (answer.exit_code, answer.blocked, answer.body) == (code, blocked, None)
    assert "it broke" in answer.stderr[0]


def test_permission_request_failure_denies():
    answer = ADAPTER.failure("PermissionRequest", "it broke")
    assert answer.body["hookSpecificOutput"]["decision"]["behavior"] == "deny"


@pytest.mark.parametrize(("stdin", "fragment"), [
    (b"", "no event"), (b"{not json", "not valid JSON"), (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    (b"[]", "JSON object"),
])
def test_the_command_fails_closed_on_bad_input(stdin, fragment, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "codex", "--event", "PreToolUse"],
                          input=stdin, capture_output=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == b""
    assert fragment in proc.stderr.decode() and "Traceback" not in proc.stderr.decode()


def test_the_command_answers_a_real_event(tmp_path):
    ev = {**SAMPLES["PreToolUse"], "cwd": str(tmp_path), "tool_input": {"command": "sudo rm -rf ~"}}
    env = {"AGENT_HOOKS_PLUGINS": "guard"}
    import os

    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "codex"], input=json.dumps(ev).encode(),
                          capture_output=True, timeout=60, cwd=tmp_path, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["hookSpecificOutput"]["permissionDecision"] == "deny"
