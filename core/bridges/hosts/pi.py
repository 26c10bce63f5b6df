"""pi: a TypeScript extension that forwards events over ``agenthooks serve --stdio``.

Its events, shapes and rules are the ``pi`` dialect's (:mod:`agent_hooks_core.dialects`), so the
event map and capabilities are computed from it when asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...hookspecs.markers import hookimpl
from ..record import Config, Host, Timeout, with_proven

if TYPE_CHECKING:
    from ..record import Cap

#: the version the real-agent tests run (tests/hosts/test_pi*.py) and the hooks they prove there
PROVEN = "0.73.1"
PROVEN_HOOKS = ("pre_tool", "pre_shell_exec", "pre_file_read", "pre_file_write", "pre_tool_output", "pre_message",
                "before_agent_start", "pre_llm_context", "pre_compact", "pre_session_switch", "pre_session_fork",
                "pre_session_tree", "user_bash", "resources_discover")


#: every event pi 0.73.1 fires: the ``on(event: …)`` overloads of ``ExtensionAPI`` in its
#: dist/core/extensions/types.d.ts, each emitted from dist/core/agent-session.js (docs/hosts/protocols.md)
FIRES = (
    "resources_discover", "session_start", "session_before_switch", "session_before_fork", "session_before_compact",
    "session_compact", "session_shutdown", "session_before_tree", "session_tree", "context",
    "before_provider_request", "after_provider_response", "before_agent_start", "agent_start", "agent_end",
    "turn_start", "turn_end", "message_start", "message_update", "message_end", "tool_execution_start",
    "tool_execution_update", "tool_execution_end", "model_select", "thinking_level_select", "user_bash", "input",
    "tool_call", "tool_result",
)


def _capabilities() -> dict[str, Cap]:
    from ..pi import capabilities

    return with_proven(capabilities("pi"), PROVEN, PROVEN_HOOKS)


def _events() -> dict[str, tuple[str, ...]]:
    from ..pi import event_map

    # the pi dialect also names session_switch / session_fork, which 0.73.1 never fires
    return {event: hooks for event, hooks in event_map("pi").items() if event in FIRES}


HOST = Host(
    name="pi",
    title="pi",
    adapter="agent_hooks_core.bridges.pi:ADAPTER",
    installer="agent_hooks_core.bridges.pi.install:PI",
    executable="pi",
    transport="TypeScript extension over `agenthooks serve --stdio`",
    transports=("stdio",),
    config=Config("extension", ("user", "project"),
                  "~/.pi/agent/extensions/agent-hooks.ts, or .pi/extensions/agent-hooks.ts"),
    events=_events,
    capabilities=_capabilities,
    fires=FIRES,
    failure="tool_call is blocked when we fail or the session dies; other events go on",
    timeout=Timeout(None, closed=True, gated="tool_call", note="our extension's own 60 s timer blocks"),
    docs="pi.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
