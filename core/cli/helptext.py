"""What every command's ``--help`` ends with: examples and exit codes; and flags shown as flags.

:func:`finish` walks the click command tree typer built (plugins' commands included) once, before
it runs: a command listed in :data:`EPILOGS` gets its examples and exit codes, any other one the
common exit codes. docs/cli.md is generated from the same tree (``docgen_cli.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import click

P = TypeVar("P", bound="click.Parameter")

#: the exit codes every command shares
COMMON_CODES = "0 success · 1 internal error (one line; --trace shows the traceback) · 2 bad input"

#: command path (as typed after `agenthooks`) -> (examples, exit codes)
EPILOGS: dict[str, tuple[list[str], str]] = {
    "": ([
        "agenthooks plugins list",
        "agenthooks plugins install agent-hooks-guard    # like `llm install`",
        "agenthooks fire pre_tool -d @payload.json",
        "agenthooks -p no:audit replay session.jsonl     # audit off, this run",
        "agenthooks --trace claude-code < event.json",
    ], "0 success · 1 a problem found (doctor, replay --expect) or an internal error · 2 bad input "
       "· 3 fire: blocked or denied"),
    "fire": ([
        "agenthooks fire pre_tool -d '{\"tool_name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}'",
        "agenthooks fire pre_tool --outcome < payload.json",
        "agenthooks fire tool_call --dialect pi -d @pi-payload.json",
        "agenthooks fire pre_tool -d @payload.json || echo \"exit $?\"",
    ], "0 allowed, modified or observed · 3 blocked or denied (the result is still printed) "
       "· 2 bad input · 1 internal error"),
    "hooks": ([
        "agenthooks hooks",
        "agenthooks hooks pre_tool",
        "agenthooks hooks tool_call --system pi-ext",
        "agenthooks hooks pre_tool --schema",
    ], COMMON_CODES),
    "doctor": (["agenthooks doctor", "agenthooks doctor --json"],
               "0 nothing broken (warnings allowed) · 1 an error was found · 2 bad input"),
    "trust": (["agenthooks trust", "agenthooks trust --show", "agenthooks trust --revoke ~/src/project"],
              COMMON_CODES),
    "new-plugin": ([
        "agenthooks new-plugin no-force-push",
        "agenthooks new-plugin no-force-push --dir ~/src --description 'No force-push to main'",
    ], COMMON_CODES),
    "replay": ([
        "agenthooks replay examples/sessions/coding-session.jsonl",
        "agenthooks replay session.jsonl --write-expect golden.jsonl",
        "agenthooks replay session.jsonl --expect golden.jsonl   # in CI",
    ], "0 replayed · 1 decisions differ from --expect · 2 bad input (a missing file, malformed lines) "
       "· 1 internal error"),
    "chibi": (["CHIBI_HOOK=pre_tool agenthooks chibi < payload.json", "agenthooks chibi --schema"],
              "0 answered (a chibi answer is always printed) · 2 bad arguments outside chibi"),
    "plugins": (["agenthooks plugins list", "agenthooks plugins install agent-hooks-guard",
                 "agenthooks plugins disable audit"], COMMON_CODES),
    "plugins list": (["agenthooks plugins list", "agenthooks plugins list --json"], COMMON_CODES),
    "plugins info": (["agenthooks plugins info guard", "agenthooks plugins info agent-hooks-guard --json"],
                     COMMON_CODES),
    "plugins enable": (["agenthooks plugins enable audit", "agenthooks plugins enable audit --project"],
                       COMMON_CODES),
    "plugins disable": (["agenthooks plugins disable audit", "agenthooks plugins disable audit --project"],
                        COMMON_CODES),
    "plugins install": ([
        "agenthooks plugins install agent-hooks-guard",
        "agenthooks plugins install -U -e ./agent-hooks-my-plugin",
    ], "pip's exit code (0 installed) · 2 bad input"),
    "plugins uninstall": (["agenthooks plugins uninstall audit"], "pip's exit code (0 uninstalled) · 2 bad input"),
    "install": ([
        "agenthooks install claude-code",
        "agenthooks install claude-code --project --dry-run",
        "agenthooks plugins install agent-hooks-guard  # a plugin, not a host",
    ], COMMON_CODES),
    "install claude-code": ([
        "agenthooks install claude-code          # ~/.claude/settings.json",
        "agenthooks install claude-code --local --dry-run",
    ], COMMON_CODES),
    "uninstall": (["agenthooks uninstall claude-code",
                   "agenthooks plugins uninstall audit   # a plugin, not a host"], COMMON_CODES),
    "uninstall claude-code": (["agenthooks uninstall claude-code --project"], COMMON_CODES),
    "install pi": (["agenthooks install pi", "agenthooks install pi --project --dry-run"], COMMON_CODES),
    "install omp": (["agenthooks install omp", "agenthooks install omp --project --dry-run"], COMMON_CODES),
    "uninstall pi": (["agenthooks uninstall pi"], COMMON_CODES),
    "uninstall omp": (["agenthooks uninstall omp"], COMMON_CODES),
    "hosts": (["agenthooks hosts", "agenthooks hosts --json"], COMMON_CODES),
    "serve": (["agenthooks serve start", "agenthooks serve status", "agenthooks serve stop"], COMMON_CODES),
    "serve start": (["agenthooks serve start", "agenthooks serve start --no-http --quiet"], COMMON_CODES),
    "serve run": (["agenthooks serve run"], COMMON_CODES),
    "serve status": (["agenthooks serve status"], "0 running · 1 not running · 2 bad input"),
    "serve stop": (["agenthooks serve stop"], COMMON_CODES),
    # agent-hooks-audit's commands (a plugin's: used when it is installed)
    "audit": (["agenthooks audit tail", "agenthooks audit stats --session last"], COMMON_CODES),
    "audit tail": (["agenthooks audit tail", "agenthooks audit tail -n 50 --no-follow --decision blocked"],
                   COMMON_CODES),
    "audit search": (["agenthooks audit search --session last", "agenthooks audit search --hook pre_tool --since 2h"],
                     COMMON_CODES),
    "audit stats": (["agenthooks audit stats", "agenthooks audit stats --session last --json"], COMMON_CODES),
    "audit export": (["agenthooks audit export -o audit.jsonl", "agenthooks audit export --format csv --since 7d"],
                     COMMON_CODES),
    "audit path": (["agenthooks audit path"], COMMON_CODES),
}


def epilog(path: str) -> str:
    """The text after a command's options: examples (if any) and exit codes."""
    from rich.markup import escape

    examples, codes = EPILOGS.get(path, ([], COMMON_CODES))
    parts = []
    if examples:
        parts.append("Examples:\n" + "\n".join(f"  {escape(e)}" for e in examples))
    parts.append(f"Exit codes: {escape(codes)}")
    return "\n\n".join(parts)


def walk(command: click.Command, path: str = "") -> Iterator[tuple[str, click.Command]]:
    """Yield (path, click command) for ``command`` and every sub-command, depth first."""
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from walk(sub, f"{path} {name}".strip())


def finish(root: click.Command) -> None:
    """Epilogs on every command; flags without a ``<bool>`` type, arguments named in capitals."""
    for path, command in walk(root):
        if not command.epilog:
            command.epilog = epilog(path)
        for param in command.params:
            _flag_or_argument(param)
        command.get_help_option = _help_option_of(command.get_help_option)


def _flag_or_argument(param: P) -> P:
    if getattr(param, "is_flag", False) and param.metavar is None:
        param.metavar = ""  # rendered as `--trace`, not `--trace <bool>`
    elif param.param_type_name == "argument" and param.metavar is None and param.name:
        param.metavar = param.name.upper().rstrip("_")
    return param


def _help_option_of(get: Callable[[click.Context], click.Option | None]) -> Callable[[click.Context], click.Option | None]:
    """``--help`` is made when help is asked for: a flag too."""

    def get_help_option(ctx: click.Context) -> click.Option | None:
        option = get(ctx)
        return _flag_or_argument(option) if option is not None else None

    return get_help_option
