"""``agenthooks install|uninstall codex|gemini|cursor|opencode``: command lines over each host's
installer module (``bridges.INSTALLERS``: ``install(scope, project_dir, dry_run, out, **options)``,
``uninstall(...)``). Kept apart from ``hosts.py`` until that module builds its sub-commands from
the registry; :func:`register` adds these hosts to its install/uninstall apps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

HOSTS = {
    "codex": ("Codex", "~/.codex/hooks.json (+ hook trust in ~/.codex/config.toml)", ".codex/hooks.json"),
    "gemini": ("Gemini CLI", "~/.gemini/settings.json", ".gemini/settings.json"),
    "cursor": ("Cursor", "~/.cursor/hooks.json", ".cursor/hooks.json"),
    "opencode": ("OpenCode", "~/.config/opencode/plugin/agent-hooks.ts", ".opencode/plugin/agent-hooks.ts"),
}


def _fail(message: str) -> typer.Exit:
    typer.echo(f"agenthooks: error: {message}", err=True)
    return typer.Exit(2)


def _scope(user: bool, project: bool) -> str:
    if user and project:
        raise _fail("choose one of --user, --project")
    return "project" if project else "user"


def _installer(host: str) -> Any:
    from ..bridges import INSTALLERS, load

    return load(INSTALLERS[host])


def _run(host: str, action: str, scope: str, project_dir: Path | None, dry_run: bool, **options: Any) -> None:
    from ..bridges.hostkit.jsonconfig import InstallError

    installer = _installer(host)
    try:
        if action == "install":
            code = installer.install(scope, project_dir, dry_run, **options)
        else:
            code = installer.uninstall(scope, project_dir, dry_run)
    except InstallError as exc:
        raise _fail(str(exc)) from None
    raise typer.Exit(code)


def register(install_app: typer.Typer, uninstall_app: typer.Typer) -> None:
    dir_opt = typer.Option(None, "--dir", help="the project directory (default: the current directory)",
                           file_okay=False)
    dry_opt = typer.Option(False, "--dry-run", help="print the change as a diff; write nothing")
    no_trust_opt = typer.Option(False, "--no-trust", help="do not record Codex's hook trust: review the hooks "
                                "in Codex's /hooks yourself (until then Codex skips them)")
    def commands(host: str, title: str, user_file: str, project_file: str) -> tuple[Any, Any]:
        # closures, not default arguments: typer would show those as options
        user_opt = typer.Option(False, "--user", help=f"{user_file}: every project (the default)")
        project_opt = typer.Option(False, "--project", help=f"{project_file}: this project only")

        if host == "codex":
            def install_codex(user: bool = user_opt, project: bool = project_opt, project_dir: Path | None = dir_opt,
                              dry_run: bool = dry_opt, no_trust: bool = no_trust_opt) -> None:
                _run("codex", "install", _scope(user, project), project_dir, dry_run, trust=not no_trust)

            install_cmd: Any = install_codex
        else:
            def install_other(user: bool = user_opt, project: bool = project_opt, project_dir: Path | None = dir_opt,
                              dry_run: bool = dry_opt) -> None:
                _run(host, "install", _scope(user, project), project_dir, dry_run)

            install_cmd = install_other

        def uninstall_cmd(user: bool = user_opt, project: bool = project_opt, project_dir: Path | None = dir_opt,
                          dry_run: bool = dry_opt) -> None:
            _run(host, "uninstall", _scope(user, project), project_dir, dry_run)

        install_cmd.__doc__ = f"Run every enabled plugin on {title}'s hooks (see docs/hosts/{host}.md)."
        uninstall_cmd.__doc__ = f"Remove agent-hooks from {title} (other hooks and settings stay)."
        return install_cmd, uninstall_cmd

    for host, (title, user_file, project_file) in HOSTS.items():
        install_cmd, uninstall_cmd = commands(host, title, user_file, project_file)
        install_app.command(host)(install_cmd)
        uninstall_app.command(host)(uninstall_cmd)
