"""OpenHands CLI: a command hook per event in ``.openhands/hooks.json`` (Claude-like format)."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the 6 hook events of OpenHands CLI 1.16.0 (openhands-sdk ``HookEventType``)
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop")

#: the version the real-binary tests (tests/hosts/test_openhands.py) prove
PROVEN = "1.16.0"

_OPEN = "OpenHands fails open when the hook cannot start or times out; a failure inside agent-hooks blocks"

#: canonical hook -> what OpenHands CLI does with it (docs/hosts/openhands.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd"),
    "pre_message": Cap("UserPromptSubmit", block=True, rewrite=True, proven=PROVEN,
                       note="a rewritten prompt reaches the model as additionalContext"),
    "pre_system_prompt": Cap("UserPromptSubmit", rewrite=True, proven=PROVEN,
                             note="as additionalContext, appended to each user message"),
    "pre_tool": Cap("PreToolUse", block=True, proven=PROVEN,
                    note=f"a rewrite becomes a deny (OpenHands reads no changed input); {_OPEN}"),
    "pre_shell_exec": Cap("PreToolUse terminal", block=True, proven=PROVEN, note=_OPEN),
    "pre_file_write": Cap("PreToolUse file_editor (create|str_replace|insert)", block=True, note=_OPEN, proven=PROVEN),
    "pre_file_read": Cap("PreToolUse file_editor view|glob|grep", block=True, note=_OPEN, proven=PROVEN),
    "post_tool": Cap("PostToolUse"),
    "pre_tool_output": Cap("PostToolUse", note="observe only: OpenHands cannot replace a tool's output"),
    "agent_end": Cap("Stop"),
    "stop_gate": Cap("Stop", block=True, continues=True, proven=PROVEN,
                     note="continue = decision deny, the reason as feedback"),
}

HOST = Host(
    name="openhands",
    title="OpenHands CLI",
    adapter="agent_hooks_core.bridges.openhands:ADAPTER",
    installer="agent_hooks_core.bridges.openhands.install",
    command="agent_hooks_core.bridges.openhands:main",
    executable="openhands",
    transport="command hook per event (.openhands/hooks.json)",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"), "~/.openhands/hooks.json, or .openhands/hooks.json"),
    events=EVENTS,
    fires=EVENTS,
    capabilities=CAPABILITIES,
    failure="exit 2 with the reason blocks PreToolUse; a hook that cannot start or times out fails open",
    timeout=Timeout(60, closed=False, gated="PreToolUse"),
    docs="openhands.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
