"""``agenthooks chibi``: agent-hooks as one chibi plugin executable.

Put a two-line wrapper in chibi's plugin directory (``~/.chibi/plugins/agent_hooks``)::

    #!/bin/sh
    exec agenthooks chibi "$@"

and chibi runs every enabled agent-hooks plugin:

``agenthooks chibi --schema``
    prints the chibi schema; ``hooks`` lists the chibi names of the hooks the enabled plugins
    implement (so chibi calls us only for those).
``CHIBI_HOOK=pre_tool agenthooks chibi < payload.json``
    reads the payload from stdin (or ``CHIBI_HOOK_DATA``, chibi's older protocol), fires the hook
    through the enabled plugins and prints the combined answer as chibi JSON (``{}`` = no opinion).

It never prints a traceback. When something goes wrong (unreadable settings, a payload that is not
JSON, an internal error) it says so in one line on stderr and answers ``{}`` — except for the hooks
that fail closed (``pre_tool``, the permission hooks), where it answers with a block or a denial.

This module is the whole start-up path of a chibi hook call: it imports neither typer, rich nor
pydantic. ``python -X importtime -m agent_hooks_core chibi --schema`` shows what it costs.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ..runtime import Runtime

#: the plugin's name in chibi (chibi plugins are tools too)
TOOL_NAME = "agent_hooks"
DESCRIPTION = "agent-hooks: runs the enabled agent-hooks plugins on chibi's hooks (hook-only)"

RuntimeFactory = Callable[[], "Runtime"]

USAGE = """usage: agenthooks chibi [--hook PATH]... [--settings PATH] [--schema]

Run the enabled agent-hooks plugins as one chibi plugin. Put this in chibi's
plugin directory:

    #!/bin/sh
    exec agenthooks chibi "$@"

--schema          print the chibi schema (the chibi hooks the enabled plugins
                  implement)
