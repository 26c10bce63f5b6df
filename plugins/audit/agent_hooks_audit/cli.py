"""``agenthooks audit ...``: read the audit database.

Every command takes ``--db PATH``; without it the database is the one the hooks write to
(``$AGENT_HOOKS_AUDIT_DB``, else ``[plugins.audit] db`` in the settings, else the default).
Filters shared by ``tail``, ``search``, ``stats`` and ``export``: ``--hook``, ``--plugin``,
``--decision``, ``--session`` (``last`` = the most recent one), ``--since``/``--until`` (a date,
``2026-05-01T10:00``, a unix time, or an age: ``30m``, ``2h``, ``7d``).
"""

from __future__ import annotations

import csv
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from .backend import AuditBackend
from .store import COLUMNS, AuditError, Query

DECISIONS = ("denied", "blocked", "modified", "allowed", "observed")
STAT_COLUMNS = ("calls", "answered", "blocked", "denied", "modified", "errors", "would_block")


# -- option parsing -------------------------------------------------------------------------------


def parse_time(text: str | None, now: float | None = None) -> float | None:
    if text is None:
        return None
    now = time.time() if now is None else now
    t = text.strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smhdw])", t)
    if m:
        return now - float(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
    if re.fullmatch(r"\d{9,}(?:\.\d+)?", t):
        return float(t)
    try:
        return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise AuditError(f"cannot read the time {text!r}: use 2026-05-01, 2026-05-01T10:00, a unix time "
                         f"or an age like 30m, 2h, 7d") from None


@dataclass
class Filters:
    hook: str | None
    plugin: str | None
    decision: str | None
    session: str | None
    since: str | None
    until: str | None

    def query(self, store: AuditBackend) -> Query:
        if self.decision and self.decision not in DECISIONS:
            raise AuditError(f"--decision must be one of {', '.join(DECISIONS)}, not {self.decision!r}")
        session = store.last_session() if self.session == "last" else self.session
        if self.session == "last" and session is None:
            raise AuditError("--session last: no session recorded yet")
        return Query(hook=self.hook, plugin=self.plugin, decision=self.decision, session=session,
                     since=parse_time(self.since), until=parse_time(self.until))


HookOpt = Annotated[str | None, typer.Option("--hook", help="Only this hook (or host event name).")]
PluginOpt = Annotated[str | None, typer.Option("--plugin", help="Only calls this plugin took part in.")]
DecisionOpt = Annotated[str | None, typer.Option("--decision", metavar="DECISION",
                                                  help="Only this decision: " + ", ".join(DECISIONS) + ".")]
SessionOpt = Annotated[str | None, typer.Option("--session", help="Only this session id; `last` = the latest.")]
SinceOpt = Annotated[str | None, typer.Option("--since", help="From this time or age (2026-05-01, 2h, 7d).")]
UntilOpt = Annotated[str | None, typer.Option("--until", help="Before this time or age.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
DbOpt = Annotated[str | None, typer.Option("--db", metavar="PATH|URL",
                                           help="The audit database to read: a SQLite file or postgresql://...")]


def resolve_store(db: str | None, ctx: typer.Context | None = None) -> AuditBackend:
    """The database ``--db`` names, else the one the hooks write to under the current settings."""
    from .options import resolve, target
    from .store import store_for

    if db:
        from .store import is_url

        return store_for(db if is_url(db) else Path(db).expanduser().absolute())
    config: Any = {}
    root = ctx.find_root().obj if ctx is not None else None
    cwd = getattr(root, "cwd", None)
    import os

    if not (os.environ.get("AGENT_HOOKS_AUDIT_DB") or os.environ.get("AGENT_HOOKS_AUDIT_URL")):
        from agent_hooks_core import Runtime

        rt = Runtime.from_settings(cwd=cwd, settings_path=getattr(root, "settings_path", None),
                                   hook_paths=getattr(root, "hook_paths", ()))
        if "audit" in rt.plugins:
            config = rt.context("audit").config
    resolved = resolve(config)
    return store_for(target(resolved, cwd), float(resolved["busy_timeout"]))


# -- rendering ------------------------------------------------------------------------------------


def _console() -> Any:
    from agent_hooks_core.cli import console

    return console()  # the terminal's width, else $COLUMNS, else 160


def _time(ts: float) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")


_STYLE = {"blocked": "bold red", "denied": "bold red", "modified": "yellow", "allowed": "green",
          "observed": "dim"}


def _styled(decision: str) -> str:
    from rich.markup import escape

    style = _STYLE.get(decision)
    return f"[{style}]{decision}[/]" if style else escape(decision)


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _plugins(row: dict[str, Any]) -> str:
    answered = row.get("answered") or []
    return ", ".join(answered) if isinstance(answered, list) else str(answered)


def _notes(row: dict[str, Any]) -> str:
    notes = row.get("notes") or []
    texts = []
    for n in notes if isinstance(notes, list) else [notes]:
        texts.append(f"{n.get('plugin')}: {n.get('kind')}: {n.get('text')}" if isinstance(n, dict) else str(n))
    return "; ".join(texts)


def row_json(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "time": datetime.fromtimestamp(row["ts"]).isoformat(timespec="milliseconds"), **row}


def print_rows(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        for row in rows:
            sys.stdout.write(json.dumps(row_json(row), ensure_ascii=False, default=str) + "\n")
        return
    from agent_hooks_core.cli import Column, print_table
    from rich.text import Text

    # readable at 80 columns: a table when it fits, else one record per event (cells are literal text)
    columns = [Column("id", right=True), Column("time"), Column("hook"), Column("decision"), Column("ms", right=True),
               Column("session", text=True), Column("answered", text=True), Column("detail", text=True)]
    table = []
    for row in rows:
        errs = "; ".join(f"{e['plugin']}: {e['message']}" for e in row.get("errors") or [] if isinstance(e, dict))
        detail = " | ".join(x for x in (row.get("reason") or "", errs, _notes(row)) if x)
        decision = row.get("decision") or ""
        table.append([str(row["id"]), _time(row["ts"]), row["hook"], Text(decision, style=_STYLE.get(decision, "")),
                      f"{row.get('duration_ms') or 0:.1f}", row.get("session") or "", _plugins(row), detail])
    print_table(columns, table, _console())


def compute_stats(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Totals by decision, and per (plugin, hook): calls, answered, blocked, denied, modified,
    errors and would_block (observe-mode notes)."""
    decisions: Counter[str] = Counter()
    per: dict[tuple[str, str], Counter[str]] = {}
    total = errors = 0
    sessions: set[str] = set()

    def bump(plugin: str, hook: str, what: str) -> None:
        per.setdefault((plugin, hook), Counter())[what] += 1

    for row in rows:
        total += 1
        decision, hook = row.get("decision") or "", row["hook"]
        decisions[decision] += 1
        if row.get("session"):
            sessions.add(row["session"])
        answered = row.get("answered") or []
        for plugin in row.get("handlers") or []:
            bump(plugin, hook, "calls")
        for plugin in answered:
            bump(plugin, hook, "answered")
            if decision == "modified":
                bump(plugin, hook, "modified")
        if decision in ("blocked", "denied"):
            bump(row.get("decided_by") or "(no handler)", hook, decision)
        for err in row.get("errors") or []:
            errors += 1
            bump(err.get("plugin", "?") if isinstance(err, dict) else "?", hook, "errors")
        for note in row.get("notes") or []:
            if isinstance(note, dict) and str(note.get("kind", "")).startswith("would_"):
                bump(str(note.get("plugin", "?")), hook, "would_block")
    by_plugin = [{"plugin": p, "hook": h, **{c: counts[c] for c in STAT_COLUMNS}}
                 for (p, h), counts in sorted(per.items())]
    return {"total": total, "sessions": len(sessions), "decisions": {d: decisions[d] for d in DECISIONS},
            "errors": errors, "by_plugin": by_plugin}


def print_stats(stats: dict[str, Any], store: AuditBackend) -> None:
    from agent_hooks_core.cli import Column, print_table, say
    from rich.text import Text

    console = _console()
    d = stats["decisions"]
    say(console, f"{stats['total']} events in {stats['sessions']} session(s) — " + ", ".join(
        f"{d[k]} {k}" for k in DECISIONS) + f"; {stats['errors']} errors   [dim]({_esc(store.display)})[/]")
    if stats.get("unavailable"):
        console.print(f"[yellow]{_esc(str(stats['unavailable']))}[/]")
    if stats.get("pending"):
        say(console, f"[yellow]{stats['pending']} records pending[/] (not yet in the database: "
                     + _esc(" / ".join(str(p) for p in store.pending_files)) + ")")
    if stats.get("lost"):
        say(console, f"[bold red]{stats['lost']} records lost[/] (neither the database nor a pending file "
                     "could be written)")
    if not stats["by_plugin"]:
        return
    columns = [Column("plugin"), Column("hook"),
               *(Column(c.replace("_", " "), right=True) for c in STAT_COLUMNS)]
    table = [[row["plugin"], row["hook"], *(
        Text(str(row[c]), style="bold red") if c in ("blocked", "denied", "errors") and row[c] else str(row[c])
        for c in STAT_COLUMNS)] for row in stats["by_plugin"]]
    print_table(columns, table, console)  # readable at 80 columns (cells are literal text)


# -- the commands -------------------------------------------------------------------------------


def make_app() -> typer.Typer:
    app = typer.Typer(help="The audit log of every hook call (agent-hooks-audit).", no_args_is_help=True)

    @app.command("path")
    def path_cmd(ctx: typer.Context, db: DbOpt = None) -> None:
        """Print where the audit database is."""
        store = resolve_store(db, ctx)
        print(store.display)

    @app.command("tail")
    def tail_cmd(
        ctx: typer.Context, db: DbOpt = None,
        lines: Annotated[int, typer.Option("-n", "--lines", min=0, help="Show the last N records first.")] = 10,
        follow: Annotated[bool, typer.Option("--follow/--no-follow", help="Keep printing new records.")] = True,
        interval: Annotated[float, typer.Option("--interval", help="Seconds between polls.")] = 0.5,
        hook: HookOpt = None, plugin: PluginOpt = None, decision: DecisionOpt = None, session: SessionOpt = None,
        since: SinceOpt = None, until: UntilOpt = None, as_json: JsonOpt = False,
    ) -> None:
        """Show the latest records and follow new ones (Ctrl-C stops)."""
        store = resolve_store(db, ctx)
        query = Filters(hook, plugin, decision, session, since, until).query(store)
        store.ensure()  # following an empty log: create it so the writers find it set up
        rows = list(store.rows(query, limit=lines, newest_first=True))[::-1]
        emit = _line_printer(as_json)
        for row in rows:
            emit(row)
        last = rows[-1]["id"] if rows else 0
        while follow:
            time.sleep(interval)
            query.after_id = last
            for row in store.rows(query):
                emit(row)
                last = row["id"]

    @app.command("search")
    def search_cmd(
        ctx: typer.Context, db: DbOpt = None, hook: HookOpt = None, plugin: PluginOpt = None,
        decision: DecisionOpt = None, session: SessionOpt = None, since: SinceOpt = None, until: UntilOpt = None,
        limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many (the newest).")] = 50,
        as_json: JsonOpt = False,
    ) -> None:
        """Find records by hook, plugin, decision, session and time."""
        store = resolve_store(db, ctx)
        query = Filters(hook, plugin, decision, session, since, until).query(store)
        rows = list(store.rows(query, limit=limit, newest_first=True))[::-1]
        print_rows(rows, as_json)

    @app.command("stats")
    def stats_cmd(
        ctx: typer.Context, db: DbOpt = None, hook: HookOpt = None, plugin: PluginOpt = None,
        decision: DecisionOpt = None, session: SessionOpt = None, since: SinceOpt = None, until: UntilOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Counts per decision, and blocks, denials and errors per plugin and hook."""
        from .store import AuditError

        store = resolve_store(db, ctx)
        query = Filters(hook, plugin, decision, session, since, until).query(store)
        try:
            stats = compute_stats(store.rows(query))
        except AuditError as exc:
            if not (store.lost_count() or store.pending_count()):
                raise
            # no database (yet): what is pending or was lost must still be shown
            stats = compute_stats([])
            stats["unavailable"] = str(exc)
        stats["db"] = store.display
        # what is not in the database: waiting in a pending file, or lost for good (counted, not hidden)
        stats["pending"] = store.pending_count()
        stats["lost"] = store.lost_count()
        if as_json:
            sys.stdout.write(json.dumps(stats, indent=2) + "\n")
        else:
            print_stats(stats, store)

    @app.command("export")
    def export_cmd(
        ctx: typer.Context, db: DbOpt = None,
        fmt: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
        output: Annotated[str | None, typer.Option("--output", "-o", help="Write here (default: stdout).")] = None,
        hook: HookOpt = None, plugin: PluginOpt = None, decision: DecisionOpt = None, session: SessionOpt = None,
        since: SinceOpt = None, until: UntilOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="JSON lines (the same as --format jsonl).")] = False,
    ) -> None:
        """Write the records (oldest first) as JSON lines or CSV."""
        if as_json:
            if fmt not in ("jsonl", "json"):
                raise AuditError(f"--json and --format {fmt} disagree: pick one")
            fmt = "jsonl"
        if fmt not in ("jsonl", "csv"):
            raise AuditError(f"--format must be jsonl or csv, not {fmt!r}")
        store = resolve_store(db, ctx)
        query = Filters(hook, plugin, decision, session, since, until).query(store)
        try:
            out = open(output, "w", encoding="utf-8", newline="") if output else sys.stdout  # noqa: SIM115
        except OSError as exc:
            raise AuditError(f"--output {output}: {exc.strerror or exc}") from None
        try:
            export(store.rows(query), fmt, out)
        finally:
            if output:
                out.close()

    @app.command("report")
    def report_cmd(
        ctx: typer.Context,
        html_file: Annotated[str, typer.Option("--html", metavar="FILE", help="Write the page here.")],
        db: DbOpt = None, hook: HookOpt = None, plugin: PluginOpt = None, decision: DecisionOpt = None,
        session: SessionOpt = None, since: SinceOpt = None, until: UntilOpt = None,
    ) -> None:
        """A self-contained HTML page: calls, blocks and latency per hook and plugin over time."""
        from .report import render, report_data

        store = resolve_store(db, ctx)
        query = Filters(hook, plugin, decision, session, since, until).query(store)
        data = report_data(store.rows(query))
        try:
            Path(html_file).write_text(render(data, store.display), encoding="utf-8")
        except OSError as exc:
            raise AuditError(f"--html {html_file}: {exc.strerror or exc}") from None
        print(f"wrote {html_file} ({data['stats']['total']} calls)")

    @app.command("browse")
    def browse_cmd(
        ctx: typer.Context, db: DbOpt = None,
        host: Annotated[str, typer.Option("--host", help="Address to serve on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to serve on.")] = 8001,
        open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open a browser.")] = True,
        get: Annotated[str | None, typer.Option("--get", metavar="PATH",
                                                help="Print datasette's answer for PATH and exit.")] = None,
    ) -> None:
        """Browse the audit log in datasette (pip install 'agent-hooks-audit[browse]')."""
        import importlib.util
        import os
        import subprocess

        from .browse import command
        from .options import state_dir
        from .store import AuditStore

        store = resolve_store(db, ctx)
        if not isinstance(store, AuditStore):
            raise AuditError("audit browse reads the SQLite store; for PostgreSQL use its own tools, or "
                             "`agenthooks audit export` / `audit report`")
        if importlib.util.find_spec("datasette") is None:
            raise AuditError("audit browse needs datasette: pip install 'agent-hooks-audit[browse]'")
        store.ensure()
        meta = state_dir() / "datasette" / f"{store.path.stem}-metadata.json"
        try:
            meta.parent.mkdir(parents=True, exist_ok=True)
            args = command(store.path, meta, host, port, open_browser, get)
        except OSError as exc:
            raise AuditError(f"cannot write datasette's metadata {meta}: {exc.strerror or exc}") from None
        if get:
            code = subprocess.call(args)
            if code:
                raise typer.Exit(code)
            return
        print(f"serving {store.path} on http://{host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        # become datasette: Ctrl-C and kill reach the server itself, no orphan is left behind
        os.execv(args[0], args)

    @app.command("prune")
    def prune_cmd(
        ctx: typer.Context, db: DbOpt = None,
        older_than: Annotated[float, typer.Option("--older-than", metavar="DAYS",
                                                  help="Delete records older than this.")] = 90.0,
    ) -> None:
        """Delete old records now (the hooks do it hourly per retention_days)."""
        store = resolve_store(db, ctx)
        print(f"deleted {store.prune(older_than)} records older than {older_than:g} days from {store.display}")

    return app


def _line_printer(as_json: bool) -> Any:
    from agent_hooks_core.cli import say

    console = None if as_json else _console()

    def emit(row: dict[str, Any]) -> None:
        if as_json:
            sys.stdout.write(json.dumps(row_json(row), ensure_ascii=False, default=str) + "\n")
            sys.stdout.flush()
            return
        decision = row.get("decision") or ""
        detail = row.get("reason") or _notes(row)
        assert console is not None
        say(console, f"{_time(row['ts'])}  {_esc(row.get('session') or '-')}  {_esc(row['hook'])}  "
                     f"{_styled(decision)}  {_esc(_plugins(row))}  {_esc(detail)}".rstrip())
        sys.stdout.flush()

    return emit


def export(rows: Iterable[dict[str, Any]], fmt: str, out: Any) -> int:
    n = 0
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row_json(row), ensure_ascii=False, default=str) + "\n")
            n += 1
        return n
    writer = csv.writer(out)
    writer.writerow(["id", "time", *COLUMNS])
    for row in rows:
        data = row_json(row)
        writer.writerow([data["id"], data["time"], *(
            json.dumps(data[c], ensure_ascii=False, default=str) if isinstance(data[c], (list, dict)) else data[c]
            for c in COLUMNS)])
        n += 1
    return n
