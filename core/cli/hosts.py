"""``agenthooks install HOST`` and ``agenthooks uninstall HOST``: wire agent-hooks into agent hosts.

One sub-command per registered host (:mod:`agent_hooks_core.bridges.registry`). Each
installer (its record's ``installer``) provides ``install(scope, project_dir, dry_run, out, **options) -> int``,
``uninstall(scope, project_dir, dry_run, out) -> int`` (the scopes, the first the default, are the record's
``config.scopes``) and
may declare host options in ``OPTIONS`` (name -> ``{"flag", "help", "default", "choices"?}``);
``install`` raises its ``InstallError`` for what the user must fix. The CLI app calls :func:`register`.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import typer

from ..bridges import registry

SCOPE_HELP = {
    "user": "the user's settings: every project",
    "project": "this project's settings, usually committed",
    "local": "this project's private settings (this machine only)",
}


class CommandError(Exception):
    """Bad input or a file we must not touch: exit 2 with one line."""


def _scope(chosen_flags: dict[str, bool], scopes: tuple[str, ...]) -> str:
    chosen = [name for name in scopes if chosen_flags.get(name)]
    if len(chosen) > 1:
        raise CommandError(f"choose one of {', '.join('--' + s for s in scopes)}")
    return chosen[0] if chosen else scopes[0]


def _installer(host: str) -> Any:
    return registry.installer(host)


def _install_error(installer: object) -> type[Exception]:
    """The installer's ``InstallError`` (a module, or an object whose module defines it)."""
    module = installer if inspect.ismodule(installer) else sys.modules.get(type(installer).__module__)
    error = getattr(installer, "InstallError", None) or getattr(module, "InstallError", None)
    return error if isinstance(error, type) and issubclass(error, Exception) else CommandError


def _run(func: Callable[..., int], installer: object, *args: object, **kwargs: object) -> int:
    try:
        return int(func(*args, **kwargs))
    except _install_error(installer) as exc:
        raise CommandError(str(exc)) from None


def install_host(host: str, scope: str | None = None, project_dir: str | Path | None = None, dry_run: bool = False,
                 out: TextIO | None = None, **options: object) -> int:
    inst = _installer(host)
    return _run(inst.install, inst, scope or registry.get(host).config.scopes[0], project_dir, dry_run, out, **options)


def uninstall_host(host: str, scope: str | None = None, project_dir: str | Path | None = None, dry_run: bool = False,
                   out: TextIO | None = None) -> int:
    inst = _installer(host)
    return _run(inst.uninstall, inst, scope or registry.get(host).config.scopes[0], project_dir, dry_run, out)


def install_claude_code(scope: str = "user", project_dir: str | Path | None = None, dry_run: bool = False,
                        out: TextIO | None = None, ask: bool = False, transport: str = "command") -> int:
    """Merge our hook entries into Claude Code's ``scope`` settings file. Returns the exit code."""
    return install_host("claude-code", scope, project_dir, dry_run, out, ask=ask, transport=transport)


def uninstall_claude_code(scope: str = "user", project_dir: str | Path | None = None, dry_run: bool = False,
                          out: TextIO | None = None) -> int:
    """Remove our hook entries from Claude Code's ``scope`` settings file. Returns the exit code."""
    return uninstall_host("claude-code", scope, project_dir, dry_run, out)


