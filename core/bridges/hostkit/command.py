"""The per-event command for a command-hook host: ``agenthooks <host> [--event NAME] [--hook PATH]…``.

Uses :func:`agent_hooks_core.transports.process.main` when that transport is installed; this
module's :func:`run` is the same contract, kept small, for as long as it is not: stdin read whole
(bounded), JSON parsed (a parse failure, deep nesting included, is the adapter's ``failure``),
stdout pointed at stderr while plugins run (a plugin's ``print`` cannot corrupt the answer), and
every failure of ours (including a crash while loading plugins) turned into ``adapter.failure``:
a deny on the host's gating events.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

from ..base import BridgeInputError, HostAnswer

#: larger events are refused (a host sends a few hundred kB at most: tool output, transcripts paths)
MAX_EVENT_BYTES = 32 * 1024 * 1024

USAGE = """\
usage: agenthooks {host} [--event NAME] [--hook PATH]... [--settings PATH]

{title}'s hook command: reads one hook event (JSON) on stdin, runs it through the enabled
agent-hooks plugins and answers in {title}'s format. Wire it with `agenthooks install {host}`;
see docs/hosts/{host}.md.

  --event NAME     the event this entry was installed for (used when stdin is unreadable)
  --hook PATH      also load this local plugin file (repeatable)
  --settings PATH  use this agent-hooks settings file
"""


class UsageError(Exception):
    pass


def parse_args(argv: list[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {"event": None, "hooks": [], "settings": None, "help": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            opts["help"] = True
            i += 1
            continue
        name, eq, value = arg.partition("=")
        if name not in ("--event", "--hook", "--settings"):
            raise UsageError(f"unknown option {arg!r} (try --help)")
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError(f"{name} needs a value")
            value = argv[i + 1]
            i += 1
        i += 1
        if name == "--hook":
            opts["hooks"].append(value)
        else:
            opts[name[2:]] = value
    return opts


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def answer(adapter: Any, raw: bytes, opts: dict[str, Any]) -> HostAnswer:
    """The answer to one raw event (plugins run here)."""
    name: str | None = opts.get("event")
    try:
        if len(raw) > MAX_EVENT_BYTES:
            raise BridgeInputError(f"the event is larger than {MAX_EVENT_BYTES} bytes")
        if not raw.strip():
            raise BridgeInputError("no event on stdin (expected one JSON object)")
        try:
            event = json.loads(raw)
        except RecursionError:
            raise BridgeInputError("the event JSON is nested too deeply") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise BridgeInputError(f"stdin is not valid JSON ({exc})") from None
        if not isinstance(event, dict):
            raise BridgeInputError(f"stdin must hold a JSON object, not {type(event).__name__}")
        name = adapter.event_name(event) or name
        from ...runtime import Runtime

        options = adapter.runtime_options(event)
        if opts.get("hooks"):
            options["hook_paths"] = list(opts["hooks"])
        if opts.get("settings"):
            options["settings_path"] = opts["settings"]
        try:
            rt = Runtime.from_settings(**options)
        except BaseException as exc:
            return adapter.failure(name, f"could not load the plugins: {_describe(exc)}")
        result: HostAnswer = adapter.handle(rt, event)
        return result
    except BridgeInputError as exc:
        return adapter.failure(name, str(exc))
    except BaseException as exc:  # a bug of ours must not become a silent allow
        return adapter.failure(name, f"internal error: {_describe(exc)}")


def run(adapter: Any, argv: list[str], title: str, stdin: IO[bytes] | None = None) -> int:
    """Read one event, answer it, return the exit code (writes the answer to fd 1)."""
    try:
        opts = parse_args(argv)
    except UsageError as exc:
        reply = adapter.failure(None, str(exc))
        sys.stderr.write(f"agenthooks {adapter.name}: error: {exc}\n")
        return int(reply.exit_code) or 1
    if opts["help"]:
        sys.stdout.write(USAGE.format(host=adapter.name, title=title))
        return 0
    try:
        raw = (stdin or sys.stdin.buffer).read(MAX_EVENT_BYTES + 1)
    except (OSError, ValueError) as exc:
        reply = adapter.failure(opts["event"], f"could not read stdin ({exc})")
    else:
        sys.stdout.flush()
        saved = os.dup(1)
        saved_obj, sys.stdout = sys.stdout, sys.stderr
        os.dup2(2, 1)
        try:
            reply = answer(adapter, raw, opts)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 1)
            os.close(saved)
            sys.stdout = saved_obj
    for line in reply.stderr:
        sys.stderr.write(line.rstrip("\n") + "\n")
    sys.stderr.flush()
    if reply.body is not None:
        os.write(1, (json.dumps(reply.body, ensure_ascii=False) + "\n").encode("utf-8"))
    return int(reply.exit_code)


def main(adapter: Any, argv: list[str], title: str) -> int:
    """``process.main`` when the transports package has it, else :func:`run`."""
    try:
        from ...transports.process import main as process_main
    except ImportError:
        return run(adapter, argv, title)
    code: int = process_main(adapter, argv)
    return code
