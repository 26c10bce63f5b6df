"""agent-hooks-audit: what it records, redaction, concurrency, failures, settings and commands."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import queue
import sqlite3
import subprocess
import sys
import threading
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import agent_hooks_audit
import agent_hooks_guard
import pytest
from agent_hooks_audit import store as store_mod
from agent_hooks_audit.cli import compute_stats, parse_time
from agent_hooks_audit.config import AuditConfig
from agent_hooks_audit.options import DEFAULTS, db_path, default_db
from agent_hooks_core import Runtime, hookimpl
from agent_hooks_core.cli.app import run


def audit_rt(db: Path, config: dict[str, Any] | None = None, *extra: Any, **kw: Any) -> Runtime:
    plugins = [*extra, ("audit", agent_hooks_audit)]
    kw.setdefault("session_id", "s1")
    return Runtime(plugins=plugins, plugin_config={"audit": {"db": str(db), **(config or {})}}, **kw)


def rows(db: Path, where: str = "") -> list[dict[str, Any]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(f"SELECT * FROM events {where} ORDER BY id")]
    finally:
        conn.close()


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "arguments": {"command": command}}


class Broken:
    __name__ = "broken"

    @hookimpl
    def pre_tool_output(self, event: Any) -> None:
        raise RuntimeError("boom with token=abcdefghijklmnop")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "audit.db"


@pytest.fixture
def no_retry_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_mod, "RETRY_AFTER", 0.0)


# -- what is recorded ------------------------------------------------------------------------


def test_every_hook_call_is_recorded_with_its_outcome(db: Path, tmp_path: Path) -> None:
    rt = audit_rt(db, None, ("guard", agent_hooks_guard), ("broken", Broken()), cwd=str(tmp_path), host="pi")
    rt.fire("session_start", {"reason": "startup"})
    rt.fire("pre_tool", bash("ls"))
    rt.fire("pre_tool", bash("rm -rf ~"))
    rt.fire("pre_file_read", {"path": ".env"})
    rt.fire("pre_tool_output", {"tool_name": "bash", "output": "ok"})
    got = rows(db)
    assert [(r["hook"], r["decision"]) for r in got] == [
        ("session_start", "observed"), ("pre_tool", "allowed"), ("pre_tool", "blocked"),
        ("pre_file_read", "denied"), ("pre_tool_output", "allowed")]
    blocked = got[2]
    assert blocked["decided_by"] == "guard" and json.loads(blocked["answered"]) == ["guard"]
    assert "[guard:rm-broad]" in blocked["reason"]
    assert json.loads(blocked["handlers"]) == ["guard"]
    assert json.loads(blocked["event"]) == bash("rm -rf ~")
    assert json.loads(blocked["result"])["block"] is True
    assert all(r["host"] == "pi" and r["session"] == "s1" and r["cwd"] == str(tmp_path) for r in got)
    assert all(r["pid"] == os.getpid() and r["duration_ms"] >= 0 and r["kind"] == "hook" for r in got)
    failed = got[4]
    assert failed["error_count"] == 1
    error = json.loads(failed["errors"])[0]
    assert error["plugin"] == "broken" and "boom" in error["message"]
    assert "abcdefghijklmnop" not in error["message"]


def test_host_events_are_recorded(db: Path) -> None:
    rt = audit_rt(db)
    rt.call_runtime_hook("host_event", host="claude-code", name="Notification",
                         payload={"message": "Claude needs your permission", "api_key": "k-123456"})
    (row,) = rows(db)
    assert (row["kind"], row["hook"], row["host"], row["decision"]) == ("host_event", "Notification", "claude-code",
                                                                         "observed")
    assert json.loads(row["event"]) == {"message": "Claude needs your permission", "api_key": "[REDACTED:key]"}


def test_observe_mode_notes_reach_the_record_and_the_stats(db: Path) -> None:
    rt = audit_rt(db, None, ("guard", agent_hooks_guard))
    rt.set_config("guard", {"mode": "observe"})
    out = rt.fire("pre_tool", bash("sudo ls"))
    assert out.decision == "allowed"
    (row,) = rows(db)
    assert json.loads(row["notes"]) == [{"plugin": "guard", "kind": "would_block",
                                         "text": "privilege escalation (sudo) [guard:sudo]"}]
    assert "audit_notes" not in json.loads(row["event"])
    stats = compute_stats(store_mod.AuditStore(db).rows(store_mod.Query()))
    assert stats["by_plugin"] == [{"plugin": "guard", "hook": "pre_tool", "calls": 1, "answered": 0, "blocked": 0,
                                   "denied": 0, "modified": 0, "errors": 0, "would_block": 1}]


# -- redaction -------------------------------------------------------------------------------

SECRETS = [
    "AKIAIOSFODNN7EXAMPLE",                                  # AWS access key id
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",              # AWS secret (after aws_secret_access_key=)
    "ghp_" + "x7Yq" * 9,                                     # GitHub token
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv",
    "sk-proj-" + "Q9w_" * 8,                                 # OpenAI
    "sk-ant-api03-" + "Zz9-" * 10,                           # Anthropic
    "xoxb-2048-4096-abcdefghijklmnop",                       # Slack
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",  # inside a private key block
    "hunter2hunter2",                                        # password=
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXBhcnQ",  # JWT
    "abcd1234efgh5678ijkl",                                  # bearer token
    "dbpass-9876",                                           # URL password
    "s3cr3t-value",                                          # a secret-looking key
]


def test_secrets_never_reach_the_database_file(db: Path) -> None:
    command = (f"AWS_ACCESS_KEY_ID={SECRETS[0]} aws_secret_access_key={SECRETS[1]} "
               f"git clone https://x:{SECRETS[2]}@github.com/o/r && curl -H 'Authorization: Bearer {SECRETS[10]}' "
               f"postgres://app:{SECRETS[11]}@db/app --password={SECRETS[8]}")
    output = (f"GH={SECRETS[3]}\nOPENAI={SECRETS[4]}\nANTHROPIC={SECRETS[5]}\nslack: {SECRETS[6]}\n"
              f"-----BEGIN RSA PRIVATE KEY-----\n{SECRETS[7]}\n-----END RSA PRIVATE KEY-----\njwt {SECRETS[9]}")
    rt = audit_rt(db)
    rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command, "client_secret": SECRETS[12]}})
    rt.fire("pre_tool_output", {"tool_name": "bash", "output": output})
    rt.fire("pre_message", {"prompt": f"my key is {SECRETS[4]}"})
    store_mod.store_for(db).close()  # checkpoint the WAL into the file
    raw = b"".join(p.read_bytes() for p in db.parent.glob("audit.db*"))
    leaked = [s for s in SECRETS if s.encode() in raw]
    assert leaked == []
    stored = json.loads(rows(db)[1]["event"])["output"]
    for name in ("github-token", "openai-key", "anthropic-key", "slack-token", "private-key", "jwt"):
        assert f"[REDACTED:{name}]" in stored


def test_extra_patterns_and_keys_from_settings(db: Path) -> None:
    rt = audit_rt(db, {"redact_patterns": [r"EMP-\d{6}"], "redact_keys": ["ssn"]})
    rt.fire("pre_message", {"prompt": "employee EMP-123456", "ssn": "078-05-1120"})
    event = json.loads(rows(db)[0]["event"])
    assert event == {"prompt": "employee [REDACTED:pattern-1]", "ssn": "[REDACTED:key]"}


def test_long_payloads_are_cut_without_leaving_half_a_secret(db: Path) -> None:
    secret = "sk-ant-api03-" + "k" * 60
    rt = audit_rt(db, {"max_payload_chars": 1000})
    rt.fire("pre_tool_output", {"tool_name": "read", "output": "x" * 990 + " " + secret + " tail" * 5000})
    (row,) = rows(db)
    assert row["truncated"] == 1 and len(row["event"]) < 1300
    assert "sk-ant" not in row["event"] and "kkkk" not in row["event"]


def test_record_payloads_off_and_exclude_hooks(db: Path) -> None:
    rt = audit_rt(db, {"record_payloads": False, "exclude_hooks": ["message_update"]})
    rt.fire("message_update", {"message": {"text": "streaming"}})
    rt.fire("pre_message", {"prompt": "hello"})
    (row,) = rows(db)
    assert row["hook"] == "pre_message" and row["event"] is None and row["decision"] == "allowed"


# -- several processes, failures ---------------------------------------------------------------


def test_four_processes_writing_500_events_each_lose_nothing(db: Path) -> None:
    from tests.plugins.audit_worker import fire_events

    mp = multiprocessing.get_context("spawn")
    barrier, errors = mp.Barrier(4), mp.Queue()
    procs = [mp.Process(target=fire_events, args=(str(db), i, 500, barrier, errors)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert sorted(errors.get(timeout=5) for _ in procs) == [(0, 0), (1, 0), (2, 0), (3, 0)]
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 2000
        per = dict(conn.execute("SELECT session, count(DISTINCT json_extract(event, '$.arguments.command')) "
                                "FROM events GROUP BY session").fetchall())
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    assert per == {f"worker-{i}": 500 for i in range(4)}


def test_a_corrupt_database_never_breaks_the_hook_call_and_nothing_is_lost(db: Path, no_retry_delay: None) -> None:
    db.write_bytes(b"this is not a database, it is a text file " * 100)
    rt = audit_rt(db, None, ("guard", agent_hooks_guard))
    out = rt.fire("pre_tool", bash("rm -rf /"))
    assert out.decision == "blocked" and out.answered == ["guard"]
    (err,) = out.errors
    assert err.plugin == "audit" and err.hook == "hook_called"
    assert "corrupt" in err.message and str(db) in err.message and "pending" in err.message
    assert rt.fire("pre_tool", bash("ls")).decision == "allowed"
    db.rename(db.with_suffix(".corrupt"))  # what the message says to do
    rt.fire("pre_message", {"prompt": "next"})
    assert [(r["hook"], r["decision"]) for r in rows(db)] == [
        ("pre_tool", "blocked"), ("pre_tool", "allowed"), ("pre_message", "allowed")]


def test_a_locked_database_delays_then_keeps_the_record_pending(db: Path, no_retry_delay: None) -> None:
    rt = audit_rt(db, {"busy_timeout": 0.2})
    rt.fire("pre_message", {"prompt": "first"})
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        out = rt.fire("pre_message", {"prompt": "while locked"})
        assert time.monotonic() - start < 5
        assert out.decision == "allowed"
        assert len(out.errors) == 1 and "locked" in out.errors[0].message
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    rt.fire("pre_message", {"prompt": "after"})
    assert [json.loads(r["event"])["prompt"] for r in rows(db)] == ["first", "while locked", "after"]


def test_commands_on_a_corrupt_database_say_so_in_one_line(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db.write_bytes(b"garbage" * 1000)
    assert run(["audit", "stats", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("agenthooks: error: audit database") and "corrupt" in err


def test_retention_prunes_old_records(db: Path) -> None:
    rt = audit_rt(db, {"retention_days": 30})
    rt.fire("pre_message", {"prompt": "now"})
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE events SET ts = ts - 40 * 86400")
    conn.execute("DELETE FROM meta")
    conn.close()
    rt.fire("pre_message", {"prompt": "later"})  # the first write after an hour prunes
    assert [json.loads(r["event"])["prompt"] for r in rows(db)] == ["later"]


# -- settings ----------------------------------------------------------------------------------


def test_where_the_database_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _isolated_home: Path) -> None:
    assert default_db() == _isolated_home / "audit.db"
    assert db_path({"db": "logs/a.db"}, str(tmp_path)) == tmp_path / "logs" / "a.db"
    monkeypatch.setenv("AGENT_HOOKS_AUDIT_DB", str(tmp_path / "env.db"))
    assert db_path({"db": "logs/a.db"}, str(tmp_path)) == tmp_path / "env.db"
    monkeypatch.delenv("AGENT_HOOKS_HOME")
    monkeypatch.delenv("AGENT_HOOKS_AUDIT_DB")
    assert default_db().name == "audit.db" and "agent-hooks" in str(default_db())


def test_default_database_under_agent_hooks_home(_isolated_home: Path) -> None:
    rt = Runtime(plugins=[("audit", agent_hooks_audit)], session_id="x")
    rt.fire("pre_message", {"prompt": "hi"})
    assert len(rows(_isolated_home / "audit.db")) == 1


def test_config_model() -> None:
    assert AuditConfig().model_dump() == DEFAULTS
    assert agent_hooks_audit.plugin_config_model() is AuditConfig
    with pytest.raises(ValueError, match="pre_tol"):
        AuditConfig(exclude_hooks=["pre_tol"])
    with pytest.raises(ValueError, match="retention_days"):
        AuditConfig(retention_days=-1)


def test_an_invalid_settings_section_is_reported_by_discovery(tmp_path: Path, _isolated_home: Path) -> None:
    (_isolated_home / "settings.toml").write_text('[plugins.audit]\nretention_days = "forever"\n')
    rt = Runtime.from_settings(cwd=str(tmp_path))
    assert "audit" not in rt.plugins
    assert any(e.plugin == "audit" and "retention_days" in e.message for e in rt.load_errors)


def test_declared_as_an_entry_point_and_cheap_to_import() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group="agent_hooks")}
    assert eps.get("audit") == "agent_hooks_audit"
    code = ("import sys, agent_hooks_audit\n"
            "print(sorted(m for m in ('sqlite3', 'pydantic', 'typer', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- commands ----------------------------------------------------------------------------------


@pytest.fixture
def filled(db: Path) -> Path:
    rt = audit_rt(db, None, ("guard", agent_hooks_guard), session_id="alpha")
    for command in ("ls", "sudo ls", "git push -f origin main"):
        rt.fire("pre_tool", bash(command))
    rt.fire("pre_file_write", {"path": ".env"})
    rt.fire("pre_tool_output", {"tool_name": "bash", "output": "AKIAIOSFODNN7EXAMPLE"})
    beta = audit_rt(db, None, session_id="beta")
    beta.fire("pre_message", {"prompt": "hi"})
    return db


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    return code, capsys.readouterr().out


def test_stats_counts_decisions_and_blocks_per_plugin(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "audit", "stats", "--db", str(filled), "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["total"] == 6 and stats["sessions"] == 2
    assert stats["decisions"] == {"denied": 1, "blocked": 2, "modified": 1, "allowed": 2, "observed": 0}
    guard = {r["hook"]: r for r in stats["by_plugin"] if r["plugin"] == "guard"}
    assert guard["pre_tool"]["blocked"] == 2 and guard["pre_tool"]["calls"] == 3
    assert guard["pre_file_write"]["denied"] == 1 and guard["pre_tool_output"]["modified"] == 1
    code, out = cli(capsys, "audit", "stats", "--db", str(filled), "--session", "last")
    assert code == 0 and "1 events in 1 session(s)" in out and "1 allowed" in out


def test_search_filters(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def search(*args: str) -> list[dict[str, Any]]:
        code, out = cli(capsys, "audit", "search", "--db", str(filled), "--json", *args)
        assert code == 0
        return [json.loads(line) for line in out.splitlines()]

    assert [r["decision"] for r in search("--hook", "pre_tool")] == ["allowed", "blocked", "blocked"]
    assert [r["hook"] for r in search("--decision", "denied")] == ["pre_file_write"]
    assert {r["session"] for r in search("--session", "beta")} == {"beta"}
    assert len(search("--plugin", "guard")) == 5
    assert search("--plugin", "nobody") == []
    assert len(search("--since", "1h")) == 6 and search("--until", "1h") == []
    assert len(search("--limit", "2")) == 2
    code, out = cli(capsys, "audit", "search", "--db", str(filled), "--hook", "pre_tool")
    assert code == 0 and "force-push to main [guard:force-push]" in out  # reasons are not eaten as markup


def test_export_jsonl_and_csv(filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "audit", "export", "--db", str(filled), "--format", "jsonl", "--session", "alpha")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(records) == 5 and records[1]["answered"] == ["guard"]
    assert "AKIAIOSFODNN7EXAMPLE" not in out
    target = tmp_path / "audit.csv"
    assert run(["audit", "export", "--db", str(filled), "--format", "csv", "-o", str(target)]) == 0
    table = list(csv.DictReader(io.StringIO(target.read_text())))
    assert len(table) == 6 and table[0]["hook"] == "pre_tool" and json.loads(table[1]["answered"]) == ["guard"]
    assert run(["audit", "export", "--db", str(filled), "--format", "xml"]) == 2
    assert run(["audit", "export", "--db", str(filled), "-o", str(tmp_path / "no" / "dir.jsonl")]) == 2


def test_bad_filters_are_one_line_errors(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", "search", "--db", str(filled), "--since", "yesterday-ish"]) == 2
    assert run(["audit", "search", "--db", str(filled), "--decision", "maybe"]) == 2
    assert run(["audit", "stats", "--db", str(filled.parent / "missing.db")]) == 2
    err = capsys.readouterr().err
    assert "cannot read the time" in err and "--decision must be one of" in err and "no audit database" in err


def test_parse_time() -> None:
    now = 1_000_000.0
    assert parse_time("30m", now) == now - 1800 and parse_time("2d", now) == now - 172800
    assert parse_time("1700000000", now) == 1_700_000_000.0
    assert parse_time("2026-05-01T10:00:00+00:00") == 1777629600.0


def test_tail_prints_the_last_records(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "audit", "tail", "--db", str(filled), "-n", "2", "--no-follow", "--json")
    assert code == 0 and [json.loads(line)["session"] for line in out.splitlines()] == ["alpha", "beta"]


def test_tail_follows_new_records(db: Path) -> None:
    rt = audit_rt(db)
    rt.fire("pre_message", {"prompt": "before"})
    proc = subprocess.Popen([sys.executable, "-m", "agent_hooks_core", "audit", "tail", "--db", str(db), "--json",
                             "--interval", "0.05"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        assert json.loads(lines.get(timeout=30))["event"]["prompt"] == "before"
        rt.fire("pre_message", {"prompt": "after"})
        assert json.loads(lines.get(timeout=30))["event"]["prompt"] == "after"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_path_and_prune(filled: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_HOOKS_AUDIT_DB", str(filled))
    assert cli(capsys, "audit", "path") == (0, f"{filled}\n")
    code, out = cli(capsys, "audit", "prune", "--older-than", "0")
    assert code == 0 and out.startswith("deleted 6 records")
    assert rows(filled) == []


def test_the_path_command_follows_the_settings(tmp_path: Path, _isolated_home: Path,
                                               capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    (_isolated_home / "settings.toml").write_text(f'[plugins.audit]\ndb = "{tmp_path / "team.db"}"\n')
    monkeypatch.chdir(tmp_path)
    assert cli(capsys, "audit", "path") == (0, f"{tmp_path / 'team.db'}\n")


def test_session_summary_for_replay(db: Path) -> None:
    rt = audit_rt(db, session_id="replay-x")
    rt.fire("pre_message", {"prompt": "a"})
    rt.fire("pre_message", {"prompt": "b"})
    line = agent_hooks_audit.session_summary(rt.context("audit"))
    assert line == f"audit log: {db} (2 records for this session; `agenthooks audit stats --session replay-x`)"
