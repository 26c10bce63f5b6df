"""``agenthooks install HOST`` and ``agenthooks uninstall HOST``: wire agent-hooks into agent hosts.

Hosts so far: ``claude-code`` (``bridges/claude_code_install.py`` does the work; this module is
only the command line). The CLI app calls :func:`register`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import typer

from ..bridges import claude_code_install as cc

SCOPE_HELP = {
    "user": "~/.claude/settings.json: every project (the default)",
    "project": ".claude/settings.json: this project, usually committed",
    "local": ".claude/settings.local.json: this project, this machine only",
}


class CommandError(Exception):
    """Bad input or a file we must not touch: exit 2 with one line."""


def _scope(user: bool, project: bool, local: bool) -> str:
    chosen = [name for name, on in (("user", user), ("project", project), ("local", local)) if on]
    if len(chosen) > 1:
        raise CommandError(f"choose one of --user, --project, --local (got {', '.join('--' + c for c in chosen)})")
    return chosen[0] if chosen else "user"


def install_claude_code(scope: str = "user", project_dir: str | Path | None = None, dry_run: bool = False,
                        out: TextIO | None = None, ask: bool = False) -> int:
    """Merge our hook entries into Claude Code's ``scope`` settings file. Returns the exit code."""
    out = out or sys.stdout
    try:
        plan = cc.plan_install(scope, project_dir, ask=ask)
    except cc.InstallError as exc:
        raise CommandError(str(exc)) from None
    if dry_run:
        out.write(plan.diff() if plan.changed else f"{plan.path}: already wired, nothing to change\n")
        return 0
    if not plan.changed:
        out.write(f"Claude Code ({scope}) is already wired to agent-hooks: {plan.path}\n")
        return 0
    try:
        backup = plan.apply()
    except OSError as exc:
        raise CommandError(f"cannot write {plan.path}: {exc.strerror or exc}") from None
    command, prefix = cc.bridge_command()
    out.write(f"Wired agent-hooks into Claude Code ({scope}): {plan.path}\n")
    out.write(f"  command: {' '.join([command, *prefix, 'claude-code'])}\n")
    out.write(f"  events:  {', '.join(cc.EVENTS)}\n")
    if backup is not None:
        out.write(f"  backup:  {backup}\n")
    if scope == "project":
        out.write("  note: .claude/settings.json is usually committed, and the command is this machine's path;\n"
                  "        use --local to keep it out of version control.\n")
    return 0


def uninstall_claude_code(scope: str = "user", project_dir: str | Path | None = None, dry_run: bool = False,
                          out: TextIO | None = None) -> int:
    """Remove our hook entries from Claude Code's ``scope`` settings file. Returns the exit code."""
    out = out or sys.stdout
    try:
        plan = cc.plan_uninstall(scope, project_dir)
    except cc.InstallError as exc:
        raise CommandError(str(exc)) from None
    if dry_run:
        out.write(plan.diff() if plan.changed else f"{plan.path}: not wired, nothing to change\n")
        return 0
    if not plan.changed:
        out.write(f"Claude Code ({scope}) is not wired to agent-hooks: {plan.path}\n")
        return 0
    try:
        backup = plan.apply()
    except OSError as exc:
        raise CommandError(f"cannot write {plan.path}: {exc.strerror or exc}") from None
    out.write(f"Removed agent-hooks from Claude Code ({scope}): {plan.path}\n")
    if backup is not None:
        out.write(f"  backup:  {backup}\n")
    return 0


def _fail(exc: CommandError) -> typer.Exit:
    typer.echo(f"agenthooks: error: {exc}", err=True)
    return typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add ``install`` and ``uninstall`` (one sub-command per host) to the typer app."""
    install_app = typer.Typer(help="Wire agent-hooks into an agent host.", no_args_is_help=True)
    uninstall_app = typer.Typer(help="Remove agent-hooks from an agent host.", no_args_is_help=True)

    user_opt = typer.Option(False, "--user", help=SCOPE_HELP["user"])
    project_opt = typer.Option(False, "--project", help=SCOPE_HELP["project"])
    local_opt = typer.Option(False, "--local", help=SCOPE_HELP["local"])
    dir_opt = typer.Option(None, "--dir", help="the project directory (default: the current directory)",
                           file_okay=False)
    dry_opt = typer.Option(False, "--dry-run", help="print the change as a unified diff; write nothing")

    ask_opt = typer.Option(False, "--ask", help="plugins that ask the user when there is a UI (the guard) "
                           "make Claude Code ask, instead of denying")

    @install_app.command("claude-code")
    def install_cmd(user: bool = user_opt, project: bool = project_opt, local: bool = local_opt,
                    project_dir: Path | None = dir_opt, dry_run: bool = dry_opt, ask: bool = ask_opt) -> None:
        """Run every enabled plugin on Claude Code's hook events (merges into its settings file)."""
        try:
            code = install_claude_code(_scope(user, project, local), project_dir, dry_run, ask=ask)
        except CommandError as exc:
            raise _fail(exc) from None
        raise typer.Exit(code)

    @uninstall_app.command("claude-code")
    def uninstall_cmd(user: bool = user_opt, project: bool = project_opt, local: bool = local_opt,
                      project_dir: Path | None = dir_opt, dry_run: bool = dry_opt) -> None:
        """Remove agent-hooks' entries from Claude Code's settings file (other hooks stay)."""
        try:
            code = uninstall_claude_code(_scope(user, project, local), project_dir, dry_run)
        except CommandError as exc:
            raise _fail(exc) from None
        raise typer.Exit(code)

    from . import pi_hosts  # pi and omp (until this module is built from bridges.INSTALLERS)

    pi_hosts.register(install_app, uninstall_app)
    app.add_typer(install_app, name="install")
    app.add_typer(uninstall_app, name="uninstall")
