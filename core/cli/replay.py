"""``agenthooks replay FILE``: run a recorded agent session through the enabled plugins.

A session file is JSON lines, one hook call per line, in the order the host fired them::

    {"hook": "pre_tool", "event": {"tool_name": "bash", "arguments": {"command": "ls"}}}
    {"hook": "tool_call", "dialect": "pi", "event": {"toolName": "bash", "input": {"command": "ls"}}}
    {"host_event": "Notification", "host": "claude-code", "payload": {"message": "..."}}

``dialect`` fires by that system's hook name and payload shape; ``host_event`` lines go to the
``host_event`` hook; an optional ``"note"`` describes the line in the table. Blank lines are
skipped. A malformed line is reported with its line number and the rest still replays.

The runtime is built as for any command (settings, installed plugins, ``--hook`` files) with host
``replay``, no UI and a session id of its own, so audit records of the replay can be found with
``agenthooks audit stats --session ID``. A plugin may implement the ``session_summary(ctx)`` hook
(``str | list[str] | None``): replay prints what it returns after the summary (agent-hooks-audit
says where the records went).

``--expect GOLDEN`` compares each line's hook and decision with a golden file written by
``--write-expect GOLDEN`` (JSON lines ``{"line", "hook", "decision", "what"}``; ``what`` is for
people and not compared) and exits 1 on any difference, so a team can pin its policy in CI.

Exit codes: 0, 1 (differences from the golden file), 2 (bad input: a missing file, malformed lines).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TextIO

    from rich.console import Console

    from ..runtime import Runtime

DECISIONS = ("denied", "blocked", "modified", "allowed", "observed")
MALFORMED = "malformed"


@dataclass
class Entry:
    """One line of a session file."""

    line: int
    hook: str | None = None
    event: object = None
    dialect: str | None = None
    host_event: str | None = None
    host: str | None = None
    note: str | None = None
    error: str | None = None
    """why the line is malformed"""


@dataclass
class Step:
    """What replaying one line did."""

    line: int
    hook: str
    decision: str
    what: str = ""
    """the event in a few words: the command, path, URL or prompt"""
    note: str | None = None
    """the session line's own description, if it has one"""
    answered: list[str] = field(default_factory=list)
    reason: str | None = None
    changed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    duration_ms: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class Replay:
    steps: list[Step]
    messages: list[dict[str, object]] = field(default_factory=list)
    notifications: list[tuple[str, str]] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)

    @property
    def malformed(self) -> list[Step]:
        return [s for s in self.steps if s.decision == MALFORMED]

    def summary(self) -> dict[str, Any]:  # the --json report; print_report reads it back
        counts = Counter(s.decision for s in self.steps)
        replayed = [s for s in self.steps if s.decision != MALFORMED]
        by_plugin: dict[str, Counter[str]] = {}
        for s in replayed:
            for p in s.answered:
                by_plugin.setdefault(p, Counter())[s.decision] += 1
        return {
            "events": len(replayed),
            "decisions": {d: counts[d] for d in DECISIONS},
            "errors": sum(len(s.errors) for s in replayed),
            "malformed": counts[MALFORMED],
            "answered_by": {p: dict(c) for p, c in sorted(by_plugin.items())},
        }


# -- reading the session file ----------------------------------------------------------------------


def parse_line(number: int, text: str) -> Entry:
    from .common import CLIError, load_json

    try:
        data = load_json(text, "the line")
    except CLIError as exc:  # a bad line is reported in its place; the session goes on
        return Entry(number, error=str(exc).removeprefix("the line is ").replace("not valid JSON", "not JSON"))
    if not isinstance(data, dict):
        return Entry(number, error=f"expected a JSON object, got {type(data).__name__}")
    note = data.get("note") if isinstance(data.get("note"), str) else None
    if "host_event" in data:
        name, host, payload = data.get("host_event"), data.get("host"), data.get("payload", {})
        if not isinstance(name, str) or not name:
            return Entry(number, error="host_event must be the host's event name")
        if not isinstance(payload, dict):
            return Entry(number, error="payload must be a JSON object")
        return Entry(number, host_event=name, host=host if isinstance(host, str) else "replay", event=payload,
                     note=note)
    hook = data.get("hook")
    if not isinstance(hook, str) or not hook:
        return Entry(number, error='missing "hook" (or "host_event")')
    event = data.get("event", {})
    if not isinstance(event, dict):
        return Entry(number, hook=hook, error='"event" must be a JSON object')
    dialect = data.get("dialect")
    if dialect is not None and not isinstance(dialect, str):
        return Entry(number, hook=hook, error='"dialect" must be a string')
    return Entry(number, hook=hook, event=event, dialect=None if dialect == "canonical" else dialect, note=note)


