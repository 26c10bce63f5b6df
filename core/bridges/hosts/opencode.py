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

#: every plugin hook OpenCode 1.18.33 calls (``Plugin.trigger("…")`` in its binary, plus ``event``
#: and ``config``, called on each plugin directly; docs/hosts/protocols.md)
FIRES = (
    "config", "event", "chat.message", "chat.params", "chat.headers", "experimental.chat.system.transform",
    "experimental.chat.messages.transform", "tool.definition", "tool.execute.before", "tool.execute.after",
    "shell.env", "command.execute.before", "experimental.session.compacting", "experimental.compaction.autocontinue",
    "experimental.text.complete", "experimental.provider.small_model",
)

#: OpenCode hooks we do not wire, and why
NOT_WIRED = {
    "config": "called once at load with OpenCode's configuration, not an event of the agent's work",
    "chat.headers": "HTTP headers of each model request: no canonical hook holds them",
    "experimental.chat.messages.transform": "the messages in OpenCode's own part format; not mapped to "
                                            "pre_llm_context yet",
    "tool.definition": "one call per tool definition; not mapped to pre_api_tools yet",
    "shell.env": "the environment of OpenCode's shell and terminals: no canonical hook holds it",
    "command.execute.before": "a slash command's expansion: no canonical hook holds it",
    "experimental.compaction.autocontinue": "whether OpenCode goes on after a compaction: no canonical hook",
    "experimental.text.complete": "completions in OpenCode's prompt editor, not the agent's work",
    "experimental.provider.small_model": "which model runs OpenCode's side tasks: no canonical hook",
}

#: canonical hook -> what OpenCode does with it (docs/hosts/opencode.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("event session.created"),
    "session_start": Cap("event session.created"),
    "on_end": Cap("event session.deleted", note="not when OpenCode just exits"),
    "pre_message": Cap("chat.message", block=True, rewrite=True, proven=PROVEN),
    "pre_system_prompt": Cap("experimental.chat.system.transform", rewrite=True, proven=PROVEN),
    "pre_tool": Cap("tool.execute.before", block=True, rewrite=True, closed=True, proven=PROVEN),
    "pre_shell_exec": Cap("tool.execute.before bash", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("tool.execute.before write|edit|patch", block=True, closed=True, proven=PROVEN),
    "pre_file_read": Cap("tool.execute.before read|glob|grep|list", block=True, closed=True, proven=PROVEN),
    "pre_fetch_url": Cap("tool.execute.before webfetch", block=True, closed=True, proven=PROVEN),
    "post_tool": Cap("tool.execute.after"),
    "pre_tool_output": Cap("tool.execute.after", block=True, rewrite=True, proven=PROVEN),
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
    fires=FIRES,
    not_wired=NOT_WIRED,
    failure="tool.execute.before throws (the tool does not run); the plugin denies when the session dies",
    timeout=Timeout(None, closed=True, gated="tool.execute.before", note="our plugin's own 60 s timer throws"),
    docs="opencode.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
