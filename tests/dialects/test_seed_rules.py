"""Every row of seed-hooks.tsv, fired in its own dialect with the seed's payload, gives the seed's
documented result (``outcome.native``, in the seed's own shape).

One table: each case names its TSV row (system, seed hook), the seed-shaped payload, what each
plugin answers (in canonical terms, as plugin authors write them), and the native result expected.
Plugins record the event they saw, so the payload translation is checked too. A row may have
several cases (a chain and its short-circuit); every row has at least one (test_every_row_has_a_case).
"""

from __future__ import annotations

import copy
import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from agent_hooks_core import Runtime, hookimpl
from agent_hooks_core.hookspecs.catalogue import BY_NAME

from tools import seed_hooks_tsv

TSV = seed_hooks_tsv()

#: system in the TSV -> the dialect to fire it in
DIALECT = {"chibi": "chibi", "omp": "omp", "pi-ext": "pi-ext", "pi-agent": "pi-agent"}


def rows() -> list[dict[str, str]]:
    with TSV.open(newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@dataclass
class Case:
    system: str
    row: str
    """the TSV seed_hook (pi-agent: ``session:<reason>``)"""
    payload: dict[str, Any]
    answers: list[Any]
    """per plugin, in order: an answer dict, None, an Exception to raise, or f(event) -> answer"""
    native: Any
    """the expected native result, or a predicate on it"""
    seen: dict[str, Any] = field(default_factory=dict)
    """fields the first handler's (canonical) event must have"""
    called: int | None = None
    """how many handlers ran (short-circuits)"""
    check: Callable[[Any, dict[str, Any], list[dict[str, Any]]], None] | None = None
    """extra assertions: (outcome, the payload as the host holds it after the call, events seen)"""
    tag: str = ""
    runtime: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.system}:{self.row}" + (f"[{self.tag}]" if self.tag else "")


def obs(system: str, row: str, payload: dict[str, Any], seen: dict[str, Any] | None = None) -> Case:
    """An observe row: answers are ignored, every handler runs, no opinion comes back."""
    return Case(system, row, payload, [{"junk": 1}, {"block": True}, {"cancel": True}],
                {} if system == "chibi" else None, seen or {}, called=3)


def text(t: str) -> dict[str, str]:
    return {"type": "text", "text": t}


def closed(kind: str, plugin: str = "p0") -> Callable[[Any], bool]:
    """A fail-closed native answer naming the failing plugin."""
    def pred(native: Any) -> bool:
        if kind == "deny":
            return native["denied"] is True and plugin in native["reason"]
        why = native.get("reason") or native.get("message")
        return native["block"] is True and plugin in why
    return pred


TOOLS = [{"name": "update_todos", "type": "builtin"}, {"name": "file_head", "type": "file"},
         {"name": "file_grep", "type": "file"}, {"name": "my_plugin", "type": "plugin"}]
MSG_A = {"custom_type": "a", "content": "Text A", "display": True, "details": {"n": 1}}
MSG_B = {"custom_type": "b", "content": "Text B", "display": False}
PI_MSG_A = {"customType": "a", "content": "Text A", "display": True, "details": {"n": 1}}
PI_MSG_B = {"customType": "b", "content": "Text B", "display": False}
CTX = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
       {"role": "custom", "customType": "debug-only", "content": "x"}]


def _context_deep_copy(out: Any, payload: dict[str, Any], seen: list[dict[str, Any]]) -> None:
    assert payload["messages"] == CTX  # the host's messages are untouched: handlers got a deep copy
    assert out.native["messages"][0]["content"] == "mutated"


def _pi_input_rewritten(out: Any, payload: dict[str, Any], seen: list[dict[str, Any]]) -> None:
    assert payload["input"] == {"command": "ls -la", "timeout": 5}  # pi: handlers rewrite event.input


def _omp_input_untouched(out: Any, payload: dict[str, Any], seen: list[dict[str, Any]]) -> None:
    assert payload["input"] == {"command": "ls"}  # omp: tool_call cannot mutate the input


def _no_filtering_both(out: Any, payload: dict[str, Any], seen: list[dict[str, Any]]) -> None:
    assert [e.kind for e in out.errors] == ["invalid"]


def _second_saw_original(out: Any, payload: dict[str, Any], seen: list[dict[str, Any]]) -> None:
    assert seen[1]["content"] == [text("API_KEY=123")]  # omp: no chaining, each sees the tool's result


def _second_saw_chain(out: Any, payload: dict[str, Any], seen: list[dict[str, Any]]) -> None:
    assert seen[1]["content"] == [text("Error: ENOENT"), text("audit: logged")]


