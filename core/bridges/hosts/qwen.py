"""Qwen Code: Claude Code's command-hook protocol in ``settings.json``."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-CLI tests run (tests/hosts/test_qwen.py)
PROVEN = "0.24.4"

#: every hook event Qwen Code 0.24.4 fires (``HookEventName`` in its bundle; docs/hosts/protocols.md)
FIRES = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
    "UserPromptExpansion", "SessionStart", "Stop", "MessageDisplay", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "SessionEnd", "SessionDelete", "PermissionRequest", "PermissionDenied",
    "StopFailure", "TodoCreated", "TodoCompleted", "InstructionsLoaded",
)

#: Qwen Code events we do not wire, and why
NOT_WIRED = {"MessageDisplay": "one process per streamed chunk of every reply"}

#: the events we wire: those with a canonical hook, the rest to ``host_event``
EVENTS = tuple(e for e in FIRES if e not in NOT_WIRED)

#: canonical hook -> what Qwen Code does with it (docs/hosts/qwen.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd", note="not sent by headless runs"),
    "pre_message": Cap("UserPromptSubmit", block=True, rewrite=True, proven=PROVEN,
                       note="a rewritten prompt reaches the model as additionalContext"),
    "pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, proven=PROVEN, note="as additionalContext"),
    "pre_tool": Cap("PreToolUse", block=True, closed=True, proven=PROVEN,
                    note="a JSON deny or exit 2 blocks; other exits and timeouts let the tool run; "
                         "updatedInput is ignored, so a rewritten call is denied"),
    "pre_shell_exec": Cap("PreToolUse run_shell_command", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("PreToolUse write_file|edit", block=True, closed=True, proven=PROVEN),
    "post_tool": Cap("PostToolUse, PostToolUseFailure"),
    "agent_end": Cap("Stop"),
    "stop_gate": Cap("Stop", block=True, continues=True, proven=PROVEN,
                     note="continue = decision block, the reason as the next instruction"),
    "permission_request": Cap("PermissionRequest", block=True, rewrite=True, closed=True, proven=PROVEN,
                              note="deny; allow (approvers) skips the prompt, with updatedInput; fired only "
                                   "where Qwen can ask (interactive, stream-json), not in qwen -p"),
    "host_event": Cap("every other wired event", note="not wired: MessageDisplay (a process per streamed chunk)"),
}

HOST = Host(
    name="qwen",
    title="Qwen Code",
    adapter="agent_hooks_core.bridges.qwen:ADAPTER",
    installer="agent_hooks_core.bridges.qwen:INSTALLER",
    command="agent_hooks_core.bridges.qwen:main",
    executable="qwen",
    transport="command hook per event (settings.json, Claude format)",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"), "~/.qwen/settings.json, or .qwen/settings.json"),
    events=EVENTS,
    capabilities=CAPABILITIES,
    fires=FIRES,
    not_wired=NOT_WIRED,
    failure="a JSON deny and exit 2 block PreToolUse; other events go on",
    timeout=Timeout(60, closed=False, gated="PreToolUse"),
    docs="qwen.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