--hook PATH       also load this local plugin file (repeatable)
--settings PATH   use this agent-hooks settings file
otherwise         answer the hook named by CHIBI_HOOK; the payload is read from
                  stdin or CHIBI_HOOK_DATA (chibi's older protocol)"""


def default_runtime(hook_paths: list[str] | None = None, settings_path: str | None = None) -> Runtime:
    """The enabled plugins, as the settings say (user, then project), plus ``--hook`` files."""
    from ..runtime import Runtime

    options: dict[str, object] = {}
    if hook_paths:
        options["hook_paths"] = hook_paths
    if settings_path:
        options["settings_path"] = settings_path
    rt = Runtime.from_settings(cwd=os.getcwd(), **options)
    rt.host = "chibi"
    return rt


class UsageError(Exception):
    pass


def parse_args(args: list[str]) -> tuple[bool, list[str], str | None]:
    """(--schema given, --hook paths, --settings path); UsageError for anything else."""
    want_schema, hooks, settings = False, [], None
    it = iter(args)
    for arg in it:
        name, eq, value = arg.partition("=")
        if arg == "--schema":
            want_schema = True
        elif name in ("--hook", "--settings"):
            if not eq:
                value = next(it, "")
            if not value:
                raise UsageError(f"{name} needs a path")
            if not os.path.exists(value):
                raise UsageError(f"{name} {value}: no such file or directory")
            if name == "--hook":
                hooks.append(value)
            else:
                settings = value
        else:
            raise UsageError(f"unknown argument {arg!r}")
    return want_schema, hooks, settings


def schema(rt: Runtime) -> dict[str, object]:
    """The chibi schema of ``rt``: the chibi names of the hooks its plugins implement."""
    from .chibi import CHIBI_NAMES

    hooks = [name for name, hook in CHIBI_NAMES.items() if rt.implementers(hook)]
    return {
        "name": TOOL_NAME,
        "description": DESCRIPTION,
        "parameters": {"type": "object", "properties": {}},
        "hooks": hooks,
    }


def fail_closed_answer(hook: str | None, message: str) -> dict[str, object]:
    """What to answer when the call could not be made: a block/denial where the hook fails closed."""
    from ..hookspecs.catalogue import BY_NAME

    hd = BY_NAME.get(hook or "")
    if hd is None or not hd.fail_closed:
        return {}
    reason = f"agent-hooks: {message}; {hd.name} fails closed"
    if hd.permission:
        return {"denied": True, "reason": reason}
    return {"block": True, "message": reason}


def read_payload(stdin: TextIO, environ: Mapping[str, str]) -> object:
    """The hook payload: stdin (seed 001), else ``CHIBI_HOOK_DATA`` (seed 000); {} when neither."""
    text = ""
    try:
        if not stdin.isatty():
            text = stdin.read()
    except (OSError, ValueError):
        text = ""
    if not text.strip():
        text = environ.get("CHIBI_HOOK_DATA", "")
    if not text.strip():
        return {}
    return json.loads(text)


def main(argv: list[str] | None = None, *, runtime_factory: RuntimeFactory | None = None,
         stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run as a chibi plugin; the exit code. ``argv`` are the arguments after ``chibi``."""
    from .chibi import ENV_INSIDE_CHIBI

    # chibi runs its own plugins: the chibi_plugins setting must not make us run them (or us) again
    before = os.environ.get(ENV_INSIDE_CHIBI)
    os.environ[ENV_INSIDE_CHIBI] = "1"
    try:
        return _main(list(sys.argv[1:] if argv is None else argv), runtime_factory,
                     stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    finally:
        if before is None:
            os.environ.pop(ENV_INSIDE_CHIBI, None)
        else:
            os.environ[ENV_INSIDE_CHIBI] = before


def _main(args: list[str], runtime_factory: RuntimeFactory | None, stdin: TextIO, stdout: TextIO,
          stderr: TextIO) -> int:
    def say(message: str) -> None:
        print(f"agenthooks chibi: {message}", file=stderr)

    if "-h" in args or "--help" in args:
        print(USAGE, file=stdout)
        return 0
    try:
        want_schema, hook_paths, settings_path = parse_args(args)
    except UsageError as exc:
        say(f"error: {exc}")
        if not os.environ.get("CHIBI_HOOK"):
            return 2
        # called by chibi with a broken wrapper: still a chibi answer
        print(json.dumps(fail_closed_answer(_canonical(os.environ["CHIBI_HOOK"]), str(exc))), file=stdout)
        return 0

    def factory() -> Runtime:
        if runtime_factory is not None:
            return runtime_factory()
        return default_runtime(hook_paths, settings_path)

    if want_schema:
        try:
            rt = factory()
            text = json.dumps(schema(rt))
        except Exception as exc:
            say(f"cannot load the plugins: {_one_line(exc)}")
            return 1
        print(text, file=stdout)
        for err in getattr(rt, "load_errors", ()):
            say(str(err))
        return 0

    hook_name = os.environ.get("CHIBI_HOOK")
    if not hook_name:
        print("agent-hooks only handles chibi hooks (CHIBI_HOOK is not set)", file=stdout)
        return 0
    try:
        answer = _answer(hook_name, stdin, factory, say)
    except Exception as exc:  # a bug of ours: still a chibi answer, never a traceback
        say(f"{hook_name}: internal error: {_one_line(exc)}")
        answer = fail_closed_answer(_canonical(hook_name), f"internal error ({_one_line(exc)})")
    print(json.dumps(answer, default=str), file=stdout)
    return 0


def _answer(hook_name: str, stdin: TextIO, factory: RuntimeFactory, say: Callable[[str], None]) -> dict[str, object]:
    from .chibi import CHIBI_NAMES

    hook = CHIBI_NAMES.get(hook_name)
    if hook is None:
        say(f"unknown chibi hook {hook_name!r}; answering {{}}")
        return {}
    try:
        payload = read_payload(stdin, os.environ)
    except ValueError as exc:
        say(f"{hook_name}: the payload is not JSON ({_one_line(exc)})")
        return fail_closed_answer(hook, "the payload is not JSON")
    try:
        rt = factory()
    except Exception as exc:
        say(f"cannot load the plugins: {_one_line(exc)}")
        return fail_closed_answer(hook, f"cannot load the plugins ({_one_line(exc)})")
    for err in getattr(rt, "load_errors", ()):
        say(str(err))
    try:
        outcome = rt.fire(hook_name, payload, dialect="chibi")
    except Exception as exc:
        message = _one_line(exc)  # PayloadError and UnknownHookError already name the hook
        say(message if message.startswith(f"chibi {hook_name}:") else f"{hook_name}: {message}")
        return fail_closed_answer(hook, message)
    for err in outcome.errors:
        say(str(err))
    native = outcome.native
    return native if isinstance(native, dict) else {}


def _canonical(hook_name: str) -> str | None:
    from .chibi import CHIBI_NAMES

    return CHIBI_NAMES.get(hook_name)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
