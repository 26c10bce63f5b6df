"""Mistral Vibe: a command hook per hook type in ``hooks.toml``, ``strict = true`` to fail closed."""

from __future__ import annotations

from ...hookspecs.markers import hookimpl
from ..record import Cap, Config, Host, Timeout

#: Vibe 3.0.2's hook types
EVENTS = ("pre_tool", "post_tool", "post_agent")

#: the version the real-binary tests (tests/hosts/test_vibe.py) prove
PROVEN = "3.0.2"

#: canonical hook -> what Mistral Vibe does with it (docs/hosts/vibe.md says why)
CAPABILITIES: dict[str, Cap] = {
    "pre_tool": Cap("pre_tool", block=True, rewrite=True, closed=True, proven=PROVEN,
                    note="closed through strict = true, which install writes; tool_input replaces the "
                         "arguments (revalidated)"),
    "pre_shell_exec": Cap("pre_tool bash", block=True, closed=True, proven=PROVEN),
    "pre_file_write": Cap("pre_tool write_file|edit", block=True, closed=True, proven=PROVEN),
    "pre_file_read": Cap("pre_tool read_file|grep", block=True, closed=True, proven=PROVEN),
    "pre_fetch_url": Cap("pre_tool web_fetch", block=True, closed=True),
    "post_tool": Cap("post_tool", note="only for tools that ran"),
    "pre_tool_output": Cap("post_tool", block=True, rewrite=True, closed=True, proven=PROVEN,
                           note="the text the model sees is replaced; a failure of ours withholds it (strict)"),
    "agent_end": Cap("post_agent"),
    "stop_gate": Cap("post_agent", block=True, continues=True, proven=PROVEN,
                     note="continue = decision deny, the reason as a retry message; Vibe caps it at 3 per turn"),
}

HOST = Host(
    name="vibe",
    title="Mistral Vibe",
    adapter="agent_hooks_core.bridges.vibe:ADAPTER",
    installer="agent_hooks_core.bridges.vibe.install",
    command="agent_hooks_core.bridges.vibe:main",
    executable="vibe",
    transport="command hook per hook type (hooks.toml, strict = true)",
    transports=("command", "http", "socket"),
    config=Config("toml", ("user", "project"), "~/.vibe/hooks.toml, or .vibe/hooks.toml (trusted folders only)"),
    events=EVENTS,
    fires=EVENTS,
    capabilities=CAPABILITIES,
    failure="a JSON deny and exit 2 block pre_tool (strict = true: any failure blocks); other hooks go on",
    timeout=Timeout(60, closed=True, gated="pre_tool", note="installed with strict = true"),
    docs="vibe.md",
    aliases=("mistral-vibe",),
)


@hookimpl
def register_hosts() -> list[Host]:
    return [HOST]
