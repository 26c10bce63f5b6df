"""The Claude Code bridge: every event Claude Code sends, the canonical hooks it fires, and the
exact reply (exit code, stdout JSON) Claude Code gets back.

Each test runs twice: through the real command in a subprocess, and in-process (``inproc``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.trusting import trust_user_hooks

from .payloads import SAMPLES, TOOL_INPUTS, event

BLOCK = {"answer": {"block": True, "reason": "not here"}}


def deny(reason: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


# -- PreToolUse -----------------------------------------------------------------------------


def test_pre_tool_use_benign_is_silent(cc):
    r = cc(event("PreToolUse", cc.cwd))
    assert (r.code, r.stdout, r.stderr) == (0, "", "")
    assert r.hooks() == ["pre_tool", "pre_shell_exec"]
    pre = r.call("pre_tool")
    assert pre["event"] == {"tool_name": "Bash", "arguments": {"command": "npm test", "description": "Run tests"},
                            "tool_call_id": "toolu_01"}
    assert pre["host"] == "claude-code" and pre["session_id"] == "abc" and pre["has_ui"] is False
    assert r.call("pre_shell_exec")["event"] == {"command": "npm test", "tool_name": "Bash"}


def test_pre_tool_block_is_a_deny_and_skips_the_permission_hook(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": BLOCK})
    assert (r.code, r.json) == (0, deny("not here"))
    assert r.hooks() == ["pre_tool"]


def test_permission_hook_deny(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_shell_exec": {"answer": {"denied": True, "reason": "no npm"}}})
    assert (r.code, r.json) == (0, deny("no npm"))


def test_a_plugin_that_asks_gets_ask(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": {"ask": True, **BLOCK}})
    assert r.code == 0
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                             "permissionDecisionReason": "not here"}}
    assert r.hooks() == ["pre_tool", "pre_shell_exec"]  # an ask still lets a deny win


def test_permission_hook_ask(cc):
    script = {"pre_shell_exec": {"ask": True, "answer": {"denied": True, "reason": "confirm npm"}}}
    r = cc(event("PreToolUse", cc.cwd), script)
    assert r.json["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert r.json["hookSpecificOutput"]["permissionDecisionReason"] == "confirm npm"


def test_deny_beats_ask(cc):
    script = {"pre_tool": {"ask": True, **BLOCK},
              "pre_shell_exec": {"answer": {"denied": True, "reason": "never"}}}
    r = cc(event("PreToolUse", cc.cwd), script)
    assert r.json == deny("never")


def test_asking_without_blocking_changes_nothing(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": {"ask": True}})
    assert (r.code, r.stdout) == (0, "")


def test_changed_arguments_become_updated_input_with_ask(cc):
    script = {"pre_tool": {"answer": {"arguments": {"command": "npm test -- --bail", "description": "Run tests"}}}}
    r = cc(event("PreToolUse", cc.cwd), script)
    assert r.json == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "ask",
        "permissionDecisionReason": "agent-hooks: scripted_plugin changed the Bash input",
        "updatedInput": {"command": "npm test -- --bail", "description": "Run tests"}}}
    # the permission hook judged the command that will run
    assert r.call("pre_shell_exec")["event"]["command"] == "npm test -- --bail"


def test_changed_arguments_in_bypass_mode_are_allowed(cc):
    script = {"pre_tool": {"answer": {"arguments": {"command": "ls -la"}}}}
    r = cc(event("PreToolUse", cc.cwd, permission_mode="bypassPermissions"), script)
    out = r.json["hookSpecificOutput"]
    assert (out["permissionDecision"], out["updatedInput"]) == ("allow", {"command": "ls -la"})


def test_on_rewrite_allow_option(cc):
    script = {"pre_tool": {"answer": {"arguments": {"command": "ls -la"}}}}
    r = cc(event("PreToolUse", cc.cwd), script, args=("--on-rewrite", "allow"))
    assert r.json["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_plugin_that_raises_in_pre_tool_denies(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": {"raise": "boom"}})
    assert r.code == 0
    out = r.json["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "scripted_plugin failed (RuntimeError: boom)" in out["permissionDecisionReason"]
    assert "boom" in r.stderr and "Traceback" not in r.stderr


def test_plugin_that_raises_in_a_permission_hook_denies(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_shell_exec": {"raise": "kaput"}})
    out = r.json["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "kaput" in out["permissionDecisionReason"]


def test_an_invalid_answer_denies(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": {"answer": {"blok": True}}})
    out = r.json["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "unknown result field 'blok'" in out["permissionDecisionReason"]


def test_plugin_output_on_stdout_does_not_corrupt_the_reply(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": {"print": "chatty plugin", **BLOCK}})
    assert r.json == deny("not here")
    if cc.mode == "subprocess":  # the child process wrote to fd 1 too
        assert r.stderr.count("chatty plugin") == 2


@pytest.mark.parametrize(("tool", "hook", "payload"), [
    ("PowerShell", "pre_shell_exec", {"command": "Get-ChildItem", "tool_name": "PowerShell"}),
    ("Write", "pre_file_write", {"path": "/repo/a.txt", "tool_name": "Write", "content": "hello"}),
    ("Edit", "pre_file_write", {"path": "/repo/a.txt", "tool_name": "Edit"}),
    ("MultiEdit", "pre_file_write", {"path": "/repo/a.txt", "tool_name": "MultiEdit"}),
    ("NotebookEdit", "pre_file_write", {"path": "/repo/n.ipynb", "tool_name": "NotebookEdit"}),
    ("Read", "pre_file_read", {"path": "/repo/.env", "tool_name": "Read"}),
    ("Grep", "pre_file_read", {"path": "/repo/src", "tool_name": "Grep"}),
    ("Glob", None, None),
    ("WebFetch", "pre_fetch_url", {"url": "https://example.com/docs", "tool_name": "WebFetch"}),
    ("WebSearch", "pre_fetch_url", {"tool_name": "WebSearch", "safety": "no_url",
                                    "summary": "web search: pluggy firstresult"}),
    ("Agent", None, None),
    ("mcp__github__create_issue", None, None),
])
def test_permission_hook_per_tool(cc, tool, hook, payload):
    r = cc(event("PreToolUse", cc.cwd, tool_name=tool, tool_input=TOOL_INPUTS[tool]))
    assert (r.code, r.stdout) == (0, "")
    assert r.call("pre_tool")["event"]["arguments"] == TOOL_INPUTS[tool]
    if hook is None:
        assert r.hooks() == ["pre_tool"]
    else:
        assert r.hooks() == ["pre_tool", hook]
        assert r.call(hook)["event"] == payload


def test_permission_hook_deny_per_tool_family(cc):
    script = {"pre_file_read": {"answer": {"denied": True, "reason": ".env is secret"}}}
    r = cc(event("PreToolUse", cc.cwd, tool_name="Read", tool_input=TOOL_INPUTS["Read"]), script)
    assert r.json == deny(".env is secret")


def test_reasons_respect_the_10000_character_cap(cc):
    r = cc(event("PreToolUse", cc.cwd), {"pre_tool": {"answer": {"block": True, "reason": "x" * 25_000}}})
    reason = r.json["hookSpecificOutput"]["permissionDecisionReason"]
    assert len(reason) <= 10_000
    assert reason.startswith("xxx") and "more characters cut by agent-hooks" in reason


def test_no_plugins_at_all_lets_claude_code_decide(cc):
    r = cc(event("PreToolUse", cc.cwd), plugin=False)
    assert (r.code, r.stdout) == (0, "")


# -- malformed input: fail-closed on PreToolUse, a clear message elsewhere ---------------------


@pytest.mark.parametrize("raw", [b"", b"{not json", b"[1, 2]", b'"PreToolUse"', b"\xff\xfe garbage"])
def test_malformed_stdin_on_pre_tool_use_denies(cc, raw):
    r = cc(raw, args=("--event", "PreToolUse"))
    assert r.code == 0
    out = r.json["hookSpecificOutput"]
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
    assert out["permissionDecisionReason"].startswith("agent-hooks could not check this tool call")
    assert "Traceback" not in r.stderr and r.calls == []


def test_truncated_pre_tool_use_is_recognised_without_the_event_option(cc):
    raw = json.dumps(event("PreToolUse", cc.cwd))[:-20].encode()
    r = cc(raw)
    assert r.json["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize("tool_input", [["ls"], "ls", 3])
def test_pre_tool_use_with_invalid_tool_input_denies(cc, tool_input):
    r = cc(event("PreToolUse", cc.cwd, tool_input=tool_input))
    out = r.json["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "tool_input must be an object" in out["permissionDecisionReason"]


def test_pre_tool_use_without_tool_name_denies(cc):
    ev = event("PreToolUse", cc.cwd)
    del ev["tool_name"]
    assert cc(ev).json["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(("raw", "args", "where"), [
    (b"{oops", ("--event", "Stop"), "(Stop)"),
    (b"", (), "no event on stdin"),
    (b'{"session_id": "abc"}', (), "no hook_event_name"),
])
def test_malformed_stdin_elsewhere_is_a_clear_non_blocking_error(cc, raw, args, where):
    r = cc(raw, args=args)
    assert (r.code, r.stdout) == (1, "")  # 1: Claude Code shows a notice and carries on; never 2
    assert r.stderr.startswith("agenthooks claude-code: error") and where in r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def test_bad_option_is_a_non_blocking_error(cc):
    r = cc(event("Stop", cc.cwd), args=("--frobnicate",))
    assert (r.code, r.stdout) == (1, "")
    assert "unknown option '--frobnicate'" in r.stderr


# -- PostToolUse / PostToolUseFailure ---------------------------------------------------------


def test_post_tool_use_fires_pre_tool_output_and_post_tool(cc):
    r = cc(event("PostToolUse", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.hooks() == ["pre_tool_output", "post_tool"]
    response = SAMPLES["PostToolUse"]["tool_response"]
    assert r.call("pre_tool_output")["event"] == {
        "tool_name": "Write", "arguments": {"file_path": "/repo/a.txt", "content": "x"},
        "output": json.dumps(response), "details": response, "is_error": False, "tool_call_id": "toolu_02"}
    assert r.call("post_tool")["event"] == {
        "tool_name": "Write", "arguments": {"file_path": "/repo/a.txt", "content": "x"}, "result": response,
        "is_error": False, "tool_call_id": "toolu_02"}


BASH_RESPONSE = {"stdout": "token=sk-123\n", "stderr": "", "interrupted": False, "isImage": False}


def bash_post(cwd: str) -> dict:
    return event("PostToolUse", cwd, tool_name="Bash", tool_input={"command": "cat .env"},
                 tool_response=BASH_RESPONSE, tool_use_id="toolu_06")


def test_changed_output_becomes_updated_tool_output(cc):
    r = cc(bash_post(cc.cwd), {"pre_tool_output": {"answer": {"output": "token=[REDACTED]\n"}}})
    assert r.call("pre_tool_output")["event"]["output"] == "token=sk-123\n"
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {
        "stdout": "token=[REDACTED]\n", "stderr": "", "interrupted": False, "isImage": False}}}


def test_changed_details_replace_the_whole_tool_response(cc):
    details = {**BASH_RESPONSE, "stdout": "hidden"}
    r = cc(bash_post(cc.cwd), {"pre_tool_output": {"answer": {"details": details}}})
    assert r.json["hookSpecificOutput"]["updatedToolOutput"] == details


def test_blocked_output_is_a_block_and_replaces_the_output(cc):
    r = cc(bash_post(cc.cwd), {"pre_tool_output": {"answer": {"block": True, "message": "secret withheld"}}})
    assert r.json == {"decision": "block", "reason": "secret withheld", "hookSpecificOutput": {
        "hookEventName": "PostToolUse",
        "updatedToolOutput": {"stdout": "secret withheld", "stderr": "", "interrupted": False, "isImage": False}}}


def test_changed_output_of_an_unknown_shape_becomes_additional_context(cc):
    ev = event("PostToolUse", cc.cwd, tool_name="Glob", tool_input={"pattern": "*.py"},
               tool_response={"filenames": ["/repo/a.py"], "numFiles": 1, "truncated": False})
    r = cc(ev, {"pre_tool_output": {"answer": {"output": "(hidden)"}}})
    assert r.call("pre_tool_output")["event"]["output"] == "/repo/a.py"
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext":
                      "agent-hooks: scripted_plugin changed this tool's output; use this version instead of "
                      "the original:\n(hidden)"}}


def test_mcp_output_is_rewritten_with_updated_mcp_tool_output(cc):
    ev = event("PostToolUse", cc.cwd, tool_name="mcp__github__get_issue", tool_input={"n": 1},
               tool_response=[{"type": "text", "text": "key sk-1"}])
    r = cc(ev, {"pre_tool_output": {"answer": {"content": [{"type": "text", "text": "key [REDACTED]"}]}}})
    assert r.call("pre_tool_output")["event"]["content"] == [{"type": "text", "text": "key sk-1"}]
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                             "updatedMCPToolOutput": [{"type": "text", "text": "key [REDACTED]"}]}}


def test_post_tool_use_failure(cc):
    r = cc(event("PostToolUseFailure", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    pre = r.call("pre_tool_output")["event"]
    assert (pre["output"], pre["is_error"], pre["details"]) == ("Exit code 1", True, "Exit code 1")
    post = r.call("post_tool")["event"]
    assert (post["result"], post["is_error"]) == ("Exit code 1", True)


def test_post_tool_use_failure_block_and_context(cc):
    r = cc(event("PostToolUseFailure", cc.cwd), {"pre_tool_output": {"answer": {"block": True, "message": "stop"}}})
    assert r.json == {"decision": "block", "reason": "stop"}
    r = cc(event("PostToolUseFailure", cc.cwd), {"pre_tool_output": {"answer": {"output": "exit 1: try -v"}}})
    assert r.json["hookSpecificOutput"] == {
        "hookEventName": "PostToolUseFailure",
        "additionalContext": "agent-hooks: scripted_plugin changed this tool's error; use this version instead "
                             "of the original:\nexit 1: try -v"}


def test_post_tool_use_plugin_error_is_reported_not_blocking(cc):
    r = cc(event("PostToolUse", cc.cwd), {"pre_tool_output": {"raise": "oops"}})
    assert (r.code, r.stdout) == (0, "")
    assert "scripted_plugin: pre_tool_output: RuntimeError: oops" in r.stderr


# -- PostToolBatch ----------------------------------------------------------------------------


def test_post_tool_batch(cc):
    r = cc(event("PostToolBatch", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.call("post_tool_batch")["event"]["tool_calls"] == [
        {"name": "Read", "arguments": {"file_path": "/repo/a.txt"}, "id": "toolu_04", "result": "x"},
        {"name": "Bash", "arguments": {"command": "ls"}, "id": "toolu_05", "result": "a.txt"},
    ]


def test_post_tool_batch_call_user_stops_the_loop(cc):
    r = cc(event("PostToolBatch", cc.cwd), {"post_tool_batch": {"answer": {"fallback": "call_user"}}})
    assert r.json == {"decision": "block",
                      "reason": "agent-hooks: scripted_plugin returned control to the user (fallback call_user)"}
    r = cc(event("PostToolBatch", cc.cwd), {"post_tool_batch": {"answer": {"fallback": "call_agent"}}})
    assert r.stdout == ""


# -- UserPromptSubmit -------------------------------------------------------------------------


def test_user_prompt_submit(cc):
    r = cc(event("UserPromptSubmit", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.hooks() == ["pre_message", "pre_system_prompt"]
    assert r.call("pre_message")["event"] == {"prompt": "Fix the bug", "source": "sdk"}


@pytest.mark.parametrize(("answer", "reason"), [
    ({"block": True, "reason": "no prompts on Fridays"}, "no prompts on Fridays"),
    ({"handled": True, "message": "ran /deploy locally"}, "ran /deploy locally"),
    ({"handled": True}, "the prompt was handled by scripted_plugin"),
])
def test_user_prompt_blocked_or_handled(cc, answer, reason):
    r = cc(event("UserPromptSubmit", cc.cwd), {"pre_message": {"answer": answer}})
    assert (r.code, r.json) == (0, {"decision": "block", "reason": reason})
    assert r.hooks() == ["pre_message"]


def test_user_prompt_rewrite_and_injection_become_additional_context(cc):
    script = {"pre_message": {"answer": {"prompt": "Fix the bug in parser.py"}},
              "pre_system_prompt": {"answer": {"inject": "Project rule: run tox before committing."}}}
    r = cc(event("UserPromptSubmit", cc.cwd), script)
    assert r.json == {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext":
                      "agent-hooks: scripted_plugin rewrote the user's prompt; treat this as the prompt:\n"
                      "Fix the bug in parser.py\n\nProject rule: run tox before committing."}}


# -- session, compaction, stop, sub-agents ---------------------------------------------------


def test_session_start(cc):
    r = cc(event("SessionStart", cc.cwd), {"pre_system_prompt": {"answer": {"inject": "Use British spelling."}}})
    assert r.hooks() == ["on_start", "session_start", "pre_system_prompt"]
    assert r.call("session_start")["event"] == {"reason": "startup",
                                                "session_file": "/home/dev/.claude/projects/-repo/abc.jsonl"}
    assert r.call("on_start")["event"]["project_root"]
    assert r.json == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": "Use British spelling."}}


def test_session_start_after_compaction_is_no_process_start(cc):
    r = cc(event("SessionStart", cc.cwd, source="compact"))
    assert r.hooks() == ["session_start", "pre_system_prompt"]
    assert (r.code, r.stdout) == (0, "")


def test_session_end(cc):
    r = cc(event("SessionEnd", cc.cwd))
    assert (r.code, r.stdout, r.hooks()) == (0, "", ["on_end"])
    assert r.call("on_end")["event"] == {"reason": "prompt_input_exit"}


def test_pre_compact(cc):
    r = cc(event("PreCompact", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.call("pre_compact")["event"] == {"trigger": "manual", "custom_instructions": "keep the test names"}
    r = cc(event("PreCompact", cc.cwd), {"pre_compact": {"answer": {"cancel": True}}})
    assert r.json == {"decision": "block", "reason": "agent-hooks: scripted_plugin cancelled the compaction"}


def test_post_compact(cc):
    r = cc(event("PostCompact", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.call("post_compact")["event"] == {"trigger": "auto", "compact_summary": "We fixed the bug."}


def test_stop(cc):
    r = cc(event("Stop", cc.cwd))
    assert (r.code, r.stdout, r.hooks()) == (0, "", ["agent_end", "stop_gate"])
    assert r.call("agent_end")["event"] == {"last_assistant_message": "Done."}
    assert r.call("stop_gate")["event"] == {"last_assistant_message": "Done.", "subagent": False,
                                            "stop_hook_active": False, "continuations": 0, "limit": 3}


def test_stop_gate_continue_is_a_block_with_the_reason(cc):
    r = cc(event("Stop", cc.cwd), {"stop_gate": {"answer": {"continue": True, "reason": "2 tests fail"}}})
    assert (r.code, r.json) == (0, {"decision": "block", "reason": "2 tests fail"})


def test_stop_gate_limit_lets_the_agent_stop_and_says_so(cc):
    (Path(os.environ["AGENT_HOOKS_HOME"]) / "settings.toml").write_text("stop_gate_limit = 1\n")
    script = {"stop_gate": {"answer": {"continue": True, "reason": "again"}}}
    first = cc(event("Stop", cc.cwd, stop_hook_active=False), script)
    assert first.json == {"decision": "block", "reason": "again"}
    if cc.mode == "inproc":
        return  # the injected factory reads no settings: the runtime's default limit applies
    second = cc(event("Stop", cc.cwd, stop_hook_active=True), script)
    assert second.call("stop_gate")["event"]["continuations"] == 1
    assert second.json == {"systemMessage": "agent-hooks: stop gate limit reached (1 in a row): the agent stops "
                                            "although a plugin asked to continue: again"}
    third = cc(event("Stop", cc.cwd), script)  # the agent stopped: the count started again
    assert third.json == {"decision": "block", "reason": "again"}


def test_stop_gate_failure_never_blocks_the_stop(cc):
    r = cc(event("Stop", cc.cwd), {"stop_gate": {"raise": "disk full"}})
    assert (r.code, r.stdout) == (0, "")
    assert "disk full" in r.stderr


def test_subagent_stop_gate(cc):
    r = cc(event("SubagentStop", cc.cwd), {"stop_gate": {"answer": {"continue": True, "reason": "look in lib/ too"}}})
    assert r.json == {"decision": "block", "reason": "look in lib/ too"}
    assert r.call("stop_gate")["event"]["subagent"] is True
    assert r.call("stop_gate")["event"]["agent_type"] == "Explore"


# -- PermissionRequest: the permission decision ------------------------------------------------


def test_permission_request_without_an_opinion_leaves_claude_codes_prompt(cc):
    r = cc(event("PermissionRequest", cc.cwd))
    assert (r.code, r.stdout, r.stderr) == (0, "", "")
    assert r.call("permission_request")["event"] == {
        "tool_name": "Bash", "arguments": {"command": "npm publish"},
        "permission_suggestions": [{"type": "addRules", "behavior": "allow"}]}


def test_permission_request_ask_leaves_claude_codes_prompt(cc):
    r = cc(event("PermissionRequest", cc.cwd), {"permission_request": {"answer": {"decision": "ask"}}})
    assert (r.code, r.stdout) == (0, "")


def test_permission_request_deny(cc):
    r = cc(event("PermissionRequest", cc.cwd),
           {"permission_request": {"answer": {"decision": "deny", "reason": "no publishing"}}})
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                             "decision": {"behavior": "deny", "message": "no publishing"}}}


def test_permission_request_allow_from_an_approver_with_updated_input(cc, monkeypatch):
    monkeypatch.setenv("CC_TEST_APPROVER", "1")
    answer = {"decision": "allow", "arguments": {"command": "npm publish --dry-run"}}
    r = cc(event("PermissionRequest", cc.cwd), {"permission_request": {"answer": answer}})
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
        "behavior": "allow", "updatedInput": {"command": "npm publish --dry-run"}}}}


def test_permission_request_allow_from_a_plugin_that_is_no_approver_denies(cc):
    r = cc(event("PermissionRequest", cc.cwd), {"permission_request": {"answer": {"decision": "allow"}}})
    decision = r.json["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny" and "not an approver" in decision["message"]


@pytest.mark.parametrize("ev", [
    {"tool_name": "Bash", "tool_input": "rm -rf /"},
    {"tool_name": None},
])
def test_permission_request_failures_deny(cc, ev):
    r = cc(event("PermissionRequest", cc.cwd, **ev))
    assert r.code == 0 and r.json["hookSpecificOutput"]["decision"]["behavior"] == "deny"
    r = cc(event("PermissionRequest", cc.cwd), {"permission_request": {"raise": "boom"}})
    assert r.json["hookSpecificOutput"]["decision"]["behavior"] == "deny"


def test_stop_with_a_failing_plugin_never_blocks(cc):
    r = cc(event("Stop", cc.cwd), {"agent_end": {"raise": "disk full"}})
    assert (r.code, r.stdout) == (0, "")
    assert "disk full" in r.stderr and "Traceback" not in r.stderr


def test_subagent_start_and_stop(cc):
    r = cc(event("SubagentStart", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.call("pre_spawn_agent")["event"] == {"agent_id": "agent-1", "agent_type": "Explore"}
    r = cc(event("SubagentStop", cc.cwd))
    assert (r.code, r.stdout) == (0, "")
    assert r.call("post_spawn_agent")["event"] == {
        "response": "Found 3", "agent_id": "agent-1", "agent_type": "Explore",
        "agent_transcript_path": "/home/dev/.claude/projects/-repo/subagents/agent-1.jsonl"}


def test_subagent_start_block_is_told_to_the_subagent_and_the_user(cc):
    r = cc(event("SubagentStart", cc.cwd), {"pre_spawn_agent": {"answer": {"block": True, "message": "no"}}})
    assert r.json == {
        "hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext":
                               "agent-hooks: scripted_plugin blocked this sub-agent: no. Do not do the task; "
                               "reply with this reason."},
        "systemMessage": "agent-hooks: scripted_plugin blocked sub-agent Explore: no"}


# -- events without a canonical hook ---------------------------------------------------------


@pytest.mark.parametrize("name", ["Notification", "PermissionDenied", "StopFailure",
                                  "UserPromptExpansion", "MessageDisplay", "SomeFutureEvent"])
def test_other_events_fire_host_event(cc, name):
    ev = event(name, cc.cwd)
    r = cc(ev)
    assert (r.code, r.stdout, r.stderr) == (0, "", "")
    assert r.calls == [{"hook": "host_event", "host": "claude-code", "name": name, "payload": ev,
                        "plugin": "scripted_plugin"}]


def test_host_event_error_is_reported(cc):
    r = cc(event("Notification", cc.cwd), {"host_event": {"raise": "nope"}})
    assert (r.code, r.stdout) == (0, "")
    assert "host_event: RuntimeError: nope" in r.stderr


# -- what plugins say through ctx ------------------------------------------------------------


def test_notify_becomes_system_message_and_send_message_additional_context(cc):
    script = {"agent_end": {"notify": "3 files changed", "send": "Remember to run the tests."}}
    r = cc(event("Stop", cc.cwd), script)
    assert r.json == {"hookSpecificOutput": {"hookEventName": "Stop",
                                             "additionalContext": "Remember to run the tests."},
                      "systemMessage": "agent-hooks warning: 3 files changed"}


def test_has_ui_only_with_ask_and_only_where_claude_code_can_ask(cc):
    assert cc(event("PreToolUse", cc.cwd)).call("pre_tool")["has_ui"] is False
    assert cc(event("PreToolUse", cc.cwd), args=("--ask",)).call("pre_tool")["has_ui"] is True
    assert cc(event("PostToolUse", cc.cwd), args=("--ask",)).call("pre_tool_output")["has_ui"] is False


# -- plugins that cannot be loaded -----------------------------------------------------------


def test_a_plugin_that_fails_to_load(cc_subprocess, tmp_path):
    cc = cc_subprocess
    broken = tmp_path / "broken_plugin.py"
    broken.write_text("import no_such_module_here\n")
    r = cc(event("PreToolUse", cc.cwd), args=("--hook", str(broken)))
    out = r.json["hookSpecificOutput"]
    assert (r.code, out["permissionDecision"]) == (0, "deny")
    reason = out["permissionDecisionReason"]
    assert "a plugin failed to load: broken_plugin: import: cannot import" in reason
    assert "no_such_module_here" in reason and "`agenthooks plugins disable broken_plugin`" in reason
    r = cc(event("SessionStart", cc.cwd), args=("--hook", str(broken)))
    assert r.code == 0 and "broken_plugin" in r.json["systemMessage"]
    assert r.hooks() == ["on_start", "session_start", "pre_system_prompt"]  # the others still run
    r = cc(event("Stop", cc.cwd), args=("--hook", str(broken)))
    assert (r.code, r.stdout, r.hooks()) == (0, "", ["agent_end", "stop_gate"])


def test_plugins_from_the_users_settings(cc_subprocess, tmp_path):
    from .conftest import PLUGIN

    home = Path(os.environ["AGENT_HOOKS_HOME"])
    (home / "settings.toml").write_text(f"hooks = [{str(PLUGIN)!r}]\n")
    trust_user_hooks()
    r = cc_subprocess(event("PreToolUse", cc_subprocess.cwd), {"pre_tool": BLOCK}, plugin=False)
    assert r.json == deny("not here")


def test_settings_option(cc_subprocess, tmp_path):
    from .conftest import PLUGIN

    settings = tmp_path / "other.toml"
    settings.write_text(f"hooks = [{str(PLUGIN)!r}]\n")
    r = cc_subprocess(event("PreToolUse", cc_subprocess.cwd), {"pre_tool": BLOCK}, plugin=False,
                      args=("--settings", str(settings)))
    assert r.json == deny("not here")


def test_unreadable_settings(cc_subprocess, tmp_path):
    settings = tmp_path / "bad.toml"
    settings.write_text("hooks = [\n")
    r = cc_subprocess(event("PreToolUse", cc_subprocess.cwd), args=("--settings", str(settings)))
    out = r.json["hookSpecificOutput"]
    assert (r.code, out["permissionDecision"]) == (0, "deny")
    assert "could not load the plugins" in out["permissionDecisionReason"] and "bad.toml" in out[
        "permissionDecisionReason"]
    r = cc_subprocess(event("Stop", cc_subprocess.cwd), args=("--settings", str(settings)))
    assert (r.code, r.stdout) == (1, "") and "could not load the plugins" in r.stderr


def test_send_message_where_claude_code_takes_no_context_goes_to_stderr(cc):
    r = cc(event("SessionEnd", cc.cwd), {"on_end": {"send": "bye"}})
    assert (r.code, r.stdout) == (0, "")
    assert "agent-hooks: message not delivered (SessionEnd takes no additionalContext): bye" in r.stderr


def test_mcp_blocks_changed_in_both_output_and_content_keep_their_layout(cc):
    blocks = [{"type": "text", "text": "key sk-1"}, {"type": "image", "data": "iVBOR", "mimeType": "image/png"}]
    ev = event("PostToolUse", cc.cwd, tool_name="mcp__shots__take", tool_input={}, tool_response=blocks)
    new = [{"type": "text", "text": "key [REDACTED]"}, blocks[1]]
    r = cc(ev, {"pre_tool_output": {"answer": {"output": "key [REDACTED]", "content": new}}})
    assert r.json == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": new}}


# -- Cursor runs ~/.claude/settings.json hooks too ------------------------------------------------


@pytest.mark.parametrize("cursor_wired", [True, False])
@pytest.mark.parametrize("scope", ["user", "project"])
def test_cursor_running_claude_hooks_fires_plugins_once(cc, monkeypatch, tmp_path, cursor_wired, scope):
    """With our own user Cursor hooks wired, the Claude Code bridge answers nothing to Cursor's
    events (Cursor already ran them through its own bridge); a project's Cursor hooks do not count
    (the agent can write them, and Cursor skips them in untrusted workspaces)."""
    from agent_hooks_core.bridges.cursor import install as cursor

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if cursor_wired:
        cursor.plan_install(scope, cc.cwd).apply()
    deny = {"pre_tool": {"answer": {"block": True, "reason": "no"}}}
    r = cc(event("PreToolUse", cc.cwd, cursor_version="2.1.0"), deny)
    once = cursor_wired and scope == "user"
    assert (r.hooks(), r.stdout) == (([], "") if once else (["pre_tool"], r.stdout))
    if not once:
        assert r.json["hookSpecificOutput"]["permissionDecision"] == "deny"
    claude_itself = cc(event("PreToolUse", cc.cwd), deny)  # Claude Code's own events never skip
    assert claude_itself.json["hookSpecificOutput"]["permissionDecision"] == "deny"


# -- Copilot runs a trusted repository's .claude/settings.json hooks too ----------------------------


@pytest.mark.parametrize("copilot_wired", [True, False])
@pytest.mark.parametrize("scope", ["user", "project"])
def test_copilot_running_claude_hooks_fires_plugins_once(cc, monkeypatch, tmp_path, copilot_wired, scope):
    """With our own user Copilot hooks wired, the Claude Code bridge answers nothing to Copilot's
    events (COPILOT_CLI=1 and no transcript_path); a project's Copilot hooks do not count, and Claude
    Code's own events (they carry transcript_path) never skip, whatever the environment says."""
    from agent_hooks_core.bridges import copilot

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.setenv("COPILOT_CLI", "1")
    if copilot_wired:
        copilot.INSTALLER.plan_install(scope, cc.cwd).apply()
    deny = {"pre_tool": {"answer": {"block": True, "reason": "no"}}}
    from_copilot = {k: v for k, v in event("PreToolUse", cc.cwd).items() if k != "transcript_path"}
    r = cc(from_copilot, deny)
    once = copilot_wired and scope == "user"
    assert (r.hooks(), r.stdout) == (([], "") if once else (["pre_tool"], r.stdout))
    if not once:
        assert r.json["hookSpecificOutput"]["permissionDecision"] == "deny"
    claude_itself = cc(event("PreToolUse", cc.cwd), deny)
    assert claude_itself.json["hookSpecificOutput"]["permissionDecision"] == "deny"