class _Output:
    """What an installer prints, made fit for a terminal: a dry run's diff with the warm server's
    token hidden (a diff is shown, pasted, logged), any other line wrapped at spaces to the width
    with continuation lines indented (``tables.indented``). Diff lines are file content: never wrapped."""

    def __init__(self, stream: TextIO, dry_run: bool) -> None:
        self.stream = stream
        self.dry_run = dry_run
        self.pending = ""

    def write(self, text: str) -> int:
        if self.dry_run:
            from ..serve.paths import token

            secret = token(create=False)
            if secret:
                text = text.replace(secret, "<hidden: the warm server's token>")
            return self.stream.write(text)
        from .common import width
        from .tables import indented

        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            for piece in indented(line, width()):
                self.stream.write(piece.plain + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.write("\n")
        self.stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def _fail(exc: CommandError) -> typer.Exit:
    typer.echo(f"agenthooks: error: {exc}", err=True)
    return typer.Exit(2)


def _params(scopes: tuple[str, ...], options: dict[str, dict[str, object]], with_options: bool,
            scope_help: dict[str, str] | None = None) -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    helps = {**SCOPE_HELP, **(scope_help or {})}  # an installer may say what its scopes write
    params = [inspect.Parameter(f"scope_{s}", kw, annotation=bool, default=typer.Option(
        False, f"--{s}", help=helps.get(s, s) + (" (the default)" if s == scopes[0] else "")))
        for s in scopes]
    params.append(inspect.Parameter("project_dir", kw, annotation=Path | None, default=typer.Option(
        None, "--dir", help="the project directory (default: the current directory)", file_okay=False)))
    params.append(inspect.Parameter("dry_run", kw, annotation=bool, default=typer.Option(
        False, "--dry-run", help="print the change as a unified diff; write nothing")))
    if with_options:
        for name, spec in options.items():
            default = spec.get("default")
            help_text = str(spec.get("help", ""))
            choices = _choices(spec)
            if choices:
                help_text += f" ({'|'.join(choices)}; default {default})"
            params.append(inspect.Parameter(name, kw, annotation=type(default) if default is not None else str,
                                            default=typer.Option(default, str(spec["flag"]), help=help_text)))
    return params


def _choices(spec: dict[str, object]) -> list[str]:
    """The values a host option accepts (empty: any)."""
    choices = spec.get("choices")
    return [str(c) for c in choices] if isinstance(choices, (list, tuple, set, frozenset)) else []


def _command(host: str, install: bool) -> Callable[..., None]:
    inst = _installer(host)
    scopes = registry.get(host).config.scopes
    options: dict[str, dict[str, object]] = dict(getattr(inst, "OPTIONS", {})) if install else {}

    def command(**kwargs: Any) -> None:
        try:
            scope = _scope({s: kwargs.pop(f"scope_{s}") for s in scopes}, scopes)
            project_dir, dry_run = kwargs.pop("project_dir"), kwargs.pop("dry_run")
            if project_dir is not None and not project_dir.is_dir():  # never create a project tree by mistake
                raise CommandError(f"--dir {project_dir}: no such directory")
            for name, value in kwargs.items():
                choices = _choices(options[name])
                if choices and value not in choices:
                    raise CommandError(f"{options[name]['flag']} must be one of {', '.join(choices)}, not {value!r}")
            out = _Output(sys.stdout, dry_run)
            try:
                code = (install_host(host, scope, project_dir, dry_run, out, **kwargs) if install  # type: ignore[arg-type]
                        else uninstall_host(host, scope, project_dir, dry_run, out))  # type: ignore[arg-type]
            finally:
                out.flush()
        except CommandError as exc:
            raise _fail(exc) from None
        raise typer.Exit(code)

    title = registry.get(host).title
    command.__doc__ = (getattr(inst, "INSTALL_HELP", None) if install else getattr(inst, "UNINSTALL_HELP", None)) or (
        f"Run every enabled plugin on {title}'s hook events." if install
        else f"Remove agent-hooks' entries from {title}'s configuration (other hooks stay).")
    command.__signature__ = inspect.Signature(_params(scopes, options, install, getattr(inst, "SCOPE_HELP", None)))  # type: ignore[attr-defined]
    command.__name__ = f"{'install' if install else 'uninstall'}_{host.replace('-', '_')}"
    return command


def register(app: typer.Typer) -> None:
    """Add ``install`` and ``uninstall`` (one sub-command per registered host) to the typer app."""
    install_app = typer.Typer(help="Wire agent-hooks into an agent host.", no_args_is_help=True)
    uninstall_app = typer.Typer(help="Remove agent-hooks from an agent host.", no_args_is_help=True)
    for record in registry.hosts():
        host = record.name
        try:
            for name in record.names:  # aliases work, hidden from --help
                install_app.command(name, hidden=name != host)(_command(host, True))
                uninstall_app.command(name, hidden=name != host)(_command(host, False))
        except Exception as exc:  # one broken installer must not take the others down
            typer.echo(f"agenthooks: warning: the {host!r} installer is unavailable: {type(exc).__name__}: {exc}",
                       err=True)
    app.add_typer(install_app, name="install")
    app.add_typer(uninstall_app, name="uninstall")