CASES: list[Case] = [
    # ============================== chibi (seeds 000, 001) ==============================
    obs("chibi", "on_start", {"chibi_home": "/home/u/.chibi", "project_root": "/w", "tool_count": 7},
        {"chibi_home": "/home/u/.chibi", "tool_count": 7}),
    obs("chibi", "on_end", {}),
    Case("chibi", "pre_message", {"prompt": "hello", "context_name": "default", "summary": "s"},
         [lambda e: {"prompt": f"[ctx]\n{e.prompt}"}, None, lambda e: {"prompt": e.prompt + "!"}],
         {"prompt": "[ctx]\nhello!"}, {"prompt": "hello", "context_name": "default"}),
    Case("chibi", "pre_message", {"prompt": "hello"}, [{"handled": True}, {"prompt": "never"}], {},
         called=1, tag="handled"),
    obs("chibi", "post_message", {"prompt": "p", "response": "r", "context_name": "default"},
        {"response": "r"}),
    Case("chibi", "pre_system_prompt", {"context_name": "default", "summary": "s", "flock_goals": []},
         [{"inject": "Goal: ship"}, None, {"inject": "Be brief"}], {"inject": "Goal: ship\nBe brief"},
         {"flock_goals": []}),
    Case("chibi", "post_system_prompt", {"context_name": "default", "todos": "t", "goals": "g"},
         [{"inject": "A"}, {"inject": "B"}], {"inject": "A\nB"}, {"todos": "t", "goals": "g"}),
    Case("chibi", "pre_tool", {"tool_name": "read_file", "arguments": {"path": "/etc/passwd"}},
         [lambda e: {"arguments": {**e.arguments, "path": "/safe/path"}},
          lambda e: {"arguments": {**e.arguments, "limit": 10}}],
         {"arguments": {"path": "/safe/path", "limit": 10}}, {"tool_name": "read_file"}),
    Case("chibi", "pre_tool", {"tool_name": "shell_exec", "arguments": {"command": "rm -rf /"}},
         [{"block": True, "message": "Blocked: rm -rf commands are not allowed"}, {"arguments": {}}],
         {"block": True, "message": "Blocked: rm -rf commands are not allowed"}, called=1, tag="block"),
    Case("chibi", "pre_tool", {"tool_name": "shell_exec", "arguments": {"command": "ls"}},
         [RuntimeError("boom"), {"arguments": {"command": "ls -l"}}], closed("block"), called=1,
         tag="fail-closed"),
    obs("chibi", "post_tool", {"tool_name": "read_file", "arguments": {"path": "Cargo.toml"},
                               "result": "file contents", "cached": False}, {"cached": False}),
    Case("chibi", "pre_tool_output", {"tool_name": "read_file", "arguments": {}, "output": "raw"},
         [lambda e: {"output": e.output.upper()}, lambda e: {"output": e.output + "!"}],
         {"output": "RAW!"}, {"output": "raw"}),
    Case("chibi", "pre_tool_output", {"tool_name": "read_file", "output": "secret"},
         [{"block": True, "message": "Replacement message shown to LLM"}, {"output": "x"}],
         {"block": True, "message": "Replacement message shown to LLM"}, called=1, tag="block"),
    obs("chibi", "post_tool_output", {"tool_name": "t", "arguments": {}, "output": "o", "final_output": "f",
                                      "cached": True}, {"final_output": "f"}),
    Case("chibi", "pre_api_tools", {"context_name": "default", "tools": TOOLS, "fuel_remaining": 5,
                                    "fuel_total": 10},
         [{"include": ["update_todos", "file_head", "file_grep"]}, {"include": ["file_head", "file_grep", "x"]},
          {"exclude": ["file_grep"]}],
         {"include": ["file_head"]}, {"fuel_remaining": 5}),
    Case("chibi", "pre_api_tools", {"context_name": "default", "tools": TOOLS},
         [{"exclude": ["file_grep", "my_plugin"]}, {"exclude": ["file_head"]}],
         {"exclude": ["file_grep", "my_plugin", "file_head"]}, tag="exclude-union"),
    Case("chibi", "pre_api_tools", {"context_name": "default", "tools": TOOLS},
         [{"include": ["file_head"], "exclude": ["file_grep"]}], {}, check=_no_filtering_both,
         tag="both-is-invalid"),
    Case("chibi", "pre_api_request", {"context_name": "coding", "request_body": {
             "model": "anthropic/claude-sonnet-4", "messages": [], "temperature": 0.7, "max_tokens": 4000}},
         [{"request_body": {"temperature": 0.3}}, {"request_body": {"max_tokens": None, "temperature": 0.1}}],
         {"request_body": {"temperature": 0.1, "max_tokens": None}}),
    Case("chibi", "pre_agentic_loop", {"context_name": "default", "fuel_remaining": 10, "fuel_total": 20,
                                       "current_fallback": "call_agent", "message": "go"},
         [{"fallback": "call_user", "fuel": 5}, {"fuel": 7}], {"fallback": "call_user", "fuel": 7},
         {"current_fallback": "call_agent"}),
    Case("chibi", "post_tool_batch", {"context_name": "default", "fuel_remaining": 3, "fuel_total": 20,
                                      "current_fallback": "call_agent",
                                      "tool_calls": [{"name": "shell_exec", "arguments": {}}]},
         [{"fallback": "call_agent", "fuel_delta": -5}, {"fallback": "call_user", "fuel_delta": 2}],
         {"fallback": "call_user", "fuel_delta": -3}, {"tool_calls": [{"name": "shell_exec", "arguments": {}}]}),
    Case("chibi", "pre_file_read", {"tool_name": "file_head", "path": "/etc/shadow"},
         [{}, {"denied": True, "reason": "first"}, {"denied": True, "reason": "second"}],
         {"denied": True, "reason": "first"}, {"path": "/etc/shadow"}, called=2),
    Case("chibi", "pre_file_read", {"tool_name": "file_head", "path": "/x"}, [],
         lambda n: n["denied"] is True and "no handler" in n["reason"], tag="fail-safe"),
    Case("chibi", "pre_file_read", {"tool_name": "file_head", "path": "/x"}, [{"denied": False}, {}], {},
         tag="falls-through"),
    Case("chibi", "pre_file_write", {"tool_name": "write_file", "path": "/w/.env", "content": "K=V"},
         [{"denied": False}, {"denied": True, "reason": "protected"}], {"denied": True, "reason": "protected"}),
    Case("chibi", "pre_file_write", {"tool_name": "file_edit", "path": "/w/a", "content": None}, [],
         lambda n: n["denied"] is True, tag="fail-safe"),
    Case("chibi", "pre_shell_exec", {"tool_name": "shell_exec", "command": "sudo rm"},
         [ValueError("bad"), {"denied": False}], closed("deny"), called=1),
    Case("chibi", "pre_shell_exec", {"tool_name": "shell_exec", "command": "ls"}, [], closed("deny", "no handler"),
         tag="fail-safe"),
    Case("chibi", "pre_fetch_url", {"tool_name": "fetch_url", "url": "http://169.254.169.254/",
                                    "safety": "sensitive", "reason": "metadata"},
         [{"denied": True, "reason": "metadata endpoint"}], {"denied": True, "reason": "metadata endpoint"}),
    Case("chibi", "pre_fetch_url", {"tool_name": "fetch_url", "safety": "no_url", "summary": "s"}, [], {},
         tag="no-fail-safe"),
    Case("chibi", "pre_fetch_url", {"tool_name": "fetch_url", "url": "u"}, [RuntimeError("x")], closed("deny"),
         tag="fail-closed"),
    Case("chibi", "pre_spawn_agent", {"system_prompt": "s", "input": "i", "model": "m", "temperature": 0.2,
                                      "max_tokens": 10},
         [{}, {"response": "cached answer"}, {"response": "later"}], {"response": "cached answer"}, called=2),
    Case("chibi", "pre_spawn_agent", {"input": "i"}, [{"block": True, "message": "no sub-agents"}],
         {"block": True, "message": "no sub-agents"}, tag="block"),
    obs("chibi", "post_spawn_agent", {"system_prompt": "s", "input": "i", "model": "m", "response": "r"}),
    Case("chibi", "pre_cache_output", {"tool_name": "fetch_url", "arguments": {"url": "u"}, "content": "c" * 50,
                                       "char_count": 50, "line_count": 1},
         [None, {"summary": "S1"}, {"summary": "S2"}], {"summary": "S1"}, {"char_count": 50}, called=2),
    obs("chibi", "post_cache_output", {"tool_name": "fetch_url", "cache_id": "fetch_url_abc", "output_size": 5,
                                       "preview_size": 2}, {"cache_id": "fetch_url_abc"}),
    Case("chibi", "pre_send_message", {"from": "default", "to": "research", "content": "hi",
                                       "context_name": "default"},
         [{"delivered": False}, {"delivered": True, "via": "slack"}, {"delivered": True, "via": "mail"}],
         {"delivered": True, "via": "slack"}, {"from": "default", "to": "research"}, called=2),
    obs("chibi", "post_send_message", {"from": "a", "to": "b", "content": "c", "context_name": "a",
                                       "delivery_result": "Message delivered"}, {"delivery_result": "Message delivered"}),
    obs("chibi", "post_index_file", {"path": "src/a.rs", "lang": "rust", "symbol_count": 3, "ref_count": 9},
        {"lang": "rust"}),
    obs("chibi", "pre_vfs_write", {"tool_name": "write_file", "path": "vfs:///a", "content": "x", "caller": "ctx"},
        {"caller": "ctx"}),
    obs("chibi", "post_vfs_write", {"tool_name": "file_edit", "path": "vfs:///a", "caller": "ctx"}),
    obs("chibi", "on_context_switch", {"from_context": "default", "to_context": "coding", "is_transient": False},
        {"from_context": "default", "to_context": "coding", "is_transient": False}),
    Case("chibi", "pre_clear", {"context_name": "default", "message_count": 10, "summary": "s"},
         [{"cancel": True}, {"cancel": False}], {"cancel": True}, {"message_count": 10}, called=1),
    obs("chibi", "post_clear", {"context_name": "default", "message_count": 10, "summary": "s"}),
    Case("chibi", "pre_compact", {"context_name": "default", "message_count": 20, "summary": "s"},
         [{"compaction": {"summary": "a"}}, {"compaction": {"summary": "b"}}], {"compaction": {"summary": "b"}}),
    Case("chibi", "pre_compact", {"context_name": "default"}, [{"cancel": True}, {"compaction": {}}],
         {"cancel": True}, called=1, tag="cancel"),
    obs("chibi", "post_compact", {"context_name": "default", "message_count": 20, "summary": "s"}),
    obs("chibi", "pre_rolling_compact", {"context_name": "d", "message_count": 50, "non_system_count": 48,
                                         "summary": "s"}, {"non_system_count": 48}),
    obs("chibi", "post_rolling_compact", {"context_name": "d", "message_count": 25, "messages_archived": 25,
                                          "summary": "s"}, {"messages_archived": 25}),
    # ============================== omp (seed 002) ======================================
    obs("omp", "session_start", {"type": "session_start"}),
    Case("omp", "session_before_switch", {"type": "session_before_switch", "reason": "resume",
                                          "targetSessionFile": "/s/2.jsonl"},
         [{"cancel": True}, {"cancel": False}], {"cancel": True},
         {"reason": "resume", "target_session_file": "/s/2.jsonl"}, called=1),
    Case("omp", "session_before_switch", {"reason": "new"}, [{"cancel": True}, None], {"cancel": True},
         tag="latest"),
    obs("omp", "session_switch", {"reason": "new", "previousSessionFile": "/s/1.jsonl"},
        {"previous_session_file": "/s/1.jsonl"}),
    # omp keeps the latest *result*: the cancel answer replaces the earlier skip answer
    Case("omp", "session_before_branch", {"entryId": "e7"},
         [{"skip_conversation_restore": True}, {"cancel": True}, {"skip_conversation_restore": False}],
         {"cancel": True}, {"entry_id": "e7"}, called=2),
    Case("omp", "session_before_branch", {"entryId": "e7"}, [{"skip_conversation_restore": True}, None],
         {"skipConversationRestore": True}, tag="skip"),
    obs("omp", "session_branch", {"entryId": "e7", "previousSessionFile": "/a"}, {"entry_id": "e7"}),
    Case("omp", "session_before_compact", {"preparation": {"firstKeptEntryId": "e1", "tokensBefore": 900},
                                           "branchEntries": [], "customInstructions": "be brief"},
         [{"compaction": {"summary": "a", "first_kept_entry_id": "e1", "tokens_before": 900}},
          {"compaction": {"summary": "b", "first_kept_entry_id": "e1", "tokens_before": 900}}],
         {"compaction": {"summary": "b", "firstKeptEntryId": "e1", "tokensBefore": 900}},
         {"custom_instructions": "be brief", "branch_entries": []}),
    Case("omp", "session.compacting", {"type": "session.compacting", "messages": []},
         [{"context": ["keep file list"], "prompt": "P"}, {"preserve_data": {"k": 1}}],
         {"preserveData": {"k": 1}}, {"messages": []}),
    obs("omp", "session_compact", {"compactionEntry": {"id": "c1"}, "fromHook": True},
        {"compaction_entry": {"id": "c1"}, "from_hook": True}),
    Case("omp", "session_before_tree", {"preparation": {"targetId": "t"}},
         [{"summary": {"summary": "s1"}}, {"summary": {"summary": "s2", "details": {"d": 1}}}],
         {"summary": {"summary": "s2", "details": {"d": 1}}}, {"preparation": {"targetId": "t"}}),
    obs("omp", "session_tree", {"newLeafId": "n", "oldLeafId": "o"}, {"new_leaf_id": "n", "old_leaf_id": "o"}),
    obs("omp", "session_shutdown", {"type": "session_shutdown"}),
    Case("omp", "context", {"messages": CTX},
         [lambda e: {"messages": [m for m in e.messages if m.get("customType") != "debug-only"]},
          lambda e: {"messages": [*e.messages, {"role": "user", "content": "three"}]}],
         {"messages": [*CTX[:2], {"role": "user", "content": "three"}]}),
    Case("omp", "before_agent_start", {"prompt": "p", "images": []},
         [None, {"message": MSG_A}, {"message": MSG_B}], {"message": PI_MSG_A}, {"prompt": "p"}, called=3),
    # omp 18 sends its system prompt in parts and takes the replacement as parts
    Case("omp", "before_agent_start", {"prompt": "p", "systemPrompt": ["BASE", "MORE"]},
         [lambda e: {"system_prompt": e.system_prompt + "\nA"}], {"systemPrompt": ["BASE\n\nMORE\nA"]},
         {"system_prompt": "BASE\n\nMORE"}),
    obs("omp", "agent_start", {"type": "agent_start"}),
    obs("omp", "agent_end", {"messages": [{"role": "assistant", "content": "done"}]},
        {"messages": [{"role": "assistant", "content": "done"}]}),
    obs("omp", "turn_start", {"turnIndex": 0, "timestamp": 1700000000000}, {"turn_index": 0}),
    obs("omp", "turn_end", {"turnIndex": 0, "message": {"role": "assistant"}, "toolResults": []},
        {"tool_results": []}),
    obs("omp", "auto_compaction_start", {"reason": "threshold"}, {"reason": "threshold"}),
    obs("omp", "auto_compaction_end", {"result": None, "aborted": False}, {"aborted": False}),
    obs("omp", "auto_retry_start", {"attempt": 1, "maxAttempts": 3, "delayMs": 2000, "errorMessage": "overloaded"},
        {"max_attempts": 3, "delay_ms": 2000, "error_message": "overloaded"}),
    obs("omp", "auto_retry_end", {"success": True, "attempt": 2}, {"success": True}),
    obs("omp", "ttsr_triggered", {"rules": [{"name": "no-console-log"}]}, {"rules": [{"name": "no-console-log"}]}),
    obs("omp", "todo_reminder", {"todos": [{"content": "x"}], "attempt": 1}, {"attempt": 1}),
    Case("omp", "tool_call", {"type": "tool_call", "toolName": "bash", "toolCallId": "c1",
                              "input": {"command": "rm -rf /tmp/x"}},
         [{"reason": "looked fine"}, {"block": True, "reason": "blocked by policy"}, {"reason": "never"}],
         {"block": True, "reason": "blocked by policy"},
         {"tool_name": "bash", "tool_call_id": "c1", "arguments": {"command": "rm -rf /tmp/x"}}, called=2),
    Case("omp", "tool_call", {"toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"}},
         [{"block": False, "reason": "first"}, {"reason": "last"}, None], {"reason": "last"}, tag="last-wins"),
    Case("omp", "tool_call", {"toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"}},
         [{"reason": "first"}, RuntimeError("hook crashed")], closed("block", "p1"), tag="fail-closed"),
    Case("omp", "tool_call", {"toolName": "bash", "toolCallId": "c1", "input": {"command": "ls"}},
         [lambda e: e.arguments.update(command="sneaky") or {"arguments": {"command": "rewritten"}}], None,
         check=_omp_input_untouched, tag="input-not-mutable"),
    Case("omp", "tool_result", {"toolName": "read", "toolCallId": "c2", "input": {"path": ".env"},
                                "content": [text("API_KEY=123")], "details": {"lines": 1}, "isError": False},
         [lambda e: {"content": [text("API_KEY=[REDACTED]")]},
          lambda e: {"details": {"saw": e.content[0]["text"]}}],
         {"details": {"saw": "API_KEY=123"}}, {"arguments": {"path": ".env"}, "is_error": False},
         check=_second_saw_original),
    # ============================== pi extensions (seed 003) ============================
    Case("pi-ext", "input", {"type": "input", "text": "hello", "images": [{"type": "image"}],
                             "source": "interactive"},
         [lambda e: {"prompt": e.prompt + " world"}, None, lambda e: {"prompt": e.prompt.upper()}],
         {"action": "transform", "text": "HELLO WORLD"}, {"prompt": "hello", "source": "interactive",
                                                           "images": [{"type": "image"}]}),
    Case("pi-ext", "input", {"text": "/secret", "source": "rpc"}, [{"handled": True}, {"prompt": "x"}],
         {"action": "handled"}, called=1, tag="handled"),
    Case("pi-ext", "input", {"text": "hi", "source": "extension"}, [None, {}], {"action": "continue"},
         tag="continue"),
    Case("pi-ext", "input", {"text": "hi", "images": [{"type": "image"}]}, [{"images": []}],
         {"action": "transform", "text": "hi", "images": []}, tag="images"),
    Case("pi-ext", "before_agent_start", {"prompt": "fix it", "images": [], "systemPrompt": "BASE"},
         [lambda e: {"system_prompt": e.system_prompt + "\nA", "message": MSG_A},
          lambda e: {"system_prompt": e.system_prompt + "\nB", "message": MSG_B}],
         # pi reads one message per handler: both plugins' contents travel in the first one
         {"systemPrompt": "BASE\nA\nB", "message": {**PI_MSG_A, "content": [text("Text A"), text("Text B")]}},
         {"system_prompt": "BASE"}),
    Case("pi-ext", "before_agent_start", {"prompt": "p", "systemPrompt": "BASE"}, [None], None, tag="nothing"),
    obs("pi-ext", "agent_start", {"type": "agent_start"}),
    obs("pi-ext", "agent_end", {"messages": []}, {"messages": []}),
    obs("pi-ext", "turn_start", {"turnIndex": 2, "timestamp": 5}, {"turn_index": 2, "timestamp": 5}),
    Case("pi-ext", "context", {"messages": CTX},
         [lambda e: e.messages[0].update(content="mutated"),
          lambda e: {"messages": [*e.messages, {"role": "user", "content": "three"}]}],
         lambda n: n["messages"][-1] == {"role": "user", "content": "three"}, check=_context_deep_copy),
    obs("pi-ext", "turn_end", {"turnIndex": 2, "message": {"role": "assistant"}, "toolResults": [{"x": 1}]},
        {"tool_results": [{"x": 1}]}),
    obs("pi-ext", "message_start", {"message": {"role": "user"}}, {"message": {"role": "user"}}),
    obs("pi-ext", "message_update", {"message": {"role": "assistant"}, "assistantMessageEvent": {"type": "text_delta"}},
        {"assistant_message_event": {"type": "text_delta"}}),
    obs("pi-ext", "message_end", {"message": {"role": "assistant"}}),
    Case("pi-ext", "tool_call", {"type": "tool_call", "toolCallId": "c1", "toolName": "bash",
                                 "input": {"command": "rm -rf ~"}},
         [{"block": True, "reason": "Not allowed in read-only mode"}, {"block": True, "reason": "later"}],
         {"block": True, "reason": "Not allowed in read-only mode"},
         {"tool_name": "bash", "tool_call_id": "c1", "arguments": {"command": "rm -rf ~"}}, called=1),
    Case("pi-ext", "tool_call", {"toolCallId": "c1", "toolName": "bash", "input": {"command": "ls"}},
         [TimeoutError("slow")], closed("block"), tag="fail-closed"),
    Case("pi-ext", "tool_call", {"toolCallId": "c1", "toolName": "bash", "input": {"command": "ls"}},
         [lambda e: {"arguments": {**e.arguments, "command": "ls -la"}},
          lambda e: {"arguments": {**e.arguments, "timeout": 5}}], None, check=_pi_input_rewritten,
         tag="input-rewrite"),
    obs("pi-ext", "tool_execution_start", {"toolCallId": "c1", "toolName": "bash", "args": {"command": "ls"}},
        {"tool_call_id": "c1", "args": {"command": "ls"}}),
    obs("pi-ext", "tool_execution_update", {"toolCallId": "c1", "partialResult": {"out": "a"}},
        {"partial_result": {"out": "a"}}),
    obs("pi-ext", "tool_execution_end", {"toolCallId": "c1", "result": {"ok": 1}, "isError": False},
        {"is_error": False}),
    # tool_result also fires when the tool failed (isError: true); handlers chain and may flip it
    Case("pi-ext", "tool_result", {"type": "tool_result", "toolCallId": "c1", "toolName": "read",
                                   "input": {"path": "x"}, "content": [text("Error: ENOENT")],
                                   "details": None, "isError": True},
         [lambda e: {"content": [*e.content, text("audit: logged")]},
          lambda e: {"is_error": False, "details": {"blocks": len(e.content)}}],
         {"content": [text("Error: ENOENT"), text("audit: logged")], "details": {"blocks": 2}, "isError": False},
         {"is_error": True, "arguments": {"path": "x"}}, check=_second_saw_chain),
    obs("pi-ext", "session_start", {"type": "session_start"}),
    Case("pi-ext", "session_before_switch", {"reason": "resume", "targetSessionFile": "/s.jsonl"},
         [None, {"cancel": True}, {"cancel": False}], {"cancel": True}, {"target_session_file": "/s.jsonl"},
         called=2),
    obs("pi-ext", "session_switch", {"reason": "resume", "previousSessionFile": "/a.jsonl"},
        {"previous_session_file": "/a.jsonl"}),
    Case("pi-ext", "session_before_fork", {"entryId": "e1"},
         [{"skip_conversation_restore": True}, {"skip_conversation_restore": False}],
         {"skipConversationRestore": False}, {"entry_id": "e1"}),
    Case("pi-ext", "session_before_fork", {"entryId": "e1"}, [{"skip_conversation_restore": True},
                                                              {"cancel": True}, {"cancel": False}],
         {"cancel": True, "skipConversationRestore": True}, called=2, tag="cancel"),
    obs("pi-ext", "session_fork", {"previousSessionFile": "/a"}),
    Case("pi-ext", "session_before_compact", {"preparation": {"firstKeptEntryId": "e3", "tokensBefore": 10},
                                              "branchEntries": [{"id": "e1"}], "customInstructions": "short"},
         [lambda e: {"compaction": {"summary": "My custom summary",
                                    "first_kept_entry_id": e.preparation["firstKeptEntryId"],
                                    "tokens_before": e.preparation["tokensBefore"]}}],
         {"compaction": {"summary": "My custom summary", "firstKeptEntryId": "e3", "tokensBefore": 10}},
         {"branch_entries": [{"id": "e1"}], "custom_instructions": "short"}),
    Case("pi-ext", "session_before_compact", {"preparation": {}}, [{"cancel": True}, {"compaction": {}}],
         {"cancel": True}, called=1, tag="cancel"),
    obs("pi-ext", "session_compact", {"compactionEntry": {"id": "c"}, "fromHook": False}, {"from_hook": False}),
    Case("pi-ext", "session_before_tree", {"preparation": {"targetId": "t"}},
         [{"summary": {"summary": "Custom branch summary"}, "label": "first"}, {"label": "my-label"}],
         {"summary": {"summary": "Custom branch summary"}, "label": "my-label"}),
    obs("pi-ext", "session_tree", {"newLeafId": "n"}, {"new_leaf_id": "n"}),
    obs("pi-ext", "session_shutdown", {}),
    obs("pi-ext", "model_select", {"model": {"id": "m2"}, "previousModel": {"id": "m1"}, "source": "cycle"},
        {"previous_model": {"id": "m1"}, "source": "cycle"}),
    Case("pi-ext", "resources_discover", {"cwd": "/w", "reason": "startup"},
         [{"skill_paths": ["/x/skills/SKILL.md"]}, {"skill_paths": ["/y/SKILL.md"], "prompt_paths": ["/y/p.md"]},
          {"theme_paths": ["/z/dark.json"]}],
         {"skillPaths": ["/x/skills/SKILL.md", "/y/SKILL.md"], "promptPaths": ["/y/p.md"],
          "themePaths": ["/z/dark.json"]}, {"cwd": "/w", "reason": "startup"}),
    Case("pi-ext", "user_bash", {"command": "ls", "excludeFromContext": True, "cwd": "/w"},
         [None, {"result": {"output": "custom output", "exit_code": 0, "cancelled": False, "truncated": False}},
          {"operations": {"execute": "ssh"}}],
         {"result": {"output": "custom output", "exitCode": 0, "cancelled": False, "truncated": False}},
         {"command": "ls", "exclude_from_context": True}, called=2),
    # ============================== pi-coding-agent hooks (seed 004) ====================
    obs("pi-agent", "session:start", {"type": "session", "reason": "start", "sessionFile": "/s/1.jsonl",
                                      "previousSessionFile": None, "entries": []},
        {"session_file": "/s/1.jsonl", "entries": []}),
    Case("pi-agent", "session:before_switch", {"reason": "before_switch", "sessionFile": "/s/1.jsonl", "entries": []},
         [{"cancel": True}, {"cancel": False}], {"cancel": True}, {"session_file": "/s/1.jsonl"}, called=1),
    obs("pi-agent", "session:switch", {"reason": "switch", "sessionFile": "/s/2.jsonl",
                                       "previousSessionFile": "/s/1.jsonl"}, {"previous_session_file": "/s/1.jsonl"}),
    Case("pi-agent", "session:before_clear", {"reason": "before_clear", "entries": [{"id": 1}]},
         [None, {"cancel": True}], {"cancel": True}, {"entries": [{"id": 1}]}),
    obs("pi-agent", "session:clear", {"reason": "clear", "entries": []}),
    Case("pi-agent", "session:before_branch", {"reason": "before_branch", "targetTurnIndex": 4, "entries": []},
         [{"skip_conversation_restore": True}], {"skipConversationRestore": True}, {"target_turn_index": 4}),
    Case("pi-agent", "session:before_branch", {"reason": "before_branch", "targetTurnIndex": 4},
         [{"cancel": True}, {"skip_conversation_restore": True}], {"cancel": True}, called=1, tag="cancel"),
    obs("pi-agent", "session:branch", {"reason": "branch", "targetTurnIndex": 4}, {"target_turn_index": 4}),
    obs("pi-agent", "session:shutdown", {"reason": "shutdown", "sessionFile": None}),
    obs("pi-agent", "agent_start", {}),
    obs("pi-agent", "agent_end", {"messages": [{"role": "assistant"}]}),
    obs("pi-agent", "turn_start", {"turnIndex": 0, "timestamp": 1}, {"turn_index": 0}),
    obs("pi-agent", "turn_end", {"turnIndex": 0, "message": {}, "toolResults": []}, {"turn_index": 0}),
    # no timeout: the handler outlives hook_timeout (it may be asking the user) and still blocks
    Case("pi-agent", "tool_call", {"toolName": "bash", "toolCallId": "c9", "input": {"command": "sudo ls"}},
         [lambda e: __import__("time").sleep(0.3) or {"block": True, "reason": "Blocked by user"}],
         {"block": True, "reason": "Blocked by user"}, {"tool_name": "bash"}, runtime={"hook_timeout": 0.1}),
    Case("pi-agent", "tool_call", {"toolName": "bash", "toolCallId": "c9", "input": {}}, [KeyError("x")],
         closed("block"), tag="fail-closed"),
    Case("pi-agent", "tool_result", {"toolName": "bash", "toolCallId": "c9", "input": {"command": "ls"},
                                     "content": [text("a\nb")], "details": {"truncation": {"truncated": False}},
                                     "isError": False},
         [lambda e: {"content": [text(e.content[0]["text"].replace("\n", ","))]},
          lambda e: {"details": {"shown": e.content[0]["text"]}}],
         {"content": [text("a,b")], "details": {"shown": "a,b"}}, {"details": {"truncation": {"truncated": False}}}),
]


