"""Claude Code: a command hook per event in its ``settings.json`` (or the HTTP / socket transports)."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-agent tests run (tests/hosts/test_claude_code.py)
PROVEN = "2.1.330"

#: Claude Code events with a canonical counterpart (the rest go to the ``host_event`` hook)
MAPPED_EVENTS = (
    "SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse",
    "PostToolUseFailure", "PostToolBatch", "PreCompact", "PostCompact", "Stop", "SubagentStart",
    "SubagentStop", "PermissionRequest",
)

#: canonical hook -> what Claude Code does with it (docs/hosts/claude-code.md says why)
CAPABILITIES: dict[str, Cap] = {
"on_start": Cap("SessionStart"),
"session_start": Cap("SessionStart"),
"on_end": Cap("SessionEnd"),
"pre_message": Cap("UserPromptSubmit", block=True, rewrite=True,
                   note="a rewritten prompt reaches the model as additionalContext"),
"pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, note="as additionalContext"),
"pre_tool": Cap("PreToolUse", block=True, rewrite=True, closed=True, proven=PROVEN),
"pre_shell_exec": Cap("PreToolUse Bash|PowerShell", block=True, closed=True, proven=PROVEN),
"pre_file_write": Cap("PreToolUse Write|Edit|NotebookEdit", block=True, closed=True),
"pre_file_read": Cap("PreToolUse Read|Grep|Glob", block=True, closed=True),
"pre_fetch_url": Cap("PreToolUse WebFetch|WebSearch", block=True, closed=True),
"post_tool": Cap("PostToolUse, PostToolUseFailure"),
"pre_tool_output": Cap("PostToolUse", block=True, rewrite=True),
"post_tool_batch": Cap("PostToolBatch", block=True, note="fallback call_user only"),
"pre_compact": Cap("PreCompact", block=True),
"post_compact": Cap("PostCompact"),
"agent_end": Cap("Stop"),
"stop_gate": Cap("Stop, SubagentStop", block=True, proven=PROVEN,
                 note="continue = decision block, the reason as the next instruction"),
"permission_request": Cap("PermissionRequest", block=True, rewrite=True, closed=True,
                          note="deny; allow (approvers) skips the prompt, with updatedInput"),
"pre_spawn_agent": Cap("SubagentStart", note="cannot stop the sub-agent: told as context"),
"post_spawn_agent": Cap("SubagentStop"),
"host_event": Cap("every other wired event",
                  note="not wired: MessageDisplay, FileChanged (cost), WorktreeCreate/Remove (answering "
                       "replaces Claude Code's own worktree handling)"),
}

HOST = Host(
    name="claude-code",
    title="Claude Code",
    adapter="agent_hooks_core.bridges.claude_code:ADAPTER",
    installer="agent_hooks_core.bridges.claude_code_install",
    command="agent_hooks_core.bridges.claude_code:main",
    executable="claude",
    transport="command hook per event",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project", "local"),
                  "~/.claude/settings.json, .claude/settings.json or .claude/settings.local.json"),
    events=MAPPED_EVENTS,
    capabilities=CAPABILITIES,
    failure="PreToolUse and PermissionRequest get a deny (exit 2 with the reason when the process "
            "itself fails); other events go on",
    timeout=Timeout(60, closed=True, gated="PreToolUse, PermissionRequest", note="installed with onFailure: block"),
    docs="claude-code.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
