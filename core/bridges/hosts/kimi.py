"""Kimi CLI: a command hook per event as ``[[hooks]]`` in ``config.toml``."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the 13 hook events of Kimi CLI 1.51.0 (``HookEventType``)
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "StopFailure", "SessionStart",
    "SessionEnd", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "Notification",
)

#: the version the real-binary tests (tests/hosts/test_kimi.py) prove
PROVEN = "1.51.0"

_OPEN = "Kimi fails open when the hook cannot start or times out; a failure inside agent-hooks blocks"

#: canonical hook -> what Kimi CLI does with it (docs/hosts/kimi.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd"),
    "pre_message": Cap("UserPromptSubmit", block=True, proven=PROVEN, note="no rewrite: Kimi reads no changed prompt"),
    "pre_tool": Cap("PreToolUse", block=True, proven=PROVEN,
                    note=f"a rewrite becomes a deny (Kimi reads no changed input); {_OPEN}"),
    "pre_shell_exec": Cap("PreToolUse Shell", block=True, proven=PROVEN, note=_OPEN),
    "pre_file_write": Cap("PreToolUse WriteFile|StrReplaceFile", block=True, note=_OPEN, proven=PROVEN),
    "pre_file_read": Cap("PreToolUse ReadFile|ReadMediaFile|Grep|Glob", block=True, note=_OPEN, proven=PROVEN),
    "pre_fetch_url": Cap("PreToolUse FetchURL|SearchWeb", block=True, note=_OPEN, proven=PROVEN),
    "post_tool": Cap("PostToolUse, PostToolUseFailure", note="not awaited by Kimi"),
    "pre_tool_output": Cap("PostToolUse", note="observe only: Kimi cannot replace a tool's output"),
    "pre_compact": Cap("PreCompact", note="Kimi cannot cancel a compaction"),
    "post_compact": Cap("PostCompact"),
    "agent_end": Cap("Stop"),
    "stop_gate": Cap("Stop", block=True, continues=True, proven=PROVEN,
                     note="continue = a JSON deny, the reason as one more turn; Kimi allows one per prompt"),
    "pre_spawn_agent": Cap("SubagentStart", note="cannot stop the sub-agent"),
    "post_spawn_agent": Cap("SubagentStop"),
    "host_event": Cap("StopFailure, Notification"),
}

HOST = Host(
    name="kimi",
    title="Kimi CLI",
    adapter="agent_hooks_core.bridges.kimi:ADAPTER",
    installer="agent_hooks_core.bridges.kimi.install",
    command="agent_hooks_core.bridges.kimi:main",
    executable="kimi",
    transport="command hook per event (config.toml [[hooks]])",
    transports=("command", "http", "socket"),
    config=Config("toml", ("user",), "~/.kimi/config.toml"),
    events=EVENTS,
    fires=EVENTS,
    capabilities=CAPABILITIES,
    failure="exit 2 with the reason blocks PreToolUse; a hook that cannot start or times out fails open",
    timeout=Timeout(60, closed=False, gated="PreToolUse"),
    docs="kimi.md",
    aliases=("kimi-cli",),
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