def make_plugin(hook: str, answer: Any, seen: list[dict[str, Any]]) -> Any:
    def handler(event: Any) -> Any:
        seen.append(copy.deepcopy(dict(event)))
        if isinstance(answer, BaseException):
            raise answer
        return answer(event) if callable(answer) else copy.deepcopy(answer)

    handler.__name__ = hook
    plugin = type("P", (), {})()
    setattr(plugin, hook, hookimpl(handler))
    return plugin


def fire(case: Case) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    dialect = DIALECT[case.system]
    name, payload = case.row, copy.deepcopy(case.payload)
    if name.startswith("session:"):
        name = "session"
        assert payload["reason"] == case.row.partition(":")[2]
    hook = next(r["canonical_hook"] for r in rows() if (r["system"], r["seed_hook"]) == (case.system, case.row))
    seen: list[dict[str, Any]] = []
    rt = Runtime([(f"p{i}", make_plugin(hook, a, seen)) for i, a in enumerate(case.answers)], **case.runtime)
    out = rt.fire(name, payload, dialect=dialect)
    assert out.hook == hook
    return out, payload, seen


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_seed_rule(case: Case) -> None:
    out, payload, seen = fire(case)
    if callable(case.native):
        assert case.native(out.native), out.native
    else:
        assert out.native == case.native
    if case.seen:
        assert seen, "no handler ran"
        assert {k: seen[0].get(k, "<missing>") for k in case.seen} == case.seen
        assert not any(k[0].isupper() or any(c.isupper() for c in k) for k in seen[0]), seen[0]
    if case.called is not None:
        assert len(seen) == case.called
    if case.check is not None:
        case.check(out, payload, seen)


