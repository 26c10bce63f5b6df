"""Claude Code 2.1.330 hook payloads, shaped like the samples in docs/hosts/protocols.md A3.

``event(name, cwd, **fields)`` adds the common fields Claude Code sends with every event.
"""

from __future__ import annotations

from typing import Any

TRANSCRIPT = "/home/dev/.claude/projects/-repo/abc.jsonl"

#: event -> the fields Claude Code adds to the common ones (one realistic sample each)
SAMPLES: dict[str, dict[str, Any]] = {
    "SessionStart": {"source": "startup", "model": "claude-sonnet-5"},
    "SessionEnd": {"reason": "prompt_input_exit"},
    "UserPromptSubmit": {"prompt": "Fix the bug", "source": "sdk", "prompt_id": "p1"},
    "UserPromptExpansion": {"command_name": "review", "command_args": "src/", "prompt": "Review src/"},
    "PreToolUse": {"tool_name": "Bash", "tool_input": {"command": "npm test", "description": "Run tests"},
                   "tool_use_id": "toolu_01", "prompt_id": "p1", "effort": {"level": "high"}},
    "PermissionRequest": {"tool_name": "Bash", "tool_input": {"command": "npm publish"},
                          "permission_suggestions": [{"type": "addRules", "behavior": "allow"}]},
    "PermissionDenied": {"tool_name": "Bash", "tool_input": {"command": "curl x | sh"},
                         "tool_use_id": "toolu_09", "reason": "classifier: remote code"},
    "PostToolUse": {"tool_name": "Write", "tool_input": {"file_path": "/repo/a.txt", "content": "x"},
                    "tool_response": {"filePath": "/repo/a.txt", "success": True},
                    "tool_use_id": "toolu_02", "duration_ms": 12},
    "PostToolUseFailure": {"tool_name": "Bash", "tool_input": {"command": "false"}, "tool_use_id": "toolu_03",
                           "error": "Exit code 1", "is_interrupt": False, "duration_ms": 5},
    "PostToolBatch": {"tool_calls": [
        {"tool_name": "Read", "tool_input": {"file_path": "/repo/a.txt"}, "tool_use_id": "toolu_04",
         "tool_response": "x"},
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_05",
         "tool_response": "a.txt"},
    ]},
    "Notification": {"message": "Claude needs your permission to use Bash", "title": "Permission",
                     "notification_type": "permission_prompt"},
    "SubagentStart": {"agent_id": "agent-1", "agent_type": "Explore"},
    "SubagentStop": {"stop_hook_active": False, "agent_id": "agent-1", "agent_type": "Explore",
                     "agent_transcript_path": "/home/dev/.claude/projects/-repo/subagents/agent-1.jsonl",
                     "last_assistant_message": "Found 3"},
    "Stop": {"stop_hook_active": False, "last_assistant_message": "Done.", "background_tasks": [],
             "session_crons": []},
    "StopFailure": {"error": "overloaded_error"},
    "PreCompact": {"trigger": "manual", "custom_instructions": "keep the test names"},
    "PostCompact": {"trigger": "auto", "compact_summary": "We fixed the bug."},
}

#: tool_input / tool_response shapes per tool (docs/hosts/protocols.md A3 "Tool inputs")
TOOL_INPUTS: dict[str, dict[str, Any]] = {
    "Bash": {"command": "npm test", "description": "Run tests"},
    "PowerShell": {"command": "Get-ChildItem"},
    "Write": {"file_path": "/repo/a.txt", "content": "hello"},
    "Edit": {"file_path": "/repo/a.txt", "old_string": "hello", "new_string": "bye", "replace_all": False},
    "MultiEdit": {"file_path": "/repo/a.txt", "edits": [{"old_string": "a", "new_string": "b"}]},
    "NotebookEdit": {"notebook_path": "/repo/n.ipynb", "new_source": "print(1)", "cell_id": "c1"},
    "Read": {"file_path": "/repo/.env", "offset": 1, "limit": 20},
    "Grep": {"pattern": "TODO", "path": "/repo/src", "output_mode": "content"},
    "Glob": {"pattern": "**/*.py"},
    "WebFetch": {"url": "https://example.com/docs", "prompt": "summarise"},
    "WebSearch": {"query": "pluggy firstresult", "allowed_domains": ["pluggy.readthedocs.io"]},
    "Agent": {"prompt": "find the bug", "description": "Explore", "subagent_type": "Explore"},
    "mcp__github__create_issue": {"title": "bug", "body": "it broke"},
}


def event(name: str, cwd: str, **fields: Any) -> dict[str, Any]:
    """A Claude Code event ``name`` (the sample's fields, then ``fields`` on top)."""
    ev: dict[str, Any] = {"session_id": "abc", "transcript_path": TRANSCRIPT, "cwd": cwd,
                          "permission_mode": "default", "hook_event_name": name}
    ev.update(SAMPLES.get(name, {}))
    ev.update(fields)
    return ev
