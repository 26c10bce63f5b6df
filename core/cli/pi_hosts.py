"""``agenthooks install|uninstall pi`` and ``… omp``: the command lines over ``bridges.pi.install``.

Kept apart from ``hosts.py`` (Claude Code) until that module builds its sub-commands from
``bridges.INSTALLERS``; :func:`register` adds the two hosts to its install/uninstall apps.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ..bridges.pi import install as pi_install

SCOPE_HELP = {
    "user": "the agent's own extensions directory: every project (the default)",
    "project": "the project's extensions directory (.pi/ or .omp/): this project only",
}


def _scope(user: bool, project: bool) -> str:
    if user and project:
        raise pi_install.InstallError("choose one of --user, --project")
    return "project" if project else "user"


def _fail(exc: Exception) -> typer.Exit:
    typer.echo(f"agenthooks: error: {exc}", err=True)
    return typer.Exit(2)


def register(install_app: typer.Typer, uninstall_app: typer.Typer) -> None:
    user_opt = typer.Option(False, "--user", help=SCOPE_HELP["user"])
    project_opt = typer.Option(False, "--project", help=SCOPE_HELP["project"])
    dir_opt = typer.Option(None, "--dir", help="the project directory (default: the current directory)",
                           file_okay=False)
    dry_opt = typer.Option(False, "--dry-run", help="print the change; write nothing")

    def add(installer: pi_install.HostInstaller) -> None:  # a closure per host, not a `_inst=` option
        def install_cmd(user: bool = user_opt, project: bool = project_opt, project_dir: Path | None = dir_opt,
                        dry_run: bool = dry_opt) -> None:
            try:
                code = installer.install(_scope(user, project), project_dir, dry_run)
            except pi_install.InstallError as exc:
                raise _fail(exc) from None
            raise typer.Exit(code)

        def uninstall_cmd(user: bool = user_opt, project: bool = project_opt, project_dir: Path | None = dir_opt,
                          dry_run: bool = dry_opt) -> None:
            try:
                code = installer.uninstall(_scope(user, project), project_dir, dry_run)
            except pi_install.InstallError as exc:
                raise _fail(exc) from None
            raise typer.Exit(code)

        install_cmd.__doc__ = (f"Run every enabled plugin in {installer.label} (writes the agent-hooks extension "
                               "into its extensions directory).")
        uninstall_cmd.__doc__ = f"Remove the agent-hooks extension from {installer.label}."
        install_app.command(installer.host)(install_cmd)
        uninstall_app.command(installer.host)(uninstall_cmd)

    for installer in (pi_install.PI, pi_install.OMP):
        add(installer)
