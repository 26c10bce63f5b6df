"""OpenCode: a TypeScript plugin that forwards events over ``agenthooks serve --stdio``."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-agent tests run (tests/hosts/test_opencode.py)
PROVEN = "1.18.33"

EVENTS = (
    "tool.execute.before", "tool.execute.after", "chat.message", "chat.params",
    "experimental.chat.system.transform", "experimental.session.compacting", "event",
)

#: canonical hook -> what OpenCode does with it (docs/hosts/opencode.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("event session.created"),
    "session_start": Cap("event session.created"),
    "on_end": Cap("event session.deleted", note="not when OpenCode just exits"),
    "pre_message": Cap("chat.message", block=True, rewrite=True, proven=PROVEN),
    "pre_system_prompt": Cap("experimental.chat.system.transform", rewrite=True, proven=PROVEN),
    "pre_tool": Cap("tool.execute.before", block=True, rewrite=True, closed=True, proven=PROVEN),
    "pre_shell_exec": Cap("tool.execute.before bash", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("tool.execute.before write|edit|patch", block=True, closed=True),
    "pre_file_read": Cap("tool.execute.before read|glob|grep|list", block=True, closed=True),
    "pre_fetch_url": Cap("tool.execute.before webfetch", block=True, closed=True),
    "post_tool": Cap("tool.execute.after"),
    "pre_tool_output": Cap("tool.execute.after", block=True, rewrite=True),
    "pre_api_request": Cap("chat.params", rewrite=True, proven=PROVEN, note="temperature, topP, options only"),
    "pre_compact": Cap("experimental.session.compacting", note="cannot cancel"),
    "on_compacting": Cap("experimental.session.compacting", rewrite=True),
    "post_compact": Cap("event session.compacted"),
    "agent_end": Cap("event session.idle"),
    "host_event": Cap("other bus events"),
}

HOST = Host(
    name="opencode",
    title="OpenCode",
    adapter="agent_hooks_core.bridges.opencode:ADAPTER",
    installer="agent_hooks_core.bridges.opencode.install",
    executable="opencode",
    transport="TypeScript plugin over `agenthooks serve --stdio`",
    transports=("stdio",),
    config=Config("extension", ("user", "project"),
                  "~/.config/opencode/plugin/agent-hooks.ts, or .opencode/plugin/agent-hooks.ts"),
    events=EVENTS,
    capabilities=CAPABILITIES,
    failure="tool.execute.before throws (the tool does not run); the plugin denies when the session dies",
    timeout=Timeout(None, closed=True, gated="tool.execute.before", note="our plugin's own 60 s timer throws"),
    docs="opencode.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
