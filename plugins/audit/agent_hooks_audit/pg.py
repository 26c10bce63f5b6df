"""The audit in PostgreSQL: the same records, schema, redaction, retention and commands as the
SQLite file, through psycopg 3 and its connection pool.

Writing never waits for the server, and no acknowledged record lives only in memory. ``add``
appends the (already redacted) record to a local SQLite **spool** (the state directory, one per
URL, shared by the user's processes) before it returns, so before the host gets its answer: a
process killed with ``kill -9`` right after answering loses nothing. One background thread per
process then moves the spool into the server oldest first, in batches, each in one transaction
(``INSERT ... ON CONFLICT (uid) DO NOTHING``, a PostgreSQL advisory lock letting one process move
at a time), and deletes what was committed. While the server cannot be reached (down,
restarting, slower than ``connect_timeout``) records wait in the spool; any process (or any
``audit`` command) moves them once it answers. Every record carries a ``uid``, unique in both
stores, so a batch committed just before a crash and moved again is still stored once: no row is
lost, none is stored twice. At exit the writer gets a short grace (``min(1 s, connect_timeout)``);
what it could not move stays in the spool for the next process.

Migrations: numbered SQL scripts (:data:`MIGRATIONS`) applied in order under an advisory lock by
the first process that connects, recorded in ``agent_hooks_audit.schema_version``. No migration
tool: two tables, and the hook's write path must not import SQLAlchemy/Alembic.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .store import COLUMNS, PRUNE_EVERY, AuditError, AuditStore, Query, decode, encode

#: what a postgresql:// URL without the driver says (the extra that installs it)
NEEDS_PSYCOPG = ("a postgresql:// URL needs the agent-hooks-audit[postgres] extra (psycopg), which is not "
                 "installed: `agenthooks plugins install 'psycopg[binary]>=3.2' 'psycopg-pool>=3.2'`")
SCHEMA = "agent_hooks_audit"
EVENTS = f"{SCHEMA}.events"
META = f"{SCHEMA}.meta"
MIGRATIONS: list[tuple[int, str]] = [
    (1, f"""CREATE TABLE IF NOT EXISTS {EVENTS} (
    id BIGSERIAL PRIMARY KEY,
    ts DOUBLE PRECISION NOT NULL,
    kind TEXT NOT NULL,
    hook TEXT NOT NULL,
    decision TEXT,
    decided_by TEXT,
    reason TEXT,
    answered TEXT,
    handlers TEXT,
    errors TEXT,
    error_count INTEGER NOT NULL DEFAULT 0,
    notes TEXT,
    duration_ms DOUBLE PRECISION,
    host TEXT,
    session TEXT,
    cwd TEXT,
    pid INTEGER,
    event TEXT,
    result TEXT,
    truncated INTEGER NOT NULL DEFAULT 0,
    uid TEXT UNIQUE
);
CREATE INDEX IF NOT EXISTS events_ts ON {EVENTS}(ts);
CREATE INDEX IF NOT EXISTS events_session ON {EVENTS}(session, id);
CREATE INDEX IF NOT EXISTS events_hook ON {EVENTS}(hook, id);
CREATE TABLE IF NOT EXISTS {META} (key TEXT PRIMARY KEY, value TEXT)"""),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_INSERT = (f"INSERT INTO {EVENTS} ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))}) "
           "ON CONFLICT (uid) DO NOTHING")
#: advisory lock keys (arbitrary constants): one for migrations, one for replaying spools
_MIGRATE_LOCK = 0x61676E74_0001
_REPLAY_LOCK = 0x61676E74_0002
BATCH = 500
#: seconds between tries while the server is unreachable
RETRY_AFTER = 1.0
_PASSWORD = re.compile(r"(?i)(://[^/\s:@]*:)[^/\s]*@|(password=)[^\s&]*")


def mask(url: str) -> str:
    """The URL with its password replaced, for messages and ``audit path``."""
    return _PASSWORD.sub(lambda m: f"{m.group(1)}***@" if m.group(1) else f"{m.group(2)}***", url)


def spool_path(url: str) -> Path:
    """The local SQLite file that holds records while ``url`` cannot be reached."""
    import hashlib

    from .options import state_dir

    digest = hashlib.sha256(url.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return state_dir() / "audit-spool" / f"pg-{digest}.db"


class Spool(AuditStore):
    """The local SQLite file records wait in until the server has them, read back oldest first."""

    def has_pending(self) -> bool:
        """Records wait in the spool's own pending files (the spool could not take them at the time)."""
        return self._has_pending()

    def head(self, limit: int) -> list[dict[str, Any]]:
        """The oldest ``limit`` records (raw columns), for replaying the spool in order."""
        with self._lock:  # the connection is shared with writers in other threads
            cur = self._connect().execute(f"SELECT {', '.join(COLUMNS)} FROM events ORDER BY id LIMIT {int(limit)}")
            return [dict(zip(COLUMNS, values, strict=True)) for values in cur]

    def delete_uids(self, uids: list[str]) -> None:
        """Remove replayed records (by uid: ids may be reused once the table was empty)."""
        with self._lock:
            conn = self._connect()
            for i in range(0, len(uids), 500):
                part = uids[i:i + 500]
                conn.execute(f"DELETE FROM events WHERE uid IN ({', '.join('?' * len(part))})", part)


