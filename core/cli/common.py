"""What every ``agenthooks`` command shares: the global options, the runtime, output helpers.

Commands written in other modules (``replay.py``, plugins' ``register_commands``) get a runtime
built with the global options (``--hook``, ``--settings``, ``--chibi-plugins``, ``--trace``) from
:func:`runtime`, and report bad input by raising :class:`CLIError` (exit 2, one line).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import AgentHooksError, HookError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from rich.text import Text

    from ..runtime import Runtime
    from ..settings import Settings
    from .tables import Cell, Column


#: ``agenthooks fire``: the call was blocked or denied (the JSON result is still printed)
EXIT_BLOCKED = 3


class CLIError(AgentHooksError):
    """Bad input: ``agenthooks: error: <message>`` on stderr and exit code 2."""


@dataclass
class GlobalOptions:
    """The global options, wherever they appeared on the command line."""

    hook_paths: list[str] = field(default_factory=list)
    settings_path: str | None = None
    chibi_plugins: str | None = None
    trace: bool = False
    disabled: list[str] = field(default_factory=list)
    """``-p no:NAME``: plugins switched off for this run"""
    cwd: str = field(default_factory=os.getcwd)


OPTIONS = GlobalOptions()
_RUNTIME: Runtime | None = None
#: settings warnings and notices already printed in this invocation (each is printed once)
_SAID: set[str] = set()


def set_options(options: GlobalOptions) -> None:
    global OPTIONS, _RUNTIME
    OPTIONS = options
    _RUNTIME = None
    _SAID.clear()


def say_once(lines: list[str], prefix: str = "warning") -> None:
    """Settings warnings (unknown keys, ...) and loading notices, on stderr, once per invocation."""
    for line in lines:
        if line not in _SAID:
            _SAID.add(line)
            print(f"agenthooks: {prefix}: {line}", file=sys.stderr)


def fail(message: str) -> NoReturn:
    raise CLIError(message)


def warn(message: str) -> None:
    print(f"agenthooks: warning: {message}", file=sys.stderr)


def tracing() -> bool:
    from ..settings import ENV_TRACE, env_flag

    return OPTIONS.trace or env_flag(ENV_TRACE)


def _check_settings_path() -> None:
    given = OPTIONS.settings_path
    if given is not None and os.path.exists(given) and not os.path.isfile(given):
        fail(f"--settings {given}: not a regular file")  # a device or a fifo would be read without end


def settings() -> Settings:
    """The settings the global options select (raises SettingsError: exit 2, one line)."""
    from ..settings import load_settings

    _check_settings_path()
    loaded = load_settings(OPTIONS.cwd, OPTIONS.settings_path)
    say_once(loaded.warnings)
    return loaded


def runtime(**options: Any) -> Runtime:  # load_runtime's keyword arguments, passed through
    """The Runtime of this invocation: settings, installed plugins, local hook files, ``--hook``.

    Built once per invocation (``options`` force a fresh one).
    """
    global _RUNTIME
    if _RUNTIME is not None and not options:
        return _RUNTIME
    from ..discovery import load_runtime

    _check_settings_path()
    for path in OPTIONS.hook_paths:
        if not os.path.exists(path):
            fail(f"--hook {path}: no such file or directory")
    if OPTIONS.chibi_plugins is not None and not os.path.isdir(OPTIONS.chibi_plugins):
        fail(f"--chibi-plugins {OPTIONS.chibi_plugins}: not a directory")
    if OPTIONS.disabled:
        options.setdefault("disabled_extra", OPTIONS.disabled)
    rt = load_runtime(OPTIONS.cwd, settings_path=OPTIONS.settings_path, hook_paths=OPTIONS.hook_paths,
                      chibi_plugins=OPTIONS.chibi_plugins, trace=tracing(), host="agenthooks", **options)
    if not options or set(options) == {"disabled_extra"}:
        _RUNTIME = rt
    from ..discovery import plan_of

    the_plan = plan_of(rt)
    if the_plan is not None:  # settings warnings (incl. a -p no:NAME that matches nothing), notices
        say_once(the_plan.warnings)
        say_once(the_plan.notices, "notice")
    return rt


def report_load_errors(rt: Runtime) -> None:
    """One warning line per plugin that failed to load (stdout stays clean for JSON)."""
    for err in rt.load_errors:
        warn(load_error_line(err))


def load_error_line(err: HookError) -> str:
    stage = {"import": "cannot be imported", "register": "has an invalid hookimpl",
             "config": "has invalid settings", "file": "hook file missing",
             "select": "not found", "entry-point": "duplicate entry point"}.get(err.hook, err.hook)
    return f"plugin {err.plugin!r} not loaded ({stage}): {err.message}"


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str | bytes, source: str) -> Any:
    """JSON a user gave us, strictly: no ``NaN``/``Infinity`` (not JSON, and no plugin expects
    them), nothing nested deeper than a host event may be. Bad input -> CLIError naming ``source``."""
    from ..transports.dispatch import MAX_DEPTH, depth_exceeds

    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        fail(f"{source} is nested deeper than {MAX_DEPTH} levels")
    except json.JSONDecodeError as exc:
        fail(f"{source} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    except ValueError as exc:
        fail(f"{source} is not valid JSON: {exc}")
    if depth_exceeds(value):
        fail(f"{source} is nested deeper than {MAX_DEPTH} levels")
    return value


def echo_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=_json_default) + "\n")


def _json_default(value: object) -> object:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    cols = None if stream.isatty() else int(os.environ.get("COLUMNS", "0") or 0) or 160
    return Console(file=stream, width=cols, highlight=False, soft_wrap=False)


def width() -> int:
    """The width output is laid out for: the terminal's, else ``$COLUMNS``, else 160 (pipes, files)."""
    if sys.stdout.isatty():
        import shutil

        return shutil.get_terminal_size().columns
    return int(os.environ.get("COLUMNS", "0") or 0) or 160


def esc(value: object) -> str:
    """Text from users, files and plugins, made safe to print with rich markup (``[plugins.guard]`` stays)."""
    from rich.markup import escape

    return escape(str(value))


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send what handlers print (``print()``, subprocesses writing to fd 1) to stderr while they run.

    stdout carries ``fire``'s and ``--json``'s JSON: a plugin's chatter must not corrupt it.
    """
    sys.stdout.flush()
    saved_fd = None
    try:
        if sys.stdout.fileno() == 1:
            saved_fd = os.dup(1)
            os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):  # no real fd 1 (captured, closed): sys.stdout is enough
        saved_fd = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)


def print_table(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], out: Console | None = None) -> None:
    """A table readable at any width (see ``tables.py``); cells are literal text, never markup."""
    from .tables import print_table as render

    render(out or console(), columns, rows)


def say(out: Console, line: str | Text) -> None:
    """Print one line (rich markup, or a ``rich.text.Text``) on console ``out``, wrapped at spaces to
    its width with continuation lines indented (``tables.indented``), never cut at column 0."""
    from rich.text import Text

    from .tables import indented

    text = Text.from_markup(line) if isinstance(line, str) else line
    for piece in indented(text, out.width):
        out.print(piece, soft_wrap=True, overflow="ignore", crop=False)
