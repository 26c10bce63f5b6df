"""The ``agenthooks`` command line (typer + rich).

``run(argv)`` is the entry point (``__main__`` dispatches the per-event host commands before
this module is imported). It

1. takes the global options (``--hook``, ``--settings``, ``--chibi-plugins``, ``--trace``) out of
   argv: before the command, and anywhere in the built-in commands' arguments;
2. builds the typer app: the built-in commands, the commands of ``replay.py``, ``chibi.py`` and
   ``hosts.py`` (their ``register(app)``), and, only when the command is not a built-in one (or for
   the top-level help), the plugins' commands through the ``register_commands(cli)`` hook;
3. runs it, turning every error into one line on stderr: bad input exits 2, never a traceback
   (``--trace`` adds the traceback of an internal error).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .. import __version__
from ..errors import AgentHooksError, HookError
from . import common
from .common import CLIError, GlobalOptions, echo_json, fail

#: global options that take a value, and flags
VALUE_OPTIONS = ("--hook", "--settings", "--chibi-plugins", "-p")
FLAG_OPTIONS = ("--trace",)
#: commands defined here: global options are recognised anywhere in their arguments
BUILTIN_COMMANDS = ("plugins", "hooks", "fire", "doctor", "trust", "new-plugin")
#: commands of the other CLI modules (plugins cannot take these names)
MODULE_COMMANDS = ("replay", "install", "uninstall", "chibi", "serve")
DIALECTS = ("canonical", "chibi", "pi", "omp")  # for the help text; dialects.DIALECTS decides

HELP = """Plugins for AI coding-agent lifecycle hooks.

