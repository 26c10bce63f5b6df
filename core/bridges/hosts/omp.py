"""oh-my-pi: a TypeScript extension that forwards events over ``agenthooks serve --stdio``.

Its events, shapes and rules are the ``omp`` dialect's (:mod:`agent_hooks_core.dialects`), so the
event map and capabilities are computed from it when asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...hookspecs.markers import hookimpl
from ..record import Config, Host, Timeout, with_proven

if TYPE_CHECKING:
    from ..record import Cap

#: the version the real-agent tests run (tests/hosts/test_pi*.py) and the hooks they prove there
PROVEN = "18.2.3"
PROVEN_HOOKS = ("pre_tool", "pre_shell_exec", "stop_gate", "pre_file_read", "pre_file_write", "pre_tool_output",
                "before_agent_start", "pre_llm_context", "pre_compact", "on_compacting", "pre_session_switch",
                "pre_session_fork", "pre_session_tree")


#: every event omp 18.2.3 fires: the ``on(event: …)`` overloads of ``ExtensionAPI`` in its
#: src/extensibility/extensions/types.ts (docs/hosts/protocols.md)
FIRES = (
    "resources_discover", "session_start", "session_before_switch", "session_switch", "session_before_branch",
    "session_branch", "session_before_compact", "session.compacting", "session_compact", "session_shutdown",
    "session_stop", "session_before_tree", "session_tree", "context", "before_provider_request",
    "after_provider_response", "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end",
    "message_start", "message_update", "message_end", "tool_execution_start", "tool_execution_update",
    "tool_execution_end", "auto_compaction_start", "auto_compaction_end", "auto_retry_start", "auto_retry_end",
    "retry_fallback_applied", "retry_fallback_succeeded", "ttsr_triggered", "todo_reminder", "goal_updated",
    "credential_disabled", "mcp_notification", "tool_approval_requested", "tool_approval_resolved", "input",
    "user_bash", "user_python", "tool_call", "tool_result",
)

#: omp events we do not wire, and why
NOT_WIRED = {
    "message_update": "one event per streamed chunk of every reply",
    "tool_execution_update": "one event per chunk of a running tool's output",
    "input": "the omp dialect does not translate it yet (pi's input is pre_message); observed, a plugin's "
             "rewrite or block would be dropped silently",
    "user_bash": "the omp dialect does not translate it yet (pi's is user_bash); observed, a plugin's "
                 "answer would be dropped silently",
    "resources_discover": "the omp dialect does not translate it yet (pi's is resources_discover); observed, "
                          "a plugin's paths would be dropped silently",
}


def _capabilities() -> dict[str, Cap]:
    from ..pi import capabilities

    return with_proven(capabilities("omp"), PROVEN, PROVEN_HOOKS)


def _events() -> dict[str, tuple[str, ...]]:
    from ..pi import event_map

    return event_map("omp")


HOST = Host(
    name="omp",
    title="oh-my-pi",
    adapter="agent_hooks_core.bridges.pi:OMP_ADAPTER",
    installer="agent_hooks_core.bridges.pi.install:OMP",
    executable="omp",
    transport="TypeScript extension over `agenthooks serve --stdio`",
    transports=("stdio",),
    config=Config("extension", ("user", "project"),
                  "~/.omp/agent/extensions/agent-hooks.ts, or .omp/extensions/agent-hooks.ts"),
    events=_events,
    capabilities=_capabilities,
    fires=FIRES,
    not_wired=NOT_WIRED,
    failure="tool_call is blocked when we fail or the session dies; other events go on",
    timeout=Timeout(30, closed=True, gated="tool_call", note="our extension answers at 25 s"),
    docs="omp.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