def read_session(path: Path) -> list[Entry]:
    entries = []
    with open(path, encoding="utf-8") as fh:
        for number, text in enumerate(fh, start=1):
            if text.strip():
                entries.append(parse_line(number, text))
    return entries


# -- replaying -------------------------------------------------------------------------------------


def describe(hook: str, event: object, limit: int = 90) -> str:
    """A short human description of an event: the command, path, URL or prompt it is about."""
    if not isinstance(event, dict):
        return ""
    arguments = event.get("arguments")
    args: dict[str, object] = arguments if isinstance(arguments, dict) else {}
    for source in (args, event):
        for key in ("command", "cmd", "path", "file_path", "url", "prompt", "input"):
            value = source.get(key)
            if isinstance(value, str) and value:
                prefix = f"{event['tool_name']}: " if source is args and isinstance(event.get("tool_name"), str) else ""
                return _clip(prefix + value, limit)
    if isinstance(event.get("tools"), list):
        names = [t.get("name") if isinstance(t, dict) else str(t) for t in event["tools"]]
        depth = event.get("recursion_depth")
        return _clip(f"{len(names)} tools{f' (depth {depth})' if depth else ''}: {', '.join(map(str, names))}", limit)
    if isinstance(event.get("tool_name"), str):
        out = event.get("output")
        tail = f": {out}" if isinstance(out, str) else ""
        return _clip(event["tool_name"] + tail, limit)
    if isinstance(event.get("messages"), list):
        return f"{len(event['messages'])} messages"
    parts = [f"{k}={v}" for k, v in event.items() if isinstance(v, (str, int, float, bool))]
    return _clip(", ".join(parts), limit)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _changed(hook: str, event: Any, data: dict[str, Any] | None) -> list[str]:
    """What a modifying answer changed, in words: ``output changed``, ``excluded: bash``, ..."""
    if not data or not isinstance(event, dict):
        return []
    if hook == "pre_api_tools":
        out = []
        if data.get("exclude"):
            out.append("excluded: " + ", ".join(data["exclude"]))
        if data.get("include") is not None:
            out.append("only: " + ", ".join(data["include"]))
        return out
    neutral = {"reason", "message", "denied", "block", "fallback_source", "tools"}
    out = []
    for key, new in data.items():
        old = event.get(key)
        if key in neutral or old == new:
            continue
        if isinstance(old, str) and isinstance(new, str):
            out.append(f"{key}: {_first_change(old, new)}")
        else:
            out.append(f"{key} changed")
    return out


def _first_change(old: str, new: str, width: int = 60) -> str:
    """The new text around its first difference from the old: ``…key: [REDACTED:stripe-key]…``."""
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    begin = max(0, start - 12)
    snippet = " ".join(new[begin:begin + width].split())
    return ("…" if begin else "") + snippet + ("…" if begin + width < len(new) else "")


def replay_entries(rt: Runtime, entries: list[Entry], progress: Callable[[int, int], None] | None = None) -> Replay:
    """Fire every entry through ``rt`` as a host would; malformed entries become ``malformed`` steps.

    ``progress(done, total)`` is called before each entry (and once at the end).
    """
    from ..errors import AgentHooksError

    steps: list[Step] = []
    for done, entry in enumerate(entries):
        if progress is not None:
            progress(done, len(entries))
        if entry.error is not None:
            steps.append(Step(entry.line, entry.hook or "?", MALFORMED, errors=[entry.error]))
            continue
        if entry.host_event is not None:
            start = time.perf_counter()
            results = rt.call_runtime_hook("host_event", host=entry.host, name=entry.host_event, payload=entry.event)
            errors = [str(r) for r in results if hasattr(r, "plugin") and hasattr(r, "message")]
            steps.append(Step(entry.line, entry.host_event, "observed", f"{entry.host}: {describe('', entry.event)}",
                              entry.note, errors=errors, duration_ms=round((time.perf_counter() - start) * 1000, 3)))
            continue
        assert entry.hook is not None
        try:
            out = rt.fire(entry.hook, entry.event, dialect=entry.dialect)
        except (AgentHooksError, ImportError, ValueError, TypeError) as exc:
            steps.append(Step(entry.line, entry.hook, MALFORMED, errors=[str(exc) or type(exc).__name__]))
            continue
        hook = out.hook
        before = out.event if entry.dialect else entry.event  # chained fields are applied to out.event
        steps.append(Step(
            entry.line, hook, out.decision, describe(hook, out.event), entry.note, list(out.answered),
            out.reason, _changed(hook, before, out.data), [str(e) for e in out.errors],
            round(out.duration * 1000, 3),
        ))
    if progress is not None:
        progress(len(entries), len(entries))
    result = Replay(steps)
    result.messages = list(rt.outbox)
    result.notifications = list(getattr(rt.ui, "notifications", []))
    result.reports = plugin_reports(rt)
    return result


