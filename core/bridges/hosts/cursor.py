"""Cursor: a command hook per event in ``hooks.json`` (protocol-tested only)."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

EVENTS = (
    "sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure", "subagentStart",
    "subagentStop", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution",
    "beforeReadFile", "afterFileEdit", "beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse",
    "afterAgentThought",
)

#: canonical hook -> what Cursor does with it (docs/hosts/cursor.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("sessionStart"),
    "session_start": Cap("sessionStart"),
    "on_end": Cap("sessionEnd"),
    "pre_message": Cap("beforeSubmitPrompt", block=True),
    "pre_system_prompt": Cap("sessionStart", rewrite=True, note="additional_context, once per session"),
    "pre_tool": Cap("preToolUse, beforeShellExecution, beforeMCPExecution, beforeReadFile", block=True,
                    rewrite=True, closed=True, note="rewrites only on preToolUse (updated_input)"),
    "pre_shell_exec": Cap("preToolUse Shell, beforeShellExecution", block=True, closed=True),
    "pre_file_write": Cap("preToolUse Write|Edit|Delete", block=True, closed=True),
    "pre_file_read": Cap("preToolUse Read|Grep, beforeReadFile", block=True, closed=True),
    "post_tool": Cap("postToolUse, postToolUseFailure, afterFileEdit"),
    "pre_tool_output": Cap("postToolUse", rewrite=True, note="MCP output only (updated_mcp_tool_output)"),
    "pre_compact": Cap("preCompact", note="observe only"),
    "agent_end": Cap("stop"),
    "stop_gate": Cap("stop, subagentStop", block=True,
                     note="continue = followup_message, the next user message (not after an abort)"),
    "pre_spawn_agent": Cap("subagentStart", block=True, closed=True),
    "post_spawn_agent": Cap("subagentStop"),
    "host_event": Cap("afterAgentResponse, afterAgentThought, after*Execution"),
}

HOST = Host(
    name="cursor",
    title="Cursor",
    adapter="agent_hooks_core.bridges.cursor:ADAPTER",
    installer="agent_hooks_core.bridges.cursor.install",
    command="agent_hooks_core.bridges.cursor:main",
    executable="cursor-agent",
    transport="command hook per event (hooks.json); protocol-tested only",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"),
                  "~/.cursor/hooks.json, or .cursor/hooks.json"),
    events=EVENTS,
    capabilities=CAPABILITIES,
    failure="a deny on preToolUse, beforeShellExecution, beforeMCPExecution, beforeReadFile and subagentStart; other events go on",
    timeout=Timeout(60, closed=True, gated="preToolUse, beforeShellExecution, beforeMCPExecution, beforeReadFile", note="installed with failClosed: true"),
    docs="cursor.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
