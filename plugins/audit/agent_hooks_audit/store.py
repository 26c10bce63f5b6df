"""The audit database: one SQLite file shared by every agent process of a user.

WAL mode and a busy timeout let several processes write at once (each record is one short
autocommit ``INSERT``; writers take turns on ``<db>.writers.lock`` first: :class:`_Turn`). A
record that cannot be written (the database is corrupt, locked past
the timeout, on a read-only disk) goes to ``<db>.pending.jsonl`` next to it instead and is moved
into the database by the next process that can write; the failure is reported as an
:class:`AuditError` with one clear line, and the host's hook call is not affected.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_hooks_core import AgentHooksError

if TYPE_CHECKING:
    from .backend import AuditBackend

COLUMNS = ("ts", "kind", "hook", "decision", "decided_by", "reason", "answered", "handlers", "errors",
           "error_count", "notes", "duration_ms", "host", "session", "cwd", "pid", "event", "result",
           "truncated", "uid")
#: columns holding JSON text
JSON_COLUMNS = ("answered", "handlers", "errors", "notes", "event", "result")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    ts REAL NOT NULL,              -- unix time
    kind TEXT NOT NULL,            -- hook | host_event
    hook TEXT NOT NULL,            -- the canonical hook, or the host's own event name
    decision TEXT,                 -- denied blocked modified allowed observed
    decided_by TEXT,               -- the plugin whose answer blocked or denied
    reason TEXT,
    answered TEXT,                 -- JSON list: plugins whose answer counted
    handlers TEXT,                 -- JSON list: plugins called
    errors TEXT,                   -- JSON list of {plugin, hook, message, kind}
    error_count INTEGER NOT NULL DEFAULT 0,
    notes TEXT,                    -- JSON list: runtime notes and plugins' audit_notes
    duration_ms REAL,
    host TEXT,
    session TEXT,
    cwd TEXT,
    pid INTEGER,
    event TEXT,                    -- JSON, redacted
    result TEXT,                   -- JSON, redacted
    truncated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_ts ON events(ts);
CREATE INDEX IF NOT EXISTS events_session ON events(session, id);
CREATE INDEX IF NOT EXISTS events_hook ON events(hook, id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""
#: versioned migrations, applied in order by the first process that opens an older file (``PRAGMA
#: user_version`` holds the version). Plain SQL, no migration tool: two tables, and the hook's
#: write path must not import one.
MIGRATIONS: list[tuple[int, str]] = [
    (1, _SCHEMA),
    # 2: a unique key per record, so a record kept pending and moved twice is stored once
    (2, "ALTER TABLE events ADD COLUMN uid TEXT;\n"
        "CREATE UNIQUE INDEX IF NOT EXISTS events_uid ON events(uid);"),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_INSERT = f"INSERT OR IGNORE INTO events ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
#: after a failure, how long records go straight to the pending file before the database is tried again
RETRY_AFTER = 10.0
PRUNE_EVERY = 3600.0
#: seconds a write waits for its turn among this database's writers (:class:`_Turn`)
TURN_WAIT = 0.05


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the file to :data:`SCHEMA_VERSION` under a write lock (processes may race); returns
    the version found."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for version, script in MIGRATIONS:
            if version > found:
                for statement in script.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found


def encode(record: dict[str, Any]) -> tuple[Any, ...]:
    """``record``'s values in :data:`COLUMNS` order (missing ones NULL), as both stores insert them."""
    return tuple(record.get(c) for c in COLUMNS)


