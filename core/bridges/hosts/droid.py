"""Factory Droid: Claude Code's command-hook protocol in ``hooks.json`` (events at the top level)."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-binary tests run (tests/hosts/test_droid.py)
PROVEN = "0.225.2"

#: every hook event Droid 0.225.2 fires (its hook-event enum; docs/hosts/protocols.md); all wired.
#: It has no permission-request event.
FIRES = ("PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact",
         "SessionStart", "SessionEnd")
EVENTS = FIRES

#: canonical hook -> what Droid does with it (docs/hosts/droid.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd"),
    "pre_message": Cap("UserPromptSubmit", block=True, note="not sent by droid exec"),
    "pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, proven=PROVEN, note="as additionalContext"),
    "pre_tool": Cap("PreToolUse", block=True, rewrite=True, closed=True, proven=PROVEN,
                    note="exit 1 and a hook timeout (ours: 60 s) let the tool run"),
    "pre_shell_exec": Cap("PreToolUse Execute", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("PreToolUse Create|Edit|MultiEdit", block=True, proven=PROVEN,
                           note="when the call carries file_path"),
    "post_tool": Cap("PostToolUse"),
    "agent_end": Cap("Stop"),
    "stop_gate": Cap("Stop", block=True, continues=True, proven=PROVEN,
                     note="continue = decision block, the reason as the next instruction"),
    "host_event": Cap("Notification, SubagentStop, PreCompact"),
}

HOST = Host(
    name="droid",
    title="Factory Droid",
    adapter="agent_hooks_core.bridges.droid:ADAPTER",
    installer="agent_hooks_core.bridges.droid:INSTALLER",
    command="agent_hooks_core.bridges.droid:main",
    executable="droid",
    transport="command hook per event (hooks.json, Claude format)",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"), "~/.factory/hooks.json, or .factory/hooks.json"),
    events=EVENTS,
    capabilities=CAPABILITIES,
    fires=FIRES,
    failure="a JSON deny and exit 2 block PreToolUse; other events go on",
    timeout=Timeout(60, closed=False, gated="PreToolUse", note="a timeout counts as exit 1"),
    docs="droid.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