def test_every_row_has_a_case() -> None:
    wanted = {(r["system"], r["seed_hook"]) for r in rows()}
    have = {(c.system, c.row) for c in CASES}
    assert wanted - have == set()
    assert have - wanted == set()


def test_rows_agree_with_the_catalogue() -> None:
    for r in rows():
        hd = BY_NAME[r["canonical_hook"]]
        assert r["seed_hook"] in hd.aliases.get(r["system"], ()), r


@pytest.mark.parametrize("case", [c for c in CASES if c.system != "chibi" and not c.tag][:12],
                         ids=lambda c: c.id)
def test_afire_gives_the_same_native(case: Case) -> None:
    import asyncio

    dialect = DIALECT[case.system]
    name, payload = case.row, copy.deepcopy(case.payload)
    if name.startswith("session:"):
        name = "session"
    hook = next(r["canonical_hook"] for r in rows() if (r["system"], r["seed_hook"]) == (case.system, case.row))
    seen: list[dict[str, Any]] = []
    rt = Runtime([(f"p{i}", make_plugin(hook, a, seen)) for i, a in enumerate(case.answers)], **case.runtime)
    out = asyncio.run(rt.afire(name, payload, dialect=dialect))
    sync_out, _, _ = fire(case)
    assert out.native == sync_out.native
