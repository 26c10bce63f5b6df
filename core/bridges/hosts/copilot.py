"""GitHub Copilot CLI: a hook file in ``~/.copilot/hooks/`` (PascalCase events, Claude's protocol)."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-binary tests run (tests/hosts/test_copilot.py)
PROVEN = "1.0.102"

#: every hook event Copilot CLI 1.0.102 takes in a PascalCase hook file (its runtime's hook-config
#: parser and the SDK's hook table; docs/hosts/protocols.md); all of them wired
FIRES = (
    "SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PreMcpToolCall", "PermissionRequest",
    "PostToolUse", "PostToolUseFailure", "ErrorOccurred", "Stop", "SubagentStart", "SubagentStop", "PreCompact",
    "Notification",
)
EVENTS = FIRES

#: canonical hook -> what Copilot does with it (docs/hosts/copilot.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd"),
    "pre_message": Cap("UserPromptSubmit", block=True, rewrite=True, proven=PROVEN,
                       note="a rewritten prompt reaches the model as additionalContext"),
    "pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, proven=PROVEN, note="as additionalContext"),
    "pre_tool": Cap("PreToolUse", block=True, rewrite=True, closed=True, proven=PROVEN,
                    note="a hook timeout (ours: 60 s) lets the tool run"),
    "pre_shell_exec": Cap("PreToolUse Bash", block=True, closed=True, proven=PROVEN),
    "post_tool": Cap("PostToolUse, PostToolUseFailure"),
    "agent_end": Cap("Stop"),
    "stop_gate": Cap("Stop", block=True, continues=True, proven=PROVEN,
                     note="continue = decision block, the reason as the next instruction"),
    "permission_request": Cap("PermissionRequest", block=True, closed=True, proven=PROVEN,
                              note="deny; allow (approvers) skips the permission check; no updated input; "
                                   "fires even with --allow-all"),
    "host_event": Cap("PreMcpToolCall, ErrorOccurred, SubagentStart, SubagentStop, PreCompact, Notification"),
}

HOST = Host(
    name="copilot",
    title="GitHub Copilot CLI",
    adapter="agent_hooks_core.bridges.copilot:ADAPTER",
    installer="agent_hooks_core.bridges.copilot:INSTALLER",
    command="agent_hooks_core.bridges.copilot:main",
    executable="copilot",
    transport="command hook per event (hooks/*.json, PascalCase events)",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"),
                  "~/.copilot/hooks/agent-hooks.json, or .github/hooks/agent-hooks.json (trusted folders)"),
    events=EVENTS,
    capabilities=CAPABILITIES,
    fires=FIRES,
    failure="a JSON deny (exit 0: Copilot reads no JSON after a non-zero exit) blocks PreToolUse; other events go on",
    timeout=Timeout(60, closed=False, gated="preToolUse"),
    docs="copilot.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
