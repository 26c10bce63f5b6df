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

#: every hook event Claude Code 2.1.330 fires (``HOOK_EVENTS`` in its bundle; docs/hosts/protocols.md)
FIRES = (
    "SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
    "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "SubagentStart", "SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact", "SessionEnd",
    "MessageDisplay", "PreModelSwitch", "PostModelSwitch", "Setup", "InstructionsLoaded", "TaskCreated",
    "TaskCompleted", "TeammateIdle", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged",
    "WorktreeCreate", "WorktreeRemove", "Elicitation", "ElicitationResult",
)

#: Claude Code events we do not wire, and why (docs/hosts/claude-code.md lists them too)
NOT_WIRED = {
    "MessageDisplay": "one process per streamed line of every reply",
    "FileChanged": "fires for the paths a hook asks to watch; one process per file change",
    "WorktreeCreate": "a WorktreeCreate hook replaces Claude Code's own worktree creation",
    "WorktreeRemove": "pairs with WorktreeCreate, which we must not answer",
}


def _wired() -> tuple[str, ...]:
    return tuple(e for e in FIRES if e not in NOT_WIRED)


#: canonical hook -> what Claude Code does with it (docs/hosts/claude-code.md says why)
CAPABILITIES: dict[str, Cap] = {
"on_start": Cap("SessionStart"),
"session_start": Cap("SessionStart"),
"on_end": Cap("SessionEnd"),
"pre_message": Cap("UserPromptSubmit", block=True, rewrite=True, proven=PROVEN,
                   note="a rewritten prompt reaches the model as additionalContext"),
"pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, proven=PROVEN, note="as additionalContext"),
"pre_tool": Cap("PreToolUse", block=True, rewrite=True, closed=True, proven=PROVEN),
"pre_shell_exec": Cap("PreToolUse Bash|PowerShell", block=True, closed=True, proven=PROVEN),
"pre_file_write": Cap("PreToolUse Write|Edit|NotebookEdit", block=True, closed=True, proven=PROVEN),
"pre_file_read": Cap("PreToolUse Read|Grep|Glob", block=True, closed=True, proven=PROVEN),
"pre_fetch_url": Cap("PreToolUse WebFetch|WebSearch", block=True, closed=True, proven=PROVEN),
"post_tool": Cap("PostToolUse, PostToolUseFailure"),
"pre_tool_output": Cap("PostToolUse", block=True, rewrite=True, proven=PROVEN),
"post_tool_batch": Cap("PostToolBatch", block=True, proven=PROVEN, note="fallback call_user only"),
"pre_compact": Cap("PreCompact", block=True, proven=PROVEN),
"post_compact": Cap("PostCompact"),
"agent_end": Cap("Stop"),
"stop_gate": Cap("Stop, SubagentStop", block=True, continues=True, proven=PROVEN,
                 note="continue = decision block, the reason as the next instruction"),
"permission_request": Cap("PermissionRequest", block=True, rewrite=True, closed=True, proven=PROVEN,
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
    events=_wired,
    capabilities=CAPABILITIES,
    fires=FIRES,
    not_wired=NOT_WIRED,
    failure="PreToolUse and PermissionRequest get a deny (exit 2 with the reason when the process "
            "itself fails); other events go on",
    timeout=Timeout(60, closed=True, gated="PreToolUse, PermissionRequest", note="installed with onFailure: block"),
    docs="claude-code.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
