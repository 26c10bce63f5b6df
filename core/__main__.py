"""``agenthooks`` entry point.

Host-facing commands that run once per agent event (``claude-code``, ``chibi``, and the quick
cases of ``serve``: ``serve start`` when running, ``serve --stdio``) are dispatched
here before typer, rich or pydantic are imported: they are a fresh process per event and their
start-up time is the hook's latency. Everything else goes to the typer app. A host's per-event
command is first offered to this user's warm server when one runs for the same environment
(``transports/relay.py``), before the host's record is read.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and sys.path:
    # `python -m agent_hooks_core` puts the working directory (an agent's project, untrusted) first
    # on sys.path: a tomllib.py or *.dist-info there must not be imported: the project is the agent's
    try:
        _cwd = os.path.realpath(os.getcwd())
    except OSError:
        _cwd = ""
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.realpath(p) != _cwd]

from .fastcommands import OWN_COMMANDS
from .fastcommands import fast_command as command_spec

#: fast commands the typer app has too: with global options before them, the typer app runs them
TYPER_TOO = ("serve",)


def fast_command(args: list[str]) -> tuple[str, list[str]] | None:
    """``[global options] FAST-COMMAND ...`` -> (command, its argv), or None for the typer app.

    ``--hook``/``--settings`` before the command become the command's own options and ``--trace``
    sets AGENT_HOOKS_TRACE; the other global options need the typer app, which says so.
    """
    moved: list[str] = []
    i = 0
    while i < len(args):
        name, eq, _ = args[i].partition("=")
        if name in ("--hook", "--settings") and (eq or i + 1 < len(args)):
            moved += args[i:i + (1 if eq else 2)]
            i += 1 if eq else 2
        elif args[i] == "--trace":
            i += 1
        elif command_spec(args[i]) is not None:
            if i and args[i] in TYPER_TOO:  # the typer command takes the global options itself
                return None
            if "--trace" in args[:i]:
                os.environ["AGENT_HOOKS_TRACE"] = "1"
            return args[i], [*moved, *args[i + 1:]]
        else:
            return None
    return None


def _relay(args: list[str]) -> int | None:
    """A host's per-event command answered by the warm server, before the host's record (and with
    it pluggy) is imported; None when this process answers (transports/relay.py)."""
    if not args or args[0].startswith("-") or args[0] in OWN_COMMANDS:
        return None
    from .transports.relay import relay

    return relay(args)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    relayed = _relay(args) if argv is None else None
    if relayed is not None:  # the warm server answered this event
        sys.exit(relayed)
    fast = fast_command(args)
    if args[:1] == ["serve"] and "--stdio" in args[1:]:  # one warm session over stdio (pi, omp, OpenCode)
        from .serve.stdio import main as stdio_main

        code = stdio_main([a for a in args[1:] if a != "--stdio"])
    elif fast is not None:
        module_name, _, func = str(command_spec(fast[0])).partition(":")
        import importlib

        code = getattr(importlib.import_module(module_name), func)(fast[1])
    else:
        from .cli.app import run

        code = run(args)
    if argv is None:
        sys.exit(code)
    return int(code or 0)


if __name__ == "__main__":
    main()
