"""The Quickstart's main job from real wheels: core + guard + audit in a fresh venv, replay, audit store."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.venvs import Venv

SESSIONS = Path(__file__).resolve().parents[2] / "examples" / "sessions"


@pytest.mark.slow
def test_replay_from_wheels_fills_the_audit_store(fresh_venv: Callable[..., Venv], tmp_path: Path) -> None:
    env = fresh_venv("agent-hooks-core", "agent-hooks-guard", "agent-hooks-audit")
    project = tmp_path / "project"
    (project / "examples" / "sessions").mkdir(parents=True)
    for name in ("coding-session.jsonl", "coding-session.expect.jsonl"):
        shutil.copy(SESSIONS / name, project / "examples" / "sessions" / name)
    home = tmp_path / "home"
    # a user with nothing configured: the audit goes to the platform's user data directory
    user = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"), "COLUMNS": "200"}
    db = home / ".local" / "share" / "agent-hooks" / "audit.db"

    out = env.run(env.bin("agenthooks"), "replay", "examples/sessions/coding-session.jsonl", cwd=project, env=user)
    assert out.returncode == 0, out.stderr
    assert "26 events replayed" in out.stdout and "5 blocked" in out.stdout
    assert "force-push to main [guard:force-push]" in out.stdout
    assert f"audit log: {db} (26 records for this session;" in out.stdout

    conn = sqlite3.connect(db)
    try:
        recorded = conn.execute("SELECT hook, decision, decided_by FROM events ORDER BY id").fetchall()
        raw = " ".join(r[0] or "" for r in conn.execute("SELECT event FROM events"))
    finally:
        conn.close()
    assert len(recorded) == 26
    assert sum(1 for _, decision, by in recorded if decision == "blocked" and by == "guard") == 5
    assert "[REDACTED:aws-access-key]" in raw and "AKIAQ3EGT5WNJ7RZ2XKM" not in raw

    stats = env.run(env.bin("agenthooks"), "audit", "stats", "--session", "last", "--json", cwd=project, env=user)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["decisions"] == {"denied": 1, "blocked": 5, "modified": 2, "allowed": 15,
                                                     "observed": 3}

    golden = env.run(env.bin("agenthooks"), "replay", "examples/sessions/coding-session.jsonl", "--expect",
                     "examples/sessions/coding-session.expect.jsonl", cwd=project, env=user)
    assert golden.returncode == 0 and "decisions match" in golden.stdout