def plugin_reports(rt: Runtime) -> list[str]:
    """What plugins' ``session_summary`` hooks have to say after a replay."""
    from ..errors import HookError

    lines: list[str] = []
    for said in rt.call_runtime_hook("session_summary"):
        if isinstance(said, HookError):
            lines.append(f"{said.plugin}: session_summary failed: {said.message}")
        elif isinstance(said, str):
            lines.append(said)
        elif isinstance(said, (list, tuple)):
            lines.extend(str(s) for s in said)
    return lines


# -- golden files ----------------------------------------------------------------------------------


def expectations(steps: list[Step]) -> list[dict[str, object]]:
    return [{"line": s.line, "hook": s.hook, "decision": s.decision, "what": s.what} for s in steps]


def write_expect(path: Path, steps: list[Step]) -> None:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in expectations(steps)), encoding="utf-8")


def read_expect(path: Path) -> dict[int, dict[str, object]]:
    from .common import fail

    expected: dict[int, dict[str, object]] = {}
    if path.exists() and not path.is_file():  # a device or a fifo would be read without end
        fail(f"--expect {path}: not a regular file")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        fail(f"--expect {path}: not UTF-8 text")
    except OSError as exc:
        fail(f"--expect {path}: {exc.strerror or exc}")
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
            expected[int(item["line"])] = item
        except (ValueError, KeyError, TypeError):
            fail(f"--expect {path}: line {number} is not {{\"line\": N, \"hook\": ..., \"decision\": ...}}")
    return expected


def compare(steps: list[Step], expected: Mapping[int, Mapping[str, object]]) -> list[str]:
    """Differences in hook or decision, line by line; lines missing on either side count."""
    diffs = []
    got = {s.line: s for s in steps}
    for line in sorted(set(got) | set(expected)):
        step, want = got.get(line), expected.get(line)
        if want is None:
            assert step is not None
            diffs.append(f"line {line}: {step.hook} {step.decision}, not in the expect file")
        elif step is None:
            diffs.append(f"line {line}: expected {want.get('hook')} {want.get('decision')}, but the session has no such line")
        elif (step.hook, step.decision) != (want.get("hook"), want.get("decision")):
            diffs.append(f"line {line}: {step.hook}: expected {want.get('decision')}, got {step.decision}"
                         + (f" ({step.reason})" if step.reason else ""))
    return diffs


# -- output ----------------------------------------------------------------------------------------

_STYLE = {"blocked": "bold red", "denied": "bold red", "modified": "yellow", "allowed": "green",
          "observed": "dim", MALFORMED: "bold magenta"}


def print_report(console: Console, path: Path, session_id: str, result: Replay, diffs: list[str] | None,
                 expect_path: Path | None) -> None:
    from rich.markup import escape
    from rich.text import Text

    from .common import print_table
    from .tables import Cell, Column

    console.print(f"replay of {escape(str(path))}", soft_wrap=True)
    columns = [Column("line", right=True), Column("hook"), Column("decision"), Column("answered"),
               Column("event", text=True), Column("note", text=True), Column("detail", text=True)]
    rows: list[list[Cell]] = []
    for s in result.steps:
        changed = ", ".join(s.changed) if s.decision == "modified" else ""
        detail = "; ".join(x for x in (s.reason or "", changed, "; ".join(s.errors)) if x)
        rows.append([str(s.line), s.hook, Text(s.decision, style=_STYLE.get(s.decision, "")),
                     ", ".join(s.answered), s.what, s.note or "", detail])
    print_table(columns, rows, console)

    def say(markup: str) -> None:
        """One message, wrapped at spaces with a hanging indent; a `command` stays on one line."""
        import re

        from .tables import NBSP, hanging

        markup = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", NBSP), markup)
        lines = hanging("", Text.from_markup(markup), console.width - 2)
        for n, line in enumerate(lines):
            console.print(Text.assemble("  ", line) if n else line, soft_wrap=True)

    summary = result.summary()
    d = summary["decisions"]
    parts = ", ".join(f"[{_STYLE[k]}]{d[k]} {k}[/]" for k in DECISIONS if d[k])
    say(f"[bold]{summary['events']} events replayed[/] (session {escape(session_id)}): {parts or 'none'}; "
        f"{summary['errors']} errors" + (f"; [bold magenta]{summary['malformed']} malformed lines[/]"
                                         if summary["malformed"] else ""))
    if summary["answered_by"]:
        say("answered by: " + "; ".join(
            f"{escape(p)} ({', '.join(f'{n} {k}' for k, n in c.items())})" for p, c in summary["answered_by"].items()))
    for m in result.malformed:  # also on stderr (report_malformed), where a piped run still shows them
        say(f"[bold magenta]line {m.line}[/]: {escape('; '.join(m.errors))}")
    for msg in result.messages:
        say(f"message from {escape(str(msg.get('plugin')))}: {escape(str(msg.get('text')))}")
    for kind, text in result.notifications:
        say(f"notification ({escape(kind)}): {escape(text)}")
    for line in result.reports:
        say(escape(line))
    if diffs is not None and expect_path is not None:
        if diffs:
            say(f"[bold red]{len(diffs)} differences from {escape(str(expect_path))}:[/]")
            for diff in diffs:
                say(f"  {escape(diff)}")
        else:
            say(f"[green]decisions match {escape(str(expect_path))}[/]")