class PgStore:
    """One PostgreSQL database: a pool, the local spool and a background writer per process."""

    def __init__(self, url: str, connect_timeout: float = 5.0, queue_size: int = 10000) -> None:
        self.url = url
        self.display = mask(url)
        self.connect_timeout = connect_timeout
        self.queue_size = queue_size  # accepted for older settings: records are spooled, not queued
        self.spool = Spool(spool_path(url))
        self.written = 0
        self.rejected = 0
        """records the server refused for their content (counted as lost)"""
        self.last_error = ""
        self._lock = threading.RLock()
        self._pid = 0
        self._pool: Any = None
        #: records this process spooled, and how many of them the writer has tried to move since
        self._added = 0
        self._settled = 0
        self._progress = threading.Condition()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._down_until = 0.0
        self._spooled = False
        self._migrated = False
        self._retention: float | None = None
        self._last_prune = float("-inf")

    # -- the pool ---------------------------------------------------------------------------

    def _fresh_process(self) -> None:
        """First use here, or a forked child: the parent's pool, queue and thread are not ours."""
        if self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._pool = None
        self._added = self._settled = 0
        self._progress = threading.Condition()
        self._wake = threading.Event()
        self._thread = None
        self._migrated = False
        self._spooled = self._spool_has_rows()
        atexit.register(self._at_exit, self._pid)

    def _open_pool(self) -> Any:
        with self._lock:
            self._fresh_process()
            if self._pool is None:
                try:
                    from psycopg_pool import ConnectionPool
                except ImportError:
                    raise AuditError(NEEDS_PSYCOPG) from None
                import logging

                # the pool logs each failed reconnect; with no logging set up Python would print them on
                # the bridge's stderr. The outage is reported by last_error, `audit stats` and the spool.
                logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
                ms = int(self.connect_timeout * 1000)
                self._pool = ConnectionPool(
                    self.url, min_size=1, max_size=4, open=False, timeout=self.connect_timeout,
                    check=ConnectionPool.check_connection, name="agent-hooks-audit",
                    kwargs={"autocommit": True, "connect_timeout": max(2, round(self.connect_timeout)),
                            "options": f"-c statement_timeout={ms} -c lock_timeout={ms}",
                            "application_name": "agent-hooks-audit"})
                self._pool.open(wait=False)
            return self._pool

    @contextlib.contextmanager
    def _conn(self) -> Iterator[Any]:
        """A pooled connection with the schema in place; any failure is an :class:`AuditError`."""
        try:
            import psycopg
        except ImportError:
            raise AuditError(NEEDS_PSYCOPG) from None
        try:
            with self._open_pool().connection() as conn:
                if not self._migrated:
                    migrate(conn)
                    self._migrated = True
                yield conn
        except psycopg.Error as exc:
            raise AuditError(self.describe(exc)) from None

    def describe(self, exc: BaseException) -> str:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return f"audit database {self.display} unavailable ({text})"

    # -- writing ----------------------------------------------------------------------------

    def add(self, record: dict[str, Any], retention_days: float | None = None) -> None:
        """Spool ``record`` (on disk before this returns) and wake the writer; never waits for the server.

        Raises :class:`AuditError` when the spool cannot take it either (it is then kept in a pending
        file or counted lost, as for a SQLite database)."""
        if not record.get("uid"):
            record = {**record, "uid": os.urandom(12).hex()}
        with self._lock:
            self._fresh_process()
            self.written += 1
            self._retention = retention_days
            self._spooled = True
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="agent-hooks-audit-pg", daemon=True)
                self._thread.start()
        try:
            self.spool.add(record)
        finally:
            with self._progress:
                self._added += 1
            self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait(timeout=RETRY_AFTER if self._spooled else None)
            self._wake.clear()
            with self._progress:
                target = self._added
            try:
                self._replay_quietly()
            except Exception as exc:  # the writer must outlive anything; the spool keeps the rows
                self._went_down(f"{type(exc).__name__}: {exc}")
            with self._progress:
                self._settled = max(self._settled, target)
                self._progress.notify_all()

    def _insert_rows(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows`` inside the caller's transaction; rows the server refuses for their content
        are counted lost one by one instead of stopping everything behind them."""
        import psycopg

        try:
            with conn.transaction(), conn.cursor() as cur:  # a savepoint: a refusal undoes only this
                cur.executemany(_INSERT, rows)
        except (psycopg.DataError, psycopg.IntegrityError, psycopg.ProgrammingError) as exc:
            self._insert_one_by_one(conn, rows, exc)

    def _insert_one_by_one(self, conn: Any, rows: list[tuple[Any, ...]], exc: Exception) -> None:
        """A batch the server refused for its content: keep every row it takes, count the rest lost
        (retrying them forever would stop everything behind them)."""
        import psycopg

        for row in rows:
            try:
                with conn.transaction():
                    conn.execute(_INSERT, row)
            except (psycopg.DataError, psycopg.IntegrityError, psycopg.ProgrammingError) as one:
                self.rejected += 1
                self.last_error = f"a record was refused by the server and dropped: {one}"
                with contextlib.suppress(psycopg.Error):
                    conn.execute(f"INSERT INTO {META} (key, value) VALUES ('lost', '1') ON CONFLICT (key) DO UPDATE "
                                 f"SET value = (CAST({META}.value AS BIGINT) + 1)::TEXT")
        del exc

    def _went_down(self, reason: str) -> None:
        self.last_error = reason
        self._down_until = time.monotonic() + RETRY_AFTER

    def _spool_has_rows(self) -> bool:
        if self.spool.has_pending():
            return True
        if not self.spool.path.exists():
            return False
        try:
            return self.spool.count() > 0
        except AuditError:
            return False

    def _replay_quietly(self) -> None:
        if time.monotonic() < self._down_until:
            return
        try:
            self._replay()
        except (AuditError, sqlite3.Error, OSError) as exc:
            self._went_down(str(exc))

    def _replay(self) -> int:
        """Move the spool into the server, oldest first, in chunks; returns how many rows it moved."""
        moved = 0
        with contextlib.suppress(AuditError):
            self.spool.flush_pending()  # records the spool itself could not take at the time
        if not self.spool.path.exists():
            self._spooled = self.spool.has_pending()
            return 0
        while True:
            with self._conn() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_REPLAY_LOCK,))
                try:  # read under the lock: a replayer that went first has already deleted its chunk
                    chunk = self.spool.head(BATCH)
                except sqlite3.Error as exc:
                    raise AuditError(f"audit spool {self.spool.path}: {exc}") from None
                if not chunk:
                    self._spooled = self.spool.has_pending()
                    self._maybe_prune(conn)
                    return moved
                self._insert_rows(conn, [encode(r) for r in chunk])
            # committed; a crash (or a failed delete) before this replays the chunk again, and uid skips it
            try:
                self.spool.delete_uids([r["uid"] for r in chunk])
            except sqlite3.Error as exc:
                raise AuditError(f"audit spool {self.spool.path}: {exc}") from None
            moved += len(chunk)

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until the writer has tried to move every record this process
        spooled (into the server, or it stays in the spool); True if it has."""
        deadline = time.monotonic() + timeout
        with self._progress:
            target = self._added
            while self._settled < target:
                if self._thread is None or not self._thread.is_alive():
                    return False
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._progress.wait(left)
        return True

    def _at_exit(self, pid: int) -> None:
        if pid != os.getpid() or self._thread is None:
            return
        self.flush(min(1.0, self.connect_timeout))  # what is not moved by then waits in the spool
        with contextlib.suppress(Exception):
            if self._pool is not None:
                self._pool.close(timeout=0.5)

    def _maybe_prune(self, conn: Any) -> None:
        if not self._retention or time.monotonic() - self._last_prune < PRUNE_EVERY:
            return
        self._last_prune = time.monotonic()
        row = conn.execute(f"SELECT value FROM {META} WHERE key = 'last_prune'").fetchone()
        if row is None or time.time() - float(row[0]) >= PRUNE_EVERY:
            self._prune(conn, self._retention)

    # -- the commands -----------------------------------------------------------------------

    def ensure(self) -> None:
        with self._conn():
            pass

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._pid == os.getpid():
                self._pool.close(timeout=1.0)
            self._pool = None
            self._pid = 0

    def flush_pending(self) -> int:
        """Write what this process queued and what any process spooled; returns rows moved from the spool."""
        if self._thread is not None:
            self.flush(self.connect_timeout * 2)
        return self._replay()

    @property
    def pending_files(self) -> list[Path]:
        return [self.spool.path, *self.spool.pending_files]

    def pending_count(self) -> int:
        spooled = 0
        if self.spool.path.exists():
            with contextlib.suppress(AuditError):
                spooled = self.spool.count()
        return spooled + self.spool.pending_count()

    def lost_count(self) -> int:
        recorded = 0
        with contextlib.suppress(AuditError, TypeError, ValueError), self._conn() as conn:
            row = conn.execute(f"SELECT value FROM {META} WHERE key = 'lost'").fetchone()
            recorded = int(row[0]) if row else 0
        return recorded + self.spool.lost_count()

    def rows(self, query: Query, *, limit: int | None = None, newest_first: bool = False) -> Iterator[dict[str, Any]]:
        with contextlib.suppress(AuditError):
            self.flush_pending()  # what waits in the spool is shown too, once the server is back
        where, args = query.where("pg")
        order = "DESC" if newest_first else "ASC"
        sql = f"SELECT id, {', '.join(COLUMNS)} FROM {EVENTS}{where} ORDER BY id {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._conn() as conn, conn.cursor() as cur:
            cur.execute(sql, args)
            names = [d.name for d in cur.description]
            fetched = cur.fetchall()
        for values in fetched:
            yield decode(names, values)

    def count(self, query: Query | None = None) -> int:
        where, args = (query or Query()).where("pg")
        with self._conn() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {EVENTS}{where}", args).fetchone()[0])

    def last_session(self) -> str | None:
        with self._conn() as conn:
            row = conn.execute(f"SELECT session FROM {EVENTS} WHERE session IS NOT NULL "
                               "ORDER BY id DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def prune(self, older_than_days: float) -> int:
        with self._conn() as conn:
            return self._prune(conn, older_than_days)

    def _prune(self, conn: Any, older_than_days: float) -> int:
        now = time.time()
        with conn.transaction():
            cur = conn.execute(f"DELETE FROM {EVENTS} WHERE ts < %s", (now - older_than_days * 86400,))
            conn.execute(f"INSERT INTO {META} (key, value) VALUES ('last_prune', %s) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(now),))
        return int(cur.rowcount)


def migrate(conn: Any) -> int:
    """Apply the migrations this database lacks, under an advisory lock; returns the version found."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        conn.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.schema_version "
                     "(version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
        found = int(conn.execute(f"SELECT coalesce(max(version), 0) FROM {SCHEMA}.schema_version").fetchone()[0])
        for version, script in MIGRATIONS:
            if version > found:
                for statement in script.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"INSERT INTO {SCHEMA}.schema_version VALUES (%s, %s)", (version, time.time()))
    return found
