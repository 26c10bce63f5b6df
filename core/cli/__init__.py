"""The ``agenthooks`` command line, and the small API a plugin's own commands use.

A plugin adds commands through its ``register_commands(cli)`` hook; those commands reach the CLI
only through the names below (the rest of this package is internal and changes freely)::

    from agent_hooks_core import cli

    cli.fail("--since: not a time")        # bad input: one line on stderr, exit 2 (raises CLIError)
    out = cli.console()                    # a rich Console sized for the terminal or a pipe
    cli.say(out, f"[bold]{cli.esc(name)}[/]")
    cli.print_table([cli.Column("plugin"), cli.Column("calls", right=True)], rows)
    cli.options(ctx).cwd                   # the global options: --settings, --hook, the directory

The names are loaded on first use: importing this package costs nothing on a hook's start-up path.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    from .common import (
        EXIT_BLOCKED,
        CLIError,
        GlobalOptions,
        console,
        echo_json,
        esc,
        fail,
        print_table,
        say,
        warn,
    )
    from .tables import Column

__all__ = ["EXIT_BLOCKED", "CLIError", "Column", "GlobalOptions", "console", "echo_json", "esc", "fail",
           "options", "print_table", "say", "warn"]

_FROM = {name: "common" for name in __all__} | {"Column": "tables"}
del _FROM["options"]


def options(ctx: typer.Context | None = None) -> GlobalOptions:
    """The global options of this invocation (the root command's), or the defaults outside one."""
    from . import common

    root = ctx.find_root().obj if ctx is not None else None
    return root if isinstance(root, common.GlobalOptions) else common.OPTIONS


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