#: seconds between progress lines on stderr; a replay that ends sooner prints none
PROGRESS_EVERY = 1.0


class Progress:
    """``replaying FILE: N/TOTAL events`` on stderr, at most every PROGRESS_EVERY seconds."""

    def __init__(self, path: Path, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        import sys

        self.path, self.stream, self.clock = path, stream or sys.stderr, clock
        self.tty = self.stream.isatty()
        self.last = clock()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if done < total and now - self.last < PROGRESS_EVERY:
            return
        if done == total and not self.shown:
            return
        self.last, self.shown = now, True
        line = f"replaying {self.path}: {done}/{total} events"
        if self.tty:
            self.stream.write(f"\r{line}" + ("\n" if done == total else ""))
        else:
            self.stream.write(f"agenthooks: {line}\n")
        self.stream.flush()


def report_malformed(result: Replay) -> None:
    """Malformed lines, one per line on stderr (the report on stdout counts them)."""
    from .common import warn

    for m in result.malformed:
        warn(f"line {m.line}: {'; '.join(m.errors)}")


def default_session_id(path: Path) -> str:
    return f"replay-{path.stem}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"


def register(app: typer.Typer) -> None:
    """Add ``agenthooks replay`` to the typer app."""

    @app.command("replay")
    def replay_cmd(
        file: Annotated[Path, typer.Argument(help="The session: JSON lines of {\"hook\": ..., \"event\": ...}.")],
        json_: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
        expect: Annotated[Path | None, typer.Option(
            "--expect", metavar="GOLDEN", help="Compare decisions with this file; exit 1 on any difference.")] = None,
        write_expect_to: Annotated[Path | None, typer.Option(
            "--write-expect", metavar="GOLDEN", help="Write this run's decisions as the golden file.")] = None,
        session_id: Annotated[str | None, typer.Option(
            "--session-id", help="The session id the plugins see (default: replay-<file>-<time>-<pid>).")] = None,
    ) -> None:
        """Run a recorded session through the enabled plugins, as a host would, and show what they decided."""
        from . import common

        if not file.is_file():
            common.fail(f"{file}: " + ("is a directory" if file.is_dir() else "not a regular file" if file.exists()
                                       else "no such file"))
        try:
            entries = read_session(file)
        except (OSError, UnicodeDecodeError) as exc:
            common.fail(f"{file}: cannot read it: {exc}")
        expected = read_expect(expect) if expect is not None else None
        sid = session_id or default_session_id(file)
        from ..context import NoUI

        rt = common.runtime(session_id=sid, ui=NoUI(), has_ui=False)
        rt.host = "replay"
        common.report_load_errors(rt)
        with common.stdout_to_stderr():
            result = replay_entries(rt, entries, Progress(file))
        report_malformed(result)
        diffs = compare(result.steps, expected) if expected is not None else None
        if write_expect_to is not None:
            try:
                write_expect(write_expect_to, result.steps)
            except OSError as exc:
                common.fail(f"--write-expect {write_expect_to}: {exc.strerror or exc}")
        if json_:
            common.echo_json({
                "file": str(file), "session": sid, "plugins": rt.plugins,
                "steps": [s.to_dict() for s in result.steps], "summary": result.summary(),
                "messages": result.messages, "notifications": [list(n) for n in result.notifications],
                "reports": result.reports,
                **({"expect": {"file": str(expect), "differences": diffs}} if diffs is not None else {}),
            })
        else:
            print_report(common.console(), file, sid, result, diffs, expect)
        if diffs:
            raise typer.Exit(1)
        if result.malformed:
            raise typer.Exit(2)