def decode(names: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    """A selected row as a record, its JSON columns parsed (text that is not JSON left as it is)."""
    row = dict(zip(names, values, strict=True))
    for col in JSON_COLUMNS:
        if row.get(col) is not None:
            with contextlib.suppress(ValueError):
                row[col] = json.loads(row[col])
    return row


class AuditError(AgentHooksError):
    """The audit database cannot be used; ``str()`` is one line saying why and what to do."""


def describe(path: Path, exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text):
        return (f"audit database {path} is corrupt ({text}); move it aside or point [plugins.audit] db "
                f"(or AGENT_HOOKS_AUDIT_DB) elsewhere")
    if "locked" in text or "busy" in text:
        return f"audit database {path} is locked by another process ({text})"
    if isinstance(exc, OSError) or "unable to open" in text or "readonly" in text:
        return f"audit database {path} cannot be opened for writing ({text})"
    return f"audit database {path}: {type(exc).__name__}: {text}"


@dataclass
class Query:
    """What ``search``/``stats``/``export`` select."""

    hook: str | None = None
    plugin: str | None = None
    decision: str | None = None
    session: str | None = None
    since: float | None = None
    until: float | None = None
    after_id: int | None = None
    kinds: Sequence[str] = field(default_factory=tuple)

    def where(self, dialect: str = "sqlite") -> tuple[str, list[Any]]:
        """The WHERE clause and its arguments; ``dialect="pg"`` gives PostgreSQL's placeholders."""
        sql, args = self._where()
        if dialect == "pg":
            sql = sql.replace("instr(", "strpos(").replace("?", "%s")
        return sql, args

    def _where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        args: list[Any] = []
        if self.hook:
            clauses.append("hook = ?")
            args.append(self.hook)
        if self.plugin:
            clauses.append("(instr(handlers, ?) > 0 OR instr(answered, ?) > 0)")
            args += [json.dumps(self.plugin)] * 2
        if self.decision:
            clauses.append("decision = ?")
            args.append(self.decision)
        if self.session:
            clauses.append("session = ?")
            args.append(self.session)
        if self.since is not None:
            clauses.append("ts >= ?")
            args.append(self.since)
        if self.until is not None:
            clauses.append("ts < ?")
            args.append(self.until)
        if self.after_id is not None:
            clauses.append("id > ?")
            args.append(self.after_id)
        if self.kinds:
            clauses.append(f"kind IN ({', '.join('?' * len(self.kinds))})")
            args += list(self.kinds)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


class AuditStore:
    """One database file. Thread-safe; reopens after a fork."""

    def __init__(self, path: Path, busy_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.pending = self.path.with_name(self.path.name + ".pending.jsonl")
        self.busy_timeout = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.RLock()
        self._turns: _Turn | None = None
        self._down_until = 0.0
        self._down_reason = ""
        self.written = 0
        """records this process wrote (or kept pending)"""
        self.lost = 0
        """records this process could neither write nor keep pending"""
        self.lost_unrecorded = 0
        """of those, records no loss file could count either (counted in the database when it is back)"""

    # -- connection ---------------------------------------------------------------------------

    def _connect(self, create: bool = True) -> sqlite3.Connection:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                return self._conn
            if not create and not self.path.exists():
                raise AuditError(f"no audit database at {self.path} yet (nothing recorded)")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout, isolation_level=None,
                                       check_same_thread=False)
            except (OSError, sqlite3.Error) as exc:
                raise AuditError(describe(self.path, exc)) from None
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                    migrate(conn)
            except sqlite3.Error as exc:
                conn.close()
                raise AuditError(describe(self.path, exc)) from None
            self._conn, self._pid = conn, os.getpid()
            return conn

    @property
    def display(self) -> str:
        return str(self.path)

    def ensure(self) -> None:
        """Create the database (following an empty log: so the writers find it set up)."""
        if not self.path.exists():
            self._connect()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def describe(self, exc: BaseException) -> str:
        return describe(self.path, exc)

    # -- writing --------------------------------------------------------------------------------

    def add(self, record: dict[str, Any], retention_days: float | None = None) -> None:
        """Store one record; on failure keep it pending (or count it lost) and raise :class:`AuditError`."""
        row = encode(record)
        with self._lock:
            self.written += 1
            if time.monotonic() < self._down_until:
                raise AuditError(f"{self._down_reason}; {self._keep_pending(record)}")
            try:
                conn = self._connect()
                with self._turn():
                    if self._has_pending():
                        self._flush_pending(conn)
                    conn.execute(_INSERT, row)
                    if self.lost_unrecorded:
                        self._record_losses(conn)
                    if retention_days:
                        self._maybe_prune(conn, retention_days)
            except (AuditError, sqlite3.Error, OSError, ValueError) as exc:
                # ValueError: text SQLite cannot take (the recorder cleans it; this is the last guard)
                self._down_reason = str(exc) if isinstance(exc, AuditError) else describe(self.path, exc)
                self._down_until = time.monotonic() + RETRY_AFTER
                if not isinstance(exc, AuditError):
                    self.close()  # a corrupt file can look fine until the first write
                raise AuditError(f"{self._down_reason}; {self._keep_pending(record)}") from None

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """This process's turn among the database's writers, for one write (:class:`_Turn`)."""
        if self._turns is None or self._turns.pid != os.getpid():  # a parent's turn is not ours
            self._turns = _Turn(str(self.path) + ".writers.lock")
        got = self._turns.take(TURN_WAIT)
        try:
            yield
        finally:
            if got:
                self._turns.give_back()

    @property
    def pending_files(self) -> list[Path]:
        """Where records wait while the database cannot be written: next to it, else (a read-only
        directory) in the user state directory."""
        from .options import fallback_pending

        return [self.pending, fallback_pending(self.path)]

    def _keep_pending(self, record: dict[str, Any]) -> str:
        """Append ``record`` to the first pending file that takes it; returns what happened, truthfully."""
        line = json.dumps(record, ensure_ascii=False, default=str).encode("utf-8", "backslashreplace") + b"\n"
        failures = []
        for path in self.pending_files:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with _locked(path, "ab") as fh:
                    fh.write(line)
                return f"the event was kept in {path}"
            except OSError as exc:
                failures.append(f"{path}: {exc.strerror or exc}")
        from .losses import count_loss

        self.lost += 1
        counted = count_loss(self.path, "; ".join(failures))
        if counted is None:
            self.lost_unrecorded += 1
        where = f"counted in {counted}" if counted else "not counted: no loss file could be written either"
        return (f"the event was LOST: it could not be kept in {' nor in '.join(failures)} "
                f"({self.lost} lost by this process; {where})")

    def _record_losses(self, conn: sqlite3.Connection) -> None:
        """Count this process's lost records in the database (``audit stats`` shows the total)."""
        conn.execute("INSERT INTO meta (key, value) VALUES ('lost', ?) ON CONFLICT(key) DO UPDATE "
                     "SET value = CAST(CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER) AS TEXT)",
                     (str(self.lost_unrecorded),))
        self.lost_unrecorded = 0

    def _flush_pending(self, conn: sqlite3.Connection) -> int:
        """Move records kept while the database was unavailable into it, oldest file first; returns how many."""
        moved = 0
        for path in self.pending_files:
            moved += self._flush_file(conn, path)
        return moved

    def _flush_file(self, conn: sqlite3.Connection, path: Path) -> int:
        try:
            with _locked(path, "rb+") as fh:
                rows = []
                for line in fh.read().splitlines():
                    with contextlib.suppress(ValueError):
                        rows.append(encode(json.loads(line.decode("utf-8", "replace"))))
                if rows:
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        conn.executemany(_INSERT, rows)  # uid: a row moved before (crash before truncate) is skipped
                        conn.execute("COMMIT")
                    except sqlite3.Error:
                        conn.execute("ROLLBACK")
                        raise
                fh.seek(0)
                fh.truncate()
        except OSError:  # missing (nothing pending) or unreadable: left for a process that can
            return 0
        # the emptied file stays: a writer may hold it open, waiting for the lock
        return len(rows)

    def flush(self, timeout: float) -> bool:
        """Every record is written (or kept pending) before :meth:`add` returns: nothing to wait for."""
        return True

    def _has_pending(self) -> bool:
        for path in self.pending_files:
            try:
                if path.stat().st_size > 0:
                    return True
            except OSError:
                pass
        return False

    def flush_pending(self) -> int:
        with self._lock:
            if not self._has_pending():
                return 0
            try:
                return self._flush_pending(self._connect())
            except sqlite3.Error as exc:
                raise AuditError(describe(self.path, exc)) from None

    def pending_count(self) -> int:
        total = 0
        for path in self.pending_files:
            try:
                with open(path, "rb") as fh:
                    total += sum(1 for line in fh if line.strip())
            except OSError:
                pass
        return total

    def lost_count(self) -> int:
        """Records lost for good (no database, no pending file could take them): those counted in
        loss files by any process (:mod:`.losses`), in the database, and by this process alone."""
        from .losses import counted_losses

        recorded = 0
        with contextlib.suppress(AuditError, sqlite3.Error, TypeError, ValueError):
            row = self._connect(create=False).execute("SELECT value FROM meta WHERE key = 'lost'").fetchone()
            recorded = int(row[0]) if row else 0
        return recorded + counted_losses(self.path) + self.lost_unrecorded

    def _maybe_prune(self, conn: sqlite3.Connection, retention_days: float) -> None:
        now = time.time()
        row = conn.execute("SELECT value FROM meta WHERE key = 'last_prune'").fetchone()
        if row is not None and now - float(row[0]) < PRUNE_EVERY:
            return
        self.prune(retention_days, conn)

    def prune(self, older_than_days: float, conn: sqlite3.Connection | None = None) -> int:
        """Delete records older than ``older_than_days``; returns how many."""
        conn = conn or self._connect()
        now = time.time()
        try:
            cur = conn.execute("DELETE FROM events WHERE ts < ?", (now - older_than_days * 86400,))
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('last_prune', ?)", (str(now),))
        except sqlite3.Error as exc:
            raise AuditError(describe(self.path, exc)) from None
        return cur.rowcount

    # -- reading --------------------------------------------------------------------------------

    def rows(self, query: Query, *, limit: int | None = None, newest_first: bool = False) -> Iterator[dict[str, Any]]:
        where, args = query.where()
        order = "DESC" if newest_first else "ASC"
        sql = f"SELECT id, {', '.join(COLUMNS)} FROM events{where} ORDER BY id {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        try:
            pending = self._has_pending()
            conn = self._connect(create=pending)
            if pending:
                self._flush_pending(conn)
            cur = conn.execute(sql, args)
            names = [d[0] for d in cur.description]
            for values in cur:
                yield decode(names, values)
        except sqlite3.Error as exc:
            raise AuditError(describe(self.path, exc)) from None

    def last_session(self) -> str | None:
        try:
            row = self._connect(create=False).execute(
                "SELECT session FROM events WHERE session IS NOT NULL ORDER BY id DESC LIMIT 1").fetchone()
        except sqlite3.Error as exc:
            raise AuditError(describe(self.path, exc)) from None
        return row[0] if row else None

    def count(self, query: Query | None = None) -> int:
        where, args = (query or Query()).where()
        try:
            return int(self._connect(create=False).execute(f"SELECT count(*) FROM events{where}", args).fetchone()[0])
        except sqlite3.Error as exc:
            raise AuditError(describe(self.path, exc)) from None


class _Turn:
    """Writers of one database take turns on ``<db>.writers.lock`` (``flock``) before SQLite's own
    lock: SQLite's busy handler sleeps a millisecond and more between its retries, longer than a
    whole write here, so concurrent writers (the warm server's workers) would mostly sleep, while a
    process waiting in ``flock`` is woken the moment the last writer is done.

    Only a courtesy, and bounded: ``flock`` has no timeout, so a contended turn is waited for by a
    thread of this process's own while the writer waits at most ``seconds``; past that (a writer
    stopped while holding the turn), or without a lock file (a read-only directory, a link planted
    there, no ``fcntl``), the write goes ahead under SQLite's busy timeout as before. Callers are
    serialised by the store's lock: one take at a time."""

    def __init__(self, path: str) -> None:
        self.pid = os.getpid()
        try:
            import fcntl

            self._fcntl: Any = fcntl
            self.fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0),
                                          0o600)
        except (ImportError, OSError):
            self.fd = None
        self._state = threading.Lock()
        self._want = threading.Event()
        self._got = threading.Event()
        self._abandoned = False
        #: the waiter is in ``flock`` for a take that gave up on it: no new take waits for it
        self._stuck = False
        self._waiter: threading.Thread | None = None

    def take(self, seconds: float) -> bool:
        """True when this process holds the turn (give it back with :meth:`give_back`)."""
        if self.fd is None:
            return False
        try:
            self._fcntl.flock(self.fd, self._fcntl.LOCK_EX | self._fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError:  # no locks on this file system
            return False
        with self._state:
            if self._stuck:
                return False
            self._got.clear()
        if self._waiter is None:
            self._waiter = threading.Thread(target=self._wait, daemon=True, name="agent-hooks-audit-turn")
            self._waiter.start()
        self._want.set()
        if self._got.wait(seconds):
            return True
        with self._state:
            if self._got.is_set():  # it came as the wait ended
                return True
            self._abandoned = self._stuck = True
        return False

    def give_back(self) -> None:
        if self.fd is not None:
            self._fcntl.flock(self.fd, self._fcntl.LOCK_UN)

    def _wait(self) -> None:
        while True:
            self._want.wait()
            self._want.clear()
            try:
                self._fcntl.flock(self.fd, self._fcntl.LOCK_EX)
            except OSError:
                with self._state:
                    self._abandoned = self._stuck = False
                continue  # the take waiting for it gives up at its bound
            with self._state:
                if self._abandoned:  # too late for the write that asked: let the others have it
                    self._fcntl.flock(self.fd, self._fcntl.LOCK_UN)
                    self._abandoned = self._stuck = False
                else:
                    self._got.set()


@contextlib.contextmanager
def _locked(path: Path, mode: str) -> Iterator[Any]:
    """Open ``path`` holding an exclusive lock where the platform has one (POSIX ``flock``)."""
    fh = open(path, mode) if "b" in mode else open(path, mode, encoding="utf-8")  # noqa: SIM115
    try:
        try:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - Windows: best effort
            pass
        yield fh
    finally:
        fh.close()


_STORES: dict[tuple[Any, ...], AuditBackend] = {}
_STORES_LOCK = threading.Lock()


def is_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def store_for(target: str | Path, busy_timeout: float = 5.0, **pg_options: Any) -> AuditBackend:
    """The process-wide store of ``target``: a SQLite file (:class:`AuditStore`, one connection per
    database per process) or a ``postgresql://`` URL (:class:`agent_hooks_audit.pg.PgStore`, one
    pool and one background writer per process). Both answer the same calls: :class:`.backend.AuditBackend`."""
    key = (str(target), busy_timeout, *sorted(pg_options.items()))
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            if is_url(target):
                from .pg import PgStore

                store = PgStore(str(target), **pg_options)
            else:
                store = AuditStore(Path(target), busy_timeout)
            _STORES[key] = store
        return store
