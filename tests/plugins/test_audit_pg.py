"""agent-hooks-audit on a real PostgreSQL server (Debian's postgresql, started by the suite; see
tests/support/postgres.py): the same records and commands as SQLite, a spool while the server is
away, no row lost and none twice across a restart, and no secret in the database."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import agent_hooks_audit
import agent_hooks_guard
import pytest
from agent_hooks_audit import pg as pg_mod
from agent_hooks_audit import store as store_mod
from agent_hooks_core import Runtime
from agent_hooks_core.cli.app import run

from tests.support.postgres import PostgresServer, find_bindir

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg (agent-hooks-audit[postgres])")

WORKER = Path(__file__).with_name("audit_worker.py")


@pytest.fixture(scope="session")
def server() -> Iterator[PostgresServer]:
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql")
    srv = PostgresServer(bindir).start()
    try:
        yield srv
    finally:
        srv.cleanup()


@pytest.fixture
def url(server: PostgresServer, request: pytest.FixtureRequest, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh database per test, and a spool directory of its own."""
    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50]
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / "home"))
    yield server.url.rsplit("/", 1)[0] + "/" + name
    for key in [k for k in store_mod._STORES if str(k[0]).startswith("postgresql://")]:
        store_mod._STORES.pop(key).close()


def pg_rows(url: str, where: str = "") -> list[dict[str, Any]]:
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute(f"SELECT * FROM {pg_mod.EVENTS} {where} ORDER BY id")
        names = [d.name for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def audit_rt(target: dict[str, Any], *extra: Any, **kw: Any) -> Runtime:
    kw.setdefault("session_id", "s1")
    return Runtime(plugins=[*extra, ("audit", agent_hooks_audit)], plugin_config={"audit": target}, **kw)


def store(url: str, connect_timeout: float = 5.0, queue_size: int = 10000) -> Any:
    """The process's store for ``url`` under these settings (the one the recorder writes through)."""
    return store_mod.store_for(url, 5.0, connect_timeout=connect_timeout, queue_size=queue_size)


def fire_some(rt: Runtime) -> None:
    for command in ("ls", "sudo ls", "git push -f origin main", "rm -rf ~"):
        rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    rt.fire("pre_file_write", {"path": ".env"})
    rt.fire("pre_message", {"prompt": "hello"})


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert run(list(args)) == 0
    out = capsys.readouterr().out
    try:
        return json.loads(out)
    except ValueError:
        return [json.loads(line) for line in out.splitlines()]


def test_the_same_records_and_commands_as_sqlite(url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "audit.db"
    fire_some(audit_rt({"db": str(db)}, ("guard", agent_hooks_guard)))
    fire_some(audit_rt({"url": url}, ("guard", agent_hooks_guard)))
    store(url).flush_pending()
    for args in (["stats", "--json"], ["search", "--json", "--decision", "blocked"], ["export", "--json"],
                 ["tail", "--no-follow", "--json", "-n", "3"], ["search", "--json", "--plugin", "guard"]):
        lite = cli_json(capsys, "audit", *args, "--db", str(db))
        pg = cli_json(capsys, "audit", *args, "--db", url)
        if isinstance(lite, dict):
            assert {**lite, "db": None} == {**pg, "db": None}
            assert pg["total"] == 6 and pg["decisions"]["blocked"] + pg["decisions"]["denied"] == 4
        else:
            keep = ("kind", "hook", "decision", "decided_by", "reason", "answered", "handlers", "errors", "event",
                    "result", "session", "host")
            assert [{k: r[k] for k in keep} for r in lite] == [{k: r[k] for k in keep} for r in pg]
            assert pg
    assert run(["audit", "path", "--db", url]) == 0
    assert capsys.readouterr().out.strip() == url


def test_the_url_comes_from_the_settings_or_the_environment(url: str, monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setenv("AGENT_HOOKS_AUDIT_URL", url)
    audit_rt({"db": str(tmp_path / "ignored.db")}).fire("pre_message", {"prompt": "via env"})
    store(url).flush_pending()
    assert [json.loads(r["event"])["prompt"] for r in pg_rows(url)] == ["via env"]
    assert not (tmp_path / "ignored.db").exists()


def test_secrets_never_reach_the_server(url: str) -> None:
    secrets = ["hunter2hunter2", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "ghp_" + "x7Yq" * 9, "Sup3rRedisPw"]
    rt = audit_rt({"url": url}, session_id=f"s-{secrets[2]}")
    rt.fire("pre_tool", {"tool_name": "bash", "arguments": {
        "command": f"redis-cli -u redis://:{secrets[3]}@cache/0 && echo {secrets[1]}", "password": secrets[0],
        secrets[2]: "as a key"}})
    store(url).flush_pending()
    with psycopg.connect(url) as conn:
        dump = json.dumps(conn.execute(f"SELECT * FROM {pg_mod.EVENTS}").fetchall(), default=str)
    assert dump.count("REDACTED") >= 4
    assert [s for s in secrets if s in dump] == []


def test_retention_and_prune(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    rt = audit_rt({"url": url, "retention_days": 90})
    rt.fire("pre_message", {"prompt": "first"})
    st = store(url)
    st.flush_pending()
    with psycopg.connect(url) as conn:
        conn.execute(f"UPDATE {pg_mod.EVENTS} SET ts = ts - 100 * 86400")  # now 100 days old
        conn.execute(f"DELETE FROM {pg_mod.META} WHERE key = 'last_prune'")
    st._last_prune = float("-inf")
    rt.fire("pre_message", {"prompt": "second"})  # the writer prunes (at most hourly)
    st.flush_pending()
    assert [json.loads(r["event"])["prompt"] for r in pg_rows(url)] == ["second"]
    with psycopg.connect(url) as conn:
        conn.execute(f"UPDATE {pg_mod.EVENTS} SET ts = ts - 10 * 86400")
    assert run(["audit", "prune", "--older-than", "5", "--db", url]) == 0
    assert capsys.readouterr().out.startswith("deleted 1 records older than 5 days")
    assert pg_rows(url) == []


def test_migrations_are_versioned_and_applied_once(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        assert pg_mod.migrate(conn) == 0
        assert pg_mod.migrate(conn) == pg_mod.SCHEMA_VERSION
        versions = conn.execute(f"SELECT version FROM {pg_mod.SCHEMA}.schema_version").fetchall()
    assert versions == [(v,) for v, _ in pg_mod.MIGRATIONS]


def test_a_stopped_server_spools_locally_and_replays_in_order(
        url: str, server: PostgresServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_mod, "RETRY_AFTER", 0.05)
    rt = audit_rt({"url": url, "connect_timeout": 2})
    rt.fire("pre_message", {"prompt": "0"})
    st = store(url, connect_timeout=2.0)
    assert st.flush(10)
    server.stop()
    try:
        started = time.monotonic()
        for i in range(1, 6):
            assert rt.fire("pre_message", {"prompt": str(i)}).errors == []
        assert time.monotonic() - started < 1.0  # the agent never waits for the server
        assert st.flush(20)
        assert st.pending_count() == 5 and st.spool.count() == 5
    finally:
        server.start()
    rt.fire("pre_message", {"prompt": "6"})  # behind the spool, not before it
    st.flush_pending()
    assert [json.loads(r["event"])["prompt"] for r in pg_rows(url)] == [str(i) for i in range(7)]
    assert st.pending_count() == 0


def test_a_server_that_never_answers_does_not_slow_the_agent(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sink = socket.socket()
    sink.bind(("127.0.0.1", 0))
    sink.listen(16)  # accepts connections (the kernel does) and never says a word
    try:
        dead = f"postgresql://agenthooks@127.0.0.1:{sink.getsockname()[1]}/postgres"
        rt = audit_rt({"url": dead, "connect_timeout": 2})
        started = time.monotonic()
        for i in range(50):
            rt.fire("pre_message", {"prompt": str(i)})
        # an event that waited for the server would take 2 s each (100 s): bounded far below, whatever the load
        assert time.monotonic() - started < 30.0
        st = store(dead, connect_timeout=2.0)
        assert st.flush(30)
        assert st.spool.count() == 50 and "unavailable" in st.last_error
    finally:
        sink.close()


def test_a_bridge_process_exits_promptly_and_spools_what_it_could_not_send(tmp_path: Path) -> None:
    sink = socket.socket()
    sink.bind(("127.0.0.1", 0))
    sink.listen(16)  # a server that never answers: the worst case for a process about to exit
    try:
        dead = f"postgresql://agenthooks@127.0.0.1:{sink.getsockname()[1]}/postgres"
        code = ("import agent_hooks_audit\nfrom agent_hooks_core import Runtime\n"
                f"rt = Runtime(plugins=[('audit', agent_hooks_audit)], plugin_config={{'audit': {{'url': {dead!r}, "
                "'connect_timeout': 10}})\n"
                "for i in range(5): rt.fire('pre_message', {'prompt': str(i)})\n")
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=tmp_path)
        # the writer gets at most 1 s at exit, not the 10 s connect_timeout; the rest is interpreter start-up
        assert time.monotonic() - started < 8
        spool = store_mod.AuditStore(pg_mod.spool_path(dead))
        assert sorted(r["event"]["prompt"] for r in spool.rows(store_mod.Query())) == list("01234")
    finally:
        sink.close()


def test_every_answered_record_is_on_disk_while_the_writer_is_stuck(url: str) -> None:
    st = store(url)
    gate = threading.Event()
    real = st._insert_rows

    def stuck(conn: Any, rows: list[tuple[Any, ...]]) -> None:
        gate.wait(30)
        real(conn, rows)

    st._insert_rows = stuck
    rt = audit_rt({"url": url})
    started = time.monotonic()
    for i in range(20):
        assert rt.fire("pre_message", {"prompt": str(i)}).errors == []
    assert time.monotonic() - started < 5.0  # the agent never waits for the server
    assert st.spool.count() == 20  # each one was spooled before its hook call returned
    gate.set()
    st.flush_pending()
    assert sorted(int(json.loads(r["event"])["prompt"]) for r in pg_rows(url)) == list(range(20))
    assert st.spool.count() == 0


def test_kill_9_after_answering_loses_nothing(url: str, tmp_path: Path) -> None:
    """A process that answered and is then killed with SIGKILL: every record it answered for is
    stored once the spool is moved, although its writer never reached the server."""
    store(url).ensure()  # the schema exists, so the lock below holds back the child's writer
    code = ("import sys, agent_hooks_audit\nfrom agent_hooks_core import Runtime\n"
            f"rt = Runtime(plugins=[('audit', agent_hooks_audit)], plugin_config={{'audit': {{'url': {url!r}, "
            "'connect_timeout': 30}}, session_id='k9')\n"
            "for i in range(25):\n"
            "    assert rt.fire('pre_message', {'prompt': str(i)}).errors == []\n"
            "print('answered', flush=True)\n"
            "sys.stdin.read()\n")
    with psycopg.connect(url) as holder:
        holder.execute(f"LOCK TABLE {pg_mod.EVENTS} IN ACCESS EXCLUSIVE MODE")  # no insert gets through
        child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        try:
            assert child.stdout is not None
            line = child.stdout.readline()
            assert line == "answered\n", child.stderr.read() if child.stderr else ""
        finally:
            child.kill()  # SIGKILL: no atexit, no flush, nothing the process could still do
            child.communicate(timeout=30)
        assert child.returncode == -9
        holder.rollback()
    assert pg_rows(url) == []  # the child's writer never wrote
    st = store(url)
    st.flush_pending()
    rows = pg_rows(url)
    assert sorted(int(json.loads(r["event"])["prompt"]) for r in rows) == list(range(25))
    assert len({r["uid"] for r in rows}) == 25 and st.pending_count() == 0


@pytest.mark.slow
def test_eight_processes_and_a_restart_lose_nothing_and_store_nothing_twice(
        url: str, server: PostgresServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workers, count = 8, 1000
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, str(WORKER), url, str(w), str(count)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for w in range(workers)]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    deadline = time.monotonic() + 60
    before = 0
    while time.monotonic() < deadline:  # restart once a quarter of the events are in
        with psycopg.connect(url) as conn:
            try:
                before = conn.execute(f"SELECT count(*) FROM {pg_mod.EVENTS}").fetchone()[0]
            except psycopg.errors.UndefinedTable:
                pass
        if before >= workers * count // 4:
            break
        time.sleep(0.02)
    server.restart()
    assert workers * count // 4 <= before < workers * count  # the restart fell in the middle
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and "Traceback" not in err and "Exception" not in err, err
        assert out.strip() == "0", err  # no hook call saw an audit error
    spooled = store(url).pending_count()
    print(f"rows before the restart: {before}; left in the spool by the workers: {spooled}", file=sys.stderr)
    assert run(["audit", "stats", "--json", "--db", url]) == 0, capsys.readouterr().err
    stats = json.loads(capsys.readouterr().out)  # the command replayed what the workers spooled
    assert stats["total"] == workers * count and stats["pending"] == 0 and stats["lost"] == 0
    rows = pg_rows(url)
    assert len(rows) == workers * count and len({r["uid"] for r in rows}) == workers * count
    by_worker: dict[str, list[int]] = {}
    for r in rows:
        w, i = json.loads(r["event"])["arguments"]["command"].split()[1].split("-")
        by_worker.setdefault(w, []).append(int(i))
    assert all(seq == list(range(count)) for seq in by_worker.values())  # each worker's events in order
    assert len(by_worker) == workers
    assert "hunter2" not in json.dumps(rows, default=str)
