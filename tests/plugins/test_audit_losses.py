"""Records nothing could store are counted in loss files that outlive the process: real per-event
processes lose records and exit, and `audit stats` and `doctor` (other processes, later) show
every one; concurrent processes never lose a count; a torn line is not counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_audit import losses
from agent_hooks_core.cli.app import run

#: a per-event process: fires ``n`` audited events, then exits (its memory goes with it)
CHILD = """\
import sys
import agent_hooks_audit
from agent_hooks_audit import store
from agent_hooks_core import Runtime

store.RETRY_AFTER = 0.0
rt = Runtime(plugins=[("audit", agent_hooks_audit)], plugin_config={"audit": {"db": sys.argv[1]}}, session_id="s")
for i in range(int(sys.argv[2])):
    (err,) = rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": f"ls {i}"}}).errors
    assert "the event was LOST" in err.message and "counted in" in err.message, err.message
"""


def blocked(tmp_path: Path, name: str) -> Path:
    """A directory path nobody can create, root included: its parent is a regular file."""
    (tmp_path / name).write_text("not a directory\n")
    return tmp_path / name / "dir"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Where a losing process runs: its state directory cannot be created, its runtime directory can."""
    run_dir = tmp_path / "run"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    return {**os.environ, "HOME": str(tmp_path), "AGENT_HOOKS_HOME": str(blocked(tmp_path, "home-ro")),
            "XDG_RUNTIME_DIR": str(run_dir), "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}


def lose(db: Path, count: int, env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(count)], env=env, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen[str]) -> None:
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err


def test_losses_of_exited_processes_are_shown_by_stats_and_doctor(
        tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = blocked(tmp_path, "db-ro") / "audit.db"
    finish(lose(db, 3, env, tmp_path))
    finish(lose(db, 4, env, tmp_path))
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.toml").write_text(f"[plugins.audit]\ndb = {json.dumps(str(db))}\n", encoding="utf-8")
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(home))
    monkeypatch.delenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert run(["audit", "stats", "--db", str(db), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["lost"] == 7 and stats["total"] == 0
    assert run(["doctor"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"audit log: {db}" in out and "7 records LOST" in out


def test_concurrent_processes_never_lose_a_count(tmp_path: Path, env: dict[str, str]) -> None:
    db = blocked(tmp_path, "db-ro") / "audit.db"
    procs = [lose(db, 40, env, tmp_path) for _ in range(4)]
    for proc in procs:
        finish(proc)
    assert losses.counted_losses(db) == 160
    (counter,) = (tmp_path / "run" / "agent-hooks" / "audit-lost").iterdir()
    lines = counter.read_bytes().splitlines()
    assert len(lines) == 160 and all(json.loads(line)["reason"] for line in lines)  # no two lines interleaved
    assert counter.stat().st_mode & 0o777 == 0o600


def test_a_torn_line_is_not_counted_and_the_first_writable_file_takes_the_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    db = tmp_path / "audit.db"
    assert losses.count_loss(db, "disk full") == tmp_path / "audit.db.lost"  # next to the database first
    with open(tmp_path / "audit.db.lost", "ab") as fh:
        fh.write(b'{"ts": 1, "pid": 2, "rea')  # a process killed mid-write
    assert losses.count_loss(db, "x" * 10_000) is not None
    assert losses.counted_losses(db) == 2  # the torn fragment and the next line share one line