Install plugins with `agenthooks plugins install NAME`, switch them on and off with `agenthooks plugins enable|disable NAME`, and try them with `agenthooks fire HOOK`."""


def preparse(argv: list[str]) -> tuple[GlobalOptions, list[str]]:
    """Split the global options from the rest of argv (``--`` ends option processing)."""
    opts = GlobalOptions()
    rest: list[str] = []
    command: str | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        anywhere = command is None or command in BUILTIN_COMMANDS
        name, eq, value = arg.partition("=")
        if anywhere and arg.startswith("-p") and len(arg) > 2 and not arg.startswith("-p="):
            name, eq, value = "-p", "=", arg[2:]  # -pno:NAME, as pytest takes it
        if anywhere and name in VALUE_OPTIONS:
            if not eq:
                if i + 1 >= len(argv):
                    fail(f"{name} needs a value")
                value = argv[i + 1]
                i += 1
            if name == "--hook":
                opts.hook_paths.append(value)
            elif name == "-p":
                opts.disabled.append(_plugin_switch(value))
            elif name == "--settings":
                opts.settings_path = value
            else:
                opts.chibi_plugins = value
        elif anywhere and arg in FLAG_OPTIONS:
            opts.trace = True
        else:
            if command is None and not arg.startswith("-"):
                command = arg
            rest.append(arg)
        i += 1
    return opts, rest


def _plugin_switch(value: str) -> str:
    """``-p no:NAME`` -> NAME (``-p NAME`` is pytest's "load early", which has no meaning here)."""
    prefix, _, name = value.partition(":")
    if prefix != "no" or not name.strip():
        fail(f"-p {value}: expected -p no:NAME (switch plugin NAME off for this run); "
             "`agenthooks plugins enable NAME` switches one on")
    return name.strip()


def _command_of(rest: list[str]) -> str | None:
    return next((a for a in rest if not a.startswith("-")), None)


def version_line() -> str:
    return f"agenthooks {__version__} (agent-hooks-core, Python {sys.version.split()[0]})"


def version_text() -> str:
    """``--version``: ours, then every plugin discovery sees, with version and state (pytest -VV, llm plugins).

    Read from the installed metadata and settings: no plugin is imported.
    """
    lines = [version_line()]
    try:
        from ..discovery import plan

        the_plan = plan(common.settings(), hook_paths=common.OPTIONS.hook_paths,
                        disabled_extra=common.OPTIONS.disabled)
    except AgentHooksError as exc:
        return "\n".join([*lines, f"plugins: unknown ({' '.join(str(exc).split())})"])
    found = the_plan.candidates
    lines.append(f"plugins ({len(found)}):" if found else "plugins: none")
    for c in found:
        origin = f"{c.record.dist} {c.record.version}" if c.record is not None else f"{c.source}: {c.path}"
        lines.append(f"  {c.name}  {origin}" + (f"  [{c.status}]" if c.status else ""))
    return "\n".join(lines)


def build_app(plugin_commands: bool = False) -> typer.Typer:
    app = typer.Typer(name="agenthooks", help=HELP, add_completion=True, no_args_is_help=True,
                      pretty_exceptions_enable=False, context_settings={"help_option_names": ["-h", "--help"]})

    @app.callback()
    def _globals(
        ctx: typer.Context,
        hook: Annotated[list[str] | None, typer.Option(
            "--hook", metavar="PATH", help="Load a local hook file (repeatable).")] = None,
        settings: Annotated[str | None, typer.Option(
            "--settings", metavar="PATH", help="Use this settings file instead of the user's.")] = None,
        chibi_plugins: Annotated[str | None, typer.Option(
            "--chibi-plugins", metavar="DIR", help="Load chibi subprocess plugins from DIR.")] = None,
        trace: Annotated[bool, typer.Option(
            "--trace", help="Show every hook call with timings on stderr (also AGENT_HOOKS_TRACE=1).")] = False,
        plugin_off: Annotated[list[str] | None, typer.Option(
            "-p", metavar="no:NAME", help="Switch plugin NAME off for this run (repeatable), as in pytest.")] = None,
        version: Annotated[bool, typer.Option(
            "--version", "-V", help="Show the version and every plugin with its version, and exit.")] = False,
    ) -> None:
        # the global options were taken out of argv by preparse(); these declarations document them
        ctx.obj = common.OPTIONS

    from . import doctor, plugins, scaffold

    plugins.register(app)
    _register_core(app)
    doctor.register(app)
    scaffold.register(app)
    for module_name in ("replay", "chibi", "hosts", "hosts_matrix", "serve"):
        try:
            module = __import__(f"{__package__}.{module_name}", fromlist=["register"])
            module.register(app)
        except Exception as exc:  # a bug in one command module must not take the others down
            common.warn(f"the {module_name!r} commands are unavailable: {type(exc).__name__}: {exc}")
    if plugin_commands:
        _register_plugin_commands(app)
    return app


def _register_plugin_commands(app: typer.Typer) -> None:
    try:
        rt = common.runtime()
    except AgentHooksError as exc:
        common.warn(f"plugin commands not loaded: {exc}")
        return
    for result in rt.call_runtime_hook("register_commands", cli=app):
        if isinstance(result, HookError):
            common.warn(f"plugin {result.plugin!r}: register_commands failed: {result.message}")


# -- fire and hooks -------------------------------------------------------------------------------


def _register_core(app: typer.Typer) -> None:
    @app.command("fire")
    def fire_cmd(
        hook: Annotated[str, typer.Argument(help="The hook: its canonical name, or the dialect's name.")],
        data: Annotated[str | None, typer.Option(
            "--data", "-d", metavar="JSON",
            help="The payload as a JSON object, or @FILE. Default: read stdin (none when it is a terminal).")] = None,
        dialect: Annotated[str, typer.Option(
            "--dialect", metavar="|".join(DIALECTS),
            help="Fire by that system's hook name and payload shape; print its native result.")] = "canonical",
        outcome: Annotated[bool, typer.Option(
            "--outcome", help="Print the whole outcome: decision, result, answered, errors, duration.")] = False,
    ) -> None:
        """Fire HOOK through the enabled plugins and print the combined result as JSON."""
        payload = read_payload(data)
        rt = common.runtime()
        common.report_load_errors(rt)
        try:
            with common.stdout_to_stderr():  # a handler's print() must not corrupt the JSON
                out = rt.fire(hook, payload, dialect=None if dialect == "canonical" else dialect)
        except ImportError as exc:  # an agent-hooks-core without dialects
            fail(f"the {dialect} dialect is not available: {exc}")
        for err in out.errors:
            common.warn(str(err))
        result = out.data if dialect == "canonical" else out.native
        if outcome:
            full = out.to_dict()
            if dialect != "canonical":
                full["native"] = out.native
            echo_json(full)
        else:
            echo_json(result)
        if out.decision in ("blocked", "denied"):
            raise typer.Exit(common.EXIT_BLOCKED)

    @app.command("hooks")
    def hooks_cmd(
        hook: Annotated[str | None, typer.Argument(
            help="Show one hook: its payload and result fields. A seed system's name works too.")] = None,
        json_: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
        schema: Annotated[bool, typer.Option(
            "--schema", help="Print the JSON Schema of the payload and the result (pydantic models).")] = False,
        system: Annotated[str | None, typer.Option(
            "--system", help="Resolve HOOK as this system's name: chibi, omp, pi-ext, pi-agent.")] = None,
    ) -> None:
        """The hook catalogue: every canonical hook, its combination rule and its seed aliases."""
        from . import catalogue

        if hook is None:
            if schema:
                echo_json({h: catalogue.schemas(h) for h in catalogue.names()})
            elif json_:
                echo_json([catalogue.hook_dict(h) for h in catalogue.names()])
            else:
                catalogue.print_table()
            return
        hd = catalogue.resolve(hook, system)
        if schema:
            echo_json(catalogue.schemas(hd.name))
        elif json_:
            echo_json(catalogue.hook_detail(hd.name, implementers=_implementers(hd.name)))
        else:
            catalogue.print_detail(hd.name, implementers=_implementers(hd.name))


def _implementers(hook: str) -> list[str] | None:
    try:
        return common.runtime().implementers(hook)
    except AgentHooksError:
        return None


def read_payload(data: str | None) -> dict[str, object]:
    """``--data`` (JSON or @FILE), else stdin when it is not a terminal, else ``{}``.

    At most as much as a host event may be (``MAX_EVENT_BYTES``) is read: ``@/dev/zero`` or an
    endless pipe is an error, not a command that never ends.
    """
    from ..transports.dispatch import MAX_EVENT_BYTES

    source = "--data"
    if data is None:
        if sys.stdin is None or sys.stdin.isatty():
            return {}
        try:
            text, source = sys.stdin.read(MAX_EVENT_BYTES + 1), "stdin"
        except UnicodeDecodeError:
            fail("stdin is not UTF-8 text")
        except (OSError, ValueError):  # stdin closed or not readable: no payload
            return {}
    elif data.startswith("@"):
        source = data[1:]
        try:
            with open(source, encoding="utf-8") as fh:
                text = fh.read(MAX_EVENT_BYTES + 1)
        except OSError as exc:
            fail(f"--data {data}: {exc.strerror or exc}")
        except UnicodeDecodeError:
            fail(f"--data {data}: not UTF-8 text")
    else:
        text = data
    if len(text) > MAX_EVENT_BYTES:
        fail(f"{source} is larger than {MAX_EVENT_BYTES:,} bytes")
    if not text.strip():
        return {}
    payload = common.load_json(text, source)
    if not isinstance(payload, dict):
        fail(f"{source} must be a JSON object, not {type(payload).__name__}")
    return payload


# -- running --------------------------------------------------------------------------------------


def _error(message: str) -> None:
    message = " ".join(str(message).split())  # one line, whatever the exception carried
    print(f"agenthooks: error: {message}", file=sys.stderr)


def run(argv: list[str] | None = None) -> int:
    """Run ``agenthooks`` with ``argv`` (without the program name); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        opts, rest = preparse(args)
    except CLIError as exc:
        _error(str(exc))
        return 2
    common.set_options(opts)
    command = _command_of(rest)
    from ..fastcommands import fast_command

    if (command is not None and command not in (*BUILTIN_COMMANDS, *MODULE_COMMANDS)
            and fast_command(command) is not None):
        # a per-event host command reaches here only with options __main__ cannot pass on
        _error(f"only --hook, --settings and --trace may come before {command} "
               "(switch plugins off in settings: `disabled = [...]`)")
        return 2
    if command is None and ("--version" in rest or "-V" in rest):
        try:
            print(version_text())
        except CLIError as exc:
            _error(str(exc))
            return 2
        return 0
    wants_plugins = command is None or command not in (*BUILTIN_COMMANDS, *MODULE_COMMANDS)
    try:
        app = build_app(plugin_commands=wants_plugins)
        click_command = typer.main.get_command(app)
        from .helptext import finish

        finish(click_command)
        result = click_command.main(args=rest, prog_name="agenthooks", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except typer.Exit as exc:
        return int(getattr(exc, "exit_code", getattr(exc, "code", 0)) or 0)
    except typer.Abort:
        _error("aborted")
        return 1
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except AgentHooksError as exc:
        _error(str(exc))
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:
        return _click_or_internal(exc)


def _click_or_internal(exc: Exception) -> int:
    if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # click's exceptions (typer vendors click)
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            print(ctx.get_help())
            return 0
        message = exc.format_message()
        if ctx is not None and int(exc.exit_code) == 2:
            message = f"{message.rstrip('.')} (see `{ctx.command_path} --help`)"
        _error(message)
        return int(exc.exit_code)
    if common.tracing():
        import traceback

        traceback.print_exception(exc)
    from ..discovery import describe_exception

    _error(f"internal error: {describe_exception(exc)} (run with --trace for the traceback)")
    return 1
