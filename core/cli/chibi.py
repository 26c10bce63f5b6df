"""``agenthooks chibi`` in the typer app: agent-hooks as one chibi plugin executable.

``agenthooks chibi ...`` is dispatched by ``__main__`` straight to
:func:`agent_hooks_core.dialects.chibi_exec.main` (no typer on a hook call). This command is the
path when global options come first (``agenthooks --hook x.py chibi --schema``), and it puts
``chibi`` in ``agenthooks --help``. It hands everything to the same function: the global
``--hook``/``--settings`` become its own options.
"""

from __future__ import annotations

from typing import Any

import typer

from . import common


def register(app: Any) -> None:
    """Add ``chibi`` to the typer app."""

    @app.command(
        "chibi",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,  # --help goes to chibi_exec, which prints the chibi usage
    )
    def chibi_cmd(ctx: typer.Context) -> None:
        """Act as a chibi plugin executable: --schema, or answer the hook named by CHIBI_HOOK."""
        from ..dialects import chibi_exec

        opts = common.OPTIONS
        if opts.chibi_plugins is not None:
            # chibi runs its own plugin directory; running it from here would run each plugin twice
            common.warn("--chibi-plugins is ignored by `agenthooks chibi` (chibi runs those plugins itself)")
        argv: list[str] = []
        for path in opts.hook_paths:
            argv += ["--hook", path]
        if opts.settings_path is not None:
            argv += ["--settings", opts.settings_path]
        raise typer.Exit(chibi_exec.main([*argv, *ctx.args]))
