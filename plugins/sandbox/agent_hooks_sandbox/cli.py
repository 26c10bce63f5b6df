"""``agenthooks sandbox explain|test``: the exact sandbox a command gets, and a self-check.

The policy is the one the hook uses: ``[plugins.sandbox]`` from the current settings (user,
trusted project, organisation), for the current directory.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from .policy import Plan, build, find_program, resolve
from .probe import unavailable


def _fail(message: str) -> Any:
    from agent_hooks_core.cli import fail

    return fail(message)


def _options(ctx: typer.Context) -> Any:
    from agent_hooks_core.cli import options

    return options(ctx)


def current_config(ctx: typer.Context) -> tuple[dict[str, Any], str, list[str]]:
    """(the sandbox settings in effect, the working directory, where they come from)."""
    from agent_hooks_core import Runtime
    from agent_hooks_core.discovery import plan_of

    opts = _options(ctx)
    cwd = getattr(opts, "cwd", None) or str(Path.cwd())
    rt = Runtime.from_settings(cwd=cwd, settings_path=getattr(opts, "settings_path", None),
                               hook_paths=getattr(opts, "hook_paths", ()))
    the_plan = plan_of(rt)
    origins: list[str] = []
    section: Any = None
    if the_plan is not None:
        section, origins = the_plan.settings.plugin_section(["sandbox", "agent-hooks-sandbox"])
    if "sandbox" in rt.plugins:
        section = rt.context("sandbox").config
    try:
        return resolve(section), cwd, origins
    except Exception as exc:
        _fail(f"the sandbox's settings are invalid: {' '.join(str(exc).split())}")
        raise


def _describe(plan: Plan, origins: list[str]) -> list[str]:
    lines = ["policy:", f"  from:      {', '.join(origins) if origins else 'the defaults'}",
             f"  project:   {plan.project}",
             f"  writable:  {', '.join(plan.writable) or '(nothing)'} and a private /tmp",
             f"  read-only: everything else{'; ' + ', '.join(plan.read_only) + ' inside it' if plan.read_only else ''}",
             f"  hidden:    {', '.join(plan.hidden) or '(nothing that exists here)'}",
             f"  network:   {plan.network}" + (f" (exception {plan.exception!r})" if plan.exception else ""),
             f"  env unset: {', '.join(plan.unset_env)}"]
    lines += [f"  note:      {n}" for n in plan.notes]
    return lines


def make_app() -> typer.Typer:
    app = typer.Typer(help="The sandbox: what a command runs in, and a self-check (agent-hooks-sandbox).",
                      no_args_is_help=True, add_completion=False)

    @app.command("explain")
    def explain_cmd(ctx: typer.Context,
                    command: Annotated[list[str], typer.Argument(help="The shell command (quote it, or put it "
                                                                      "after --).")],
                    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
        """Print the exact bubblewrap command line COMMAND would run as, and the policy behind it."""
        config, cwd, origins = current_config(ctx)
        text = " ".join(command)
        if not text.strip():
            _fail("explain: give a command, e.g. agenthooks sandbox explain 'make test'")
        program = find_program(str(config["bwrap"]))
        plan = build(config, cwd, text, bwrap=program)
        why = unavailable(program)
        if as_json:
            typer.echo(json.dumps({**plan.to_dict(), "available": why is None, "unavailable_reason": why,
                                   "fallback": config["fallback"], "from": origins}, indent=2))
            return
        typer.echo("runs as:")
        typer.echo("  " + plan.command_line())
        typer.echo("")
        for line in _describe(plan, origins):
            typer.echo(line)
        if why is not None:
            action = "runs UNSANDBOXED" if config["fallback"] == "unsandboxed" else "is denied"
            typer.echo(f"\nwarning: {why}: on this machine the command {action}")

    @app.command("test")
    def test_cmd(ctx: typer.Context) -> None:
        """Self-check here: a write outside the project fails, hidden files are empty, the project is writable."""
        config, cwd, _origins = current_config(ctx)
        program = find_program(str(config["bwrap"]))
        why = unavailable(program, fresh=True)
        if why is not None:
            typer.echo(f"FAIL  {why}")
            raise typer.Exit(1)
        results = self_check(config, cwd, program)
        for ok, text in results:
            typer.echo(f"{'ok  ' if ok else 'FAIL'}  {text}")
        raise typer.Exit(0 if all(ok for ok, _ in results) else 1)

    return app


def _run(config: dict[str, Any], cwd: str, command: str, program: str | None) -> subprocess.CompletedProcess[str]:
    plan = build(config, cwd, command, bwrap=program)
    return subprocess.run(plan.command_line(), shell=True, cwd=cwd, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def self_check(config: dict[str, Any], cwd: str, program: str | None) -> list[tuple[bool, str]]:
    """Run real commands in the sandbox from ``cwd``; (passed, what) for each check."""
    results: list[tuple[bool, str]] = []
    plan = build(config, cwd, "true", bwrap=program)
    project = plan.project
    if not plan.writable or project not in plan.writable:
        results.append((False, f"the project {project} is not writable in the sandbox: {'; '.join(plan.notes)}"))
    else:
        probe = os.path.join(project, f".agent-hooks-sandbox-probe-{os.getpid()}")
        res = _run(config, cwd, f"echo ok > {shlex.quote(probe)}", program)
        made = os.path.exists(probe)
        if made:
            os.unlink(probe)
        results.append((made, f"the project is writable ({project})" if made else
                        f"could not write in the project {project}: {res.stderr.strip()[:200]}"))
    outside = tempfile.mkdtemp(prefix="agent-hooks-sandbox-outside-", dir=os.path.expanduser("~")
                               if os.access(os.path.expanduser("~"), os.W_OK) else None)
    try:
        target = os.path.join(outside, "written")
        res = _run(config, cwd, f"echo x > {shlex.quote(target)}; rmdir {shlex.quote(outside)}", program)
        unchanged = not os.path.exists(target) and os.path.isdir(outside)
        said = res.stderr.strip().splitlines()[:1]
        results.append((unchanged, f"a write outside the project changes nothing ({outside}"
                                   + (f": {said[0]}" if said else "") + ")" if unchanged else
                        f"a write outside the project went through: {target}"))
    finally:
        for p in (os.path.join(outside, "written"),):
            if os.path.exists(p):
                os.unlink(p)
        if os.path.isdir(outside):
            os.rmdir(outside)
    shown = 0
    for path in plan.hidden:
        check = f"ls -A {shlex.quote(path)}" if os.path.isdir(path) else f"cat {shlex.quote(path)}"
        res = _run(config, cwd, check, program)
        empty = res.stdout.strip() == ""
        if not empty or shown < 3:
            results.append((empty, f"hidden: {path} shows nothing in the sandbox" if empty else
                            f"hidden path {path} is visible in the sandbox"))
            shown += 1
    if shown < len(plan.hidden):
        results.append((True, f"... and {len(plan.hidden) - shown} more hidden paths show nothing"))
    if not plan.hidden:
        results.append((True, "no hidden path exists on this machine (nothing to hide)"))
    if plan.network == "off":
        res = _run(config, cwd, "cat /proc/net/dev", program)
        only_lo = all(line.split(":")[0].strip() in ("lo", "") for line in res.stdout.splitlines()[2:])
        results.append((only_lo, "no network: only the loopback interface" if only_lo else
                        "the sandbox has a network interface besides loopback"))
    return results
