"""agent-hooks-audit under hostile input: text SQLite cannot take, a
directory that cannot be written, and secrets in every shape and place."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import agent_hooks_audit
import pytest
from agent_hooks_audit import store as store_mod
from agent_hooks_core import Runtime
from agent_hooks_core.cli.app import run
from agent_hooks_core.secret_formats import Redactor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def audit_rt(db: Path, **kw: Any) -> Runtime:
    kw.setdefault("session_id", "s1")
    return Runtime(plugins=[("audit", agent_hooks_audit)], plugin_config={"audit": {"db": str(db)}}, **kw)


def stored(db: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY id")]
    finally:
        conn.close()


def raw_bytes(db: Path) -> bytes:
    store_mod.store_for(db).close()  # checkpoint the WAL into the file
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "audit.db"


# -- 17.8: text that cannot be encoded still makes a row ------------------------------------------

SURROGATE_EVENTS = [
    ("value", {"tool_name": "bash", "arguments": {"command": "rm -rf x\ud800"}}),
    ("key", {"tool_name": "bash", "arguments": {"command": "ls", "k\udfff": 1}}),
    ("surrogateescape", {"tool_name": "bash", "arguments": {"command": b"cat \xff\xfe".decode("utf-8", "surrogateescape")}}),
    ("tool name", {"tool_name": "ba\udc80sh", "arguments": {"command": "ls"}}),
]


@pytest.mark.parametrize(("where", "event"), SURROGATE_EVENTS, ids=[w for w, _ in SURROGATE_EVENTS])
def test_a_lone_surrogate_anywhere_still_writes_the_row(db: Path, where: str, event: dict[str, Any]) -> None:
    out = audit_rt(db, session_id="sess\ud800ion").fire("pre_tool", event)
    assert out.errors == []
    (row,) = stored(db)
    assert row["session"] == "sess\\ud800ion"  # the evidence is kept, escaped
    assert "\\\\u" in row["event"] or "\\\\x" in row["event"] or "\ufffd" in row["event"] or "\\u" in row["event"]
    json.loads(row["event"])


def test_a_surrogate_through_the_bridge_is_recorded_and_exported(db: Path, tmp_path: Path) -> None:
    payload = ('{"hook_event_name":"PreToolUse","session_id":"s\\ud800","tool_name":"Bash",'
               '"tool_input":{"command":"echo \\udc80"}}')
    env = {**os.environ, "AGENT_HOOKS_AUDIT_DB": str(db), "PYTHONIOENCODING": "utf-8"}
    subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", "--event", "PreToolUse"],
                   input=payload, text=True, capture_output=True, env=env, cwd=tmp_path, check=True, timeout=60)
    out = subprocess.run([sys.executable, "-m", "agent_hooks_core", "audit", "export", "--json", "--db", str(db)],
                         capture_output=True, text=True, env=env, check=True, timeout=60)
    exported = [json.loads(line) for line in out.stdout.splitlines()]
    assert exported and all(r["session"] == "s\\ud800" for r in exported)
    assert exported[0]["event"]["arguments"]["command"] == "echo \\udc80"


# -- 17.9: a directory that cannot be written -----------------------------------------------------


def blocked_dir(tmp_path: Path, name: str) -> Path:
    """A directory path nobody can create, root included: its parent is a regular file."""
    (tmp_path / name).write_text("not a directory\n")
    return tmp_path / name / "dir"


def test_unwritable_audit_dir_keeps_events_in_the_state_dir_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "home"
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(state))
    monkeypatch.setattr(store_mod, "RETRY_AFTER", 0.0)
    db = blocked_dir(tmp_path, "ro") / "audit.db"
    out = audit_rt(db).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls"}})
    (err,) = out.errors
    kept = store_mod.store_for(db).pending_files[1]
    assert f"the event was kept in {kept}" in err.message
    assert kept.is_relative_to(state) and len(kept.read_text().splitlines()) == 1
    assert not store_mod.store_for(db).pending.exists()
    # the directory becomes writable: the next write moves the kept record in first
    (tmp_path / "ro").unlink()
    audit_rt(db).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "pwd"}})
    assert [json.loads(r["event"])["arguments"]["command"] for r in stored(db)] == ["ls", "pwd"]
    assert kept.read_text() == ""


def test_nowhere_to_write_is_reported_as_lost_and_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(blocked_dir(tmp_path, "home")))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(blocked_dir(tmp_path, "run")))  # no loss file either
    monkeypatch.setattr(store_mod, "RETRY_AFTER", 0.0)
    db = blocked_dir(tmp_path, "ro") / "audit.db"
    rt = audit_rt(db)
    for _ in range(3):
        (err,) = rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls"}}).errors
        assert "the event was LOST" in err.message and "the event was kept" not in err.message
    assert "(3 lost by this process; not counted" in err.message  # the database counts them once it is back
    (tmp_path / "ro").unlink()
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path))  # the CLI reads its settings from there
    assert rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls"}}).errors == []
    assert run(["audit", "stats", "--db", str(db), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["total"] == 1 and stats["lost"] == 3 and stats["pending"] == 0
    assert run(["audit", "stats", "--db", str(db)]) == 0
    assert "3 records lost" in capsys.readouterr().out


def test_a_record_moved_twice_is_stored_once(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rt = audit_rt(db)
    rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls"}})
    (row,) = stored(db)
    # a process died after moving the pending file into the database but before emptying it
    record = {k: row[k] for k in store_mod.COLUMNS}
    store_mod.store_for(db).pending.write_text(json.dumps(record) + "\n")
    assert store_mod.store_for(db).flush_pending() == 1
    assert len(stored(db)) == 1


def test_an_old_database_is_migrated_in_place(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.executescript(store_mod.MIGRATIONS[0][1] + "PRAGMA user_version = 1;")
    conn.execute("INSERT INTO events (ts, kind, hook) VALUES (?, 'hook', 'pre_tool')", (time.time(),))
    conn.commit()
    conn.close()
    audit_rt(db).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls"}})
    got = stored(db)
    assert len(got) == 2 and got[0]["uid"] is None and got[1]["uid"]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store_mod.SCHEMA_VERSION
    conn.close()


# -- 17.11: secrets, in every shape and place -----------------------------------------------------

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PGP_BODY = "lQOYBGXyZ1gBCADJk3ExampleSecretKeyMaterial0123456789abcd"
#: (name, text carrying the secret, the secret)
SECRET_CASES = [
    ("bare AWS secret key", f"the key is {AWS_SECRET} ok", AWS_SECRET),
    ("PGP private key block", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PGP_BODY}\n=abcd\n"
                              "-----END PGP PRIVATE KEY BLOCK-----", PGP_BODY),
    ("redis empty user", "redis-cli -u redis://:Sup3rRedisPw@cache:6379/0", "Sup3rRedisPw"),
    ("password with @", "psql postgres://app:p@ss@word9@db.internal/app", "p@ss@word9"),
    ("curl -u", "curl -u admin:CurlPw-2024 https://api.example.com", "CurlPw-2024"),
    ("curl --user=", "curl --user=admin:CurlPw-2025 https://api.example.com", "CurlPw-2025"),
    ("mysql -p", "mysql -h db -u root -pMyS3cretPw appdb", "MyS3cretPw"),
    ("export DB_PASS", "export DB_PASS=hunter2pass && ./run", "hunter2pass"),
    ("JSON DB_PASS", '{"DB_PASS": "jsonPassValue1"}', "jsonPassValue1"),
]


@pytest.mark.parametrize(("name", "text", "secret"), SECRET_CASES, ids=[c[0] for c in SECRET_CASES])
def test_each_secret_shape_is_redacted_in_the_text(name: str, text: str, secret: str) -> None:
    clean = Redactor().text(text)
    assert secret not in clean and "[REDACTED" in clean


def test_what_is_not_a_secret_stays() -> None:
    r = Redactor()
    for text in ("git checkout 3f786850e387550fdab836ed7e6dc881de23001b", "bypass=1 compass: north",
                 "mysql --port 3306 -u root", "https://example.com:8080/a@b", "max_tokens: 4096"):
        assert r.text(text) == text


def test_secrets_as_dict_keys_in_session_id_and_under_secret_keys_never_reach_the_file(db: Path) -> None:
    secrets = [AWS_SECRET, "ghp_" + "k2Lm" * 9, "nestedPw-77", "4815162342", "listToken-abc"]
    event = {
        "tool_name": "bash",
        "arguments": {"command": "env", secrets[1]: "used as a key", "DB_PASS": {"v": secrets[2]},
                      "pin_password": 4815162342, "api_token": [secrets[4]]},
    }
    out = audit_rt(db, session_id=f"sess-{secrets[1]}", host="pi").fire("pre_tool", event)
    assert out.errors == []
    raw = raw_bytes(db)
    assert [s for s in secrets if s.encode() in raw] == []
    (row,) = stored(db)
    assert row["session"] == "sess-[REDACTED:github-token]"
    args = json.loads(row["event"])["arguments"]
    assert args["[REDACTED:github-token]"] == "used as a key"
    assert args["DB_PASS"] == {"v": "[REDACTED:key]"} and args["pin_password"] == "[REDACTED:key]"


def test_two_secret_keys_redacted_alike_keep_both_values() -> None:
    clean, _ = Redactor().value({"ghp_" + "a1" * 18: 1, "ghp_" + "b2" * 18: 2}, 10_000)
    assert sorted(clean.values()) == [1, 2]


def test_hostile_nesting_is_cut_not_a_crash(db: Path) -> None:
    deep: Any = "rm -rf ~"
    for _ in range(5000):
        deep = [deep]
    audit_rt(db).fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls", "x": deep}})
    (row,) = stored(db)
    assert row["truncated"] == 1 and "nested deeper than" in row["event"]


# hypothesis: any JSON, with a secret planted anywhere (a value, a key, inside text) -> never stored raw

PLANTED = [AWS_SECRET, "sk-ant-api03-" + "Zz9-" * 10, "AKIAIOSFODNN7EXAMPLE", "xoxb-2048-4096-abcdefghijklmnop",
           "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXBhcnQ"]
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(json_scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=20)


def plant(value: Any, secret: str, path: list[int], as_key: bool) -> Any:
    """``value`` with ``secret`` put at the place ``path`` picks (as a dict key or inside text)."""
    if isinstance(value, dict) and value:
        keys = list(value)
        k = keys[path[0] % len(keys)] if path else keys[0]
        if as_key and len(path) <= 1:
            return {**value, f"x {secret} y": value[k]}
        return {**value, k: plant(value[k], secret, path[1:], as_key)}
    if isinstance(value, list) and value:
        i = (path[0] % len(value)) if path else 0
        return [*value[:i], plant(value[i], secret, path[1:], as_key), *value[i + 1:]]
    if isinstance(value, str):
        return f"{value} {secret} {value}"
    return {f"k {secret}" if as_key else "k": f"v {secret}", "was": value}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, secret=st.sampled_from(PLANTED), path=st.lists(st.integers(0, 10), max_size=6),
       as_key=st.booleans())
def test_a_planted_secret_never_survives_redaction(value: Any, secret: str, path: list[int], as_key: bool) -> None:
    planted = plant(value, secret, path, as_key)
    clean, _ = Redactor().value(planted, 1_000_000)
    dumped = json.dumps(clean, ensure_ascii=False)
    assert secret not in dumped
    dumped.encode("utf-8")  # always writable
