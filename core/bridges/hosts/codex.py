"""OpenAI Codex CLI: a command hook per event in ``hooks.json``, with Codex's hash-pinned hook trust."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-agent tests run (tests/hosts/test_codex.py)
PROVEN = "0.169.0"

#: the 14 hook events of Codex 0.169.0 (PreModelRequest and PostModelRequest are observe-only)
EVENTS = (
    "SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
    "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop", "Interrupt", "PreModelRequest",
    "PostModelRequest",
)

#: canonical hook -> what OpenAI Codex CLI does with it (docs/hosts/codex.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd", note="Codex allows at most 3 s"),
    "pre_message": Cap("UserPromptSubmit", block=True, rewrite=True, proven=PROVEN,
                       note="a rewritten prompt reaches the model as additionalContext"),
    "pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, proven=PROVEN, note="as additionalContext"),
    "pre_tool": Cap("PreToolUse (Bash, apply_patch, MCP)", block=True, rewrite=True, closed=True, proven=PROVEN,
                    note="not for web search or other built-in tools (Codex does not hook them)"),
    "pre_shell_exec": Cap("PreToolUse Bash", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("PreToolUse apply_patch, Bash with a patch (one call per file)", block=True, closed=True,
                          proven=PROVEN),
    "post_tool": Cap("PostToolUse"),
    "pre_tool_output": Cap("PostToolUse", block=True, rewrite=True, proven=PROVEN,
                           note="the result is replaced by feedback carrying the changed text"),
    "pre_compact": Cap("PreCompact", block=True, proven=PROVEN),
    "post_compact": Cap("PostCompact"),
    "agent_end": Cap("Stop"),
    "stop_gate": Cap("Stop, SubagentStop", block=True, continues=True, proven=PROVEN,
                     note="continue = decision block, the reason as the next prompt"),
    "permission_request": Cap("PermissionRequest", block=True, closed=True, proven=PROVEN,
                              note="deny; allow (approvers) skips the prompt; Codex takes no updated input"),
    "pre_spawn_agent": Cap("SubagentStart", note="cannot stop the sub-agent: told as context"),
    "post_spawn_agent": Cap("SubagentStop"),
    "host_event": Cap("Interrupt, PreModelRequest, PostModelRequest"),
}

HOST = Host(
    name="codex",
    title="OpenAI Codex CLI",
    adapter="agent_hooks_core.bridges.codex:ADAPTER",
    installer="agent_hooks_core.bridges.codex.install",
    command="agent_hooks_core.bridges.codex:main",
    executable="codex",
    transport="command hook per event (hooks.json + hook trust)",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"),
                  "~/.codex/hooks.json and the hook trust in ~/.codex/config.toml, or .codex/hooks.json"),
    events=EVENTS,
    fires=EVENTS,
    capabilities=CAPABILITIES,
    failure="exit 2 with the reason on stderr blocks PreToolUse; PermissionRequest gets a deny; other events go on",
    timeout=Timeout(60, closed=False, gated="PreToolUse, PermissionRequest"),
    docs="codex.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
