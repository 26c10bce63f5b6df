"""Gemini CLI: a command hook per event in ``settings.json``."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: the version the real-agent tests run (tests/hosts/test_gemini.py)
PROVEN = "0.61.0"

#: every hook event Gemini CLI 0.61.0 fires (its ``HookEventName`` enum, bundle/chunk-*.js;
#: docs/hosts/protocols.md): all wired
EVENTS = (
    "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
)

#: canonical hook -> what Gemini CLI does with it (docs/hosts/gemini.md says why)
CAPABILITIES: dict[str, Cap] = {
    "on_start": Cap("SessionStart"),
    "session_start": Cap("SessionStart"),
    "on_end": Cap("SessionEnd", note="not awaited by Gemini"),
    "pre_message": Cap("BeforeAgent", block=True, rewrite=True, proven=PROVEN,
                       note="a rewritten prompt reaches the model as additionalContext"),
    "pre_system_prompt": Cap("BeforeAgent", rewrite=True, proven=PROVEN, note="as additionalContext, every turn"),
    "pre_tool": Cap("BeforeTool", block=True, rewrite=True, closed=True, proven=PROVEN,
                    note="tool_input replaces the arguments (revalidated); a hook timeout lets the tool run"),
    "pre_shell_exec": Cap("BeforeTool run_shell_command", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("BeforeTool write_file|replace", block=True, closed=True, proven=PROVEN),
    "pre_file_read": Cap("BeforeTool read_file|read_many_files|list_directory|glob|search", block=True,
                         closed=True, proven=PROVEN),
    "pre_fetch_url": Cap("BeforeTool web_fetch (URLs in the prompt)|google_web_search", block=True, closed=True,
                           proven=PROVEN),
    "post_tool": Cap("AfterTool"),
    "pre_tool_output": Cap("AfterTool", block=True, rewrite=True, proven=PROVEN,
                           note="the result is replaced by the reason (shown to the model as an error)"),
    "pre_api_request": Cap("BeforeModel", rewrite=True, proven=PROVEN, note="on Gemini's simplified llm_request"),
    "pre_api_tools": Cap("BeforeToolSelection", rewrite=True, proven=PROVEN,
                         note="an allowlist of built-in tools; Gemini unions all hooks' lists"),
    "pre_compact": Cap("PreCompress", note="advisory: Gemini sends it before every model call"),
    "agent_end": Cap("AfterAgent"),
    "stop_gate": Cap("AfterAgent", block=True, continues=True, proven=PROVEN,
                     note="continue = decision deny, the reason as a new prompt"),
    "host_event": Cap("AfterModel, Notification"),
}

HOST = Host(
    name="gemini",
    title="Gemini CLI",
    adapter="agent_hooks_core.bridges.gemini:ADAPTER",
    installer="agent_hooks_core.bridges.gemini.install",
    command="agent_hooks_core.bridges.gemini:main",
    executable="gemini",
    transport="command hook per event (settings.json)",
    transports=("command", "http", "socket"),
    config=Config("json", ("user", "project"),
                  "~/.gemini/settings.json, or .gemini/settings.json"),
    events=EVENTS,
    capabilities=CAPABILITIES,
    fires=EVENTS,
    failure="exit 2 with the reason on stderr blocks BeforeTool; other events go on",
    timeout=Timeout(60, closed=False, gated="BeforeTool"),
    docs="gemini.md",
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
