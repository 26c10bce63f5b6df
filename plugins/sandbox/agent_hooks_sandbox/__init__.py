"""agent-hooks-sandbox: every shell command an agent runs, inside bubblewrap, confined to the project.

On ``pre_tool`` for a shell tool the command is rewritten to run inside ``bwrap``: the file
system read-only except the project (and the writable paths the settings add), credential
stores and agent-hooks' own control plane hidden, a private ``/tmp``, no network unless the
settings allow it, secret-named environment variables removed. The handler is ``trylast``, so
a plugin that blocks (the guard) wins, and the sandbox wraps what every other plugin allowed.

Off until enabled (``agenthooks plugins enable sandbox``). Settings: ``[plugins.sandbox]``
(see :class:`agent_hooks_sandbox.config.SandboxConfig`).
"""

from __future__ import annotations

from typing import Any

from agent_hooks_core import HookContext, HookEvent, hookimpl

#: a host that asks the user about every rewritten tool call (Claude Code) may allow ours without
#: asking: the command runs as written, only confined (Claude Code's own sandbox does the same)
CONFINES_ONLY = True

__all__ = ["CONFINES_ONLY", "doctor_findings", "plugin_config_model", "post_tool", "pre_tool", "pre_tool_output",
           "register_commands", "wrap"]


def _config(ctx: HookContext) -> dict[str, Any]:
    from .policy import resolve

    return resolve(ctx.config)


def wrap(config: dict[str, Any], tool_name: str, arguments: dict[str, Any], cwd: str,
         host: str | None = None) -> dict[str, Any] | None:
    """The ``pre_tool`` answer for one tool call: new arguments, a block, or None (not a shell tool).

    ``host``: the agent it comes from; one whose hooks cannot rewrite a tool's input would run the
    command as written, so that counts as no sandbox at all (denied unless ``fallback``)."""
    from . import defaults as d
    from .policy import build, find_program, remember
    from .probe import check

    name = tool_name.lower()
    powershell = name in d.POWERSHELL_TOOLS
    if not powershell and name not in {t.lower() for t in config["shell_tools"]}:
        return None
    key = next((k for k in d.COMMAND_KEYS if k in arguments), None)
    command = arguments.get(key) if key else None
    if command is None:
        return None  # nothing to run
    why: str | None
    if powershell:
        why = "PowerShell commands cannot be wrapped in bubblewrap"
    elif not isinstance(command, (str, list)) or (isinstance(command, list) and not command):
        return {"block": True, "reason": f"sandbox: the {tool_name} command is neither text nor a list of words"}
    elif host is not None and _cannot_rewrite(host):
        why = f"{host} cannot rewrite a tool's input, so its shell commands cannot be sandboxed"
    else:
        program = find_program(str(config["bwrap"]))
        why, isolation = check(program)
        if why is None:
            plan = build(config, cwd, command if isinstance(command, str) else [str(c) for c in command],
                         bwrap=program, isolation=isolation)
            if plan.refused is not None:  # not a missing sandbox: a fallback does not apply
                return {"block": True, "reason": f"sandbox: {plan.refused}; the command was not run"}
            remember(plan)
            new = plan.command_line() if isinstance(command, str) else list(plan.argv)
            return {"arguments": {**arguments, key: new}}
    if config["fallback"] == "unsandboxed":
        return {"warning": f"sandbox: {why}; the command runs UNSANDBOXED (fallback = \"unsandboxed\")"}
    return {"block": True, "reason": f"sandbox: {why}; the command was not run "
                                     "(or set [plugins.sandbox] fallback = \"unsandboxed\")"}


def _cannot_rewrite(host: str) -> bool:
    from agent_hooks_core.bridges import registry
    from agent_hooks_core.bridges.capabilities import sandbox

    return registry.find(host) is not None and not sandbox(host)[0]


@hookimpl(trylast=True)
def pre_tool(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    from .policy import tidy

    tidy()  # what an earlier command's post_tool could not remove (a host without one, or one ran)
    given = event.get("cwd")
    cwd = given if isinstance(given, str) and given else ctx.cwd
    answer = wrap(_config(ctx), event.tool_name or "", dict(event.arguments or {}), cwd, ctx.host)
    if answer is not None and "warning" in answer:
        ctx.ui.notify(answer["warning"], "warning")
        return None
    return answer


def _after(event: HookEvent, ctx: HookContext) -> None:
    from .policy import tidy

    if (event.tool_name or "").lower() in {t.lower() for t in _config(ctx)["shell_tools"]}:
        tidy()


@hookimpl
def post_tool(event: HookEvent, ctx: HookContext) -> None:
    """After a shell command: remove the empty mount points its sandbox made in the project, unless
    another sandboxed command still runs (its own post_tool, or the next pre_tool, does then)."""
    _after(event, ctx)


@hookimpl
def pre_tool_output(event: HookEvent, ctx: HookContext) -> None:
    """The same, in a host whose only hook after a tool is this one (oh-my-pi's ``tool_result``);
    the output is left as it is."""
    _after(event, ctx)


def doctor_findings(config: Any, hosts: list[str]) -> list[tuple[str, str]]:
    """(level, message) lines for ``agenthooks doctor``: is bubblewrap usable, can each host rewrite."""
    from .policy import find_program, resolve
    from .probe import unavailable

    conf = resolve(config)
    out: list[tuple[str, str]] = []
    program = find_program(str(conf["bwrap"]))
    why = unavailable(program, fresh=True)
    if why is None:
        out.append(("ok", f"sandbox: bubblewrap works ({program}); network {conf['network']}"))
    elif conf["fallback"] == "unsandboxed":
        out.append(("warning", f"sandbox: {why}; shell commands run UNSANDBOXED (fallback = \"unsandboxed\")"))
    else:
        out.append(("error", f"sandbox: {why}; every shell command is denied until it is fixed"))
    from agent_hooks_core.bridges.capabilities import sandbox

    for host in hosts:
        able, why = sandbox(host)
        if not able:
            then = ("run UNSANDBOXED (fallback = \"unsandboxed\")" if conf["fallback"] == "unsandboxed"
                    else "are denied")
            out.append(("warning", f"sandbox: {host} is wired but {why}: its shell commands {then}"))
    return out


@hookimpl
def plugin_config_model() -> Any:
    from .config import SandboxConfig

    return SandboxConfig


@hookimpl
def register_commands(cli: Any) -> None:
    from .cli import make_app

    cli.add_typer(make_app(), name="sandbox")
