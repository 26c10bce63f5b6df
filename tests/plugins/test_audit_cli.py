"""`agenthooks audit` options promised by the README."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import agent_hooks_audit
import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.cli.app import run


@pytest.fixture
def db(tmp_path: Path) -> Path:
    db = tmp_path / "audit.db"
    rt = Runtime(plugins=[("audit", agent_hooks_audit)], plugin_config={"audit": {"db": str(db)}}, session_id="s")
    for command in ("old", "middle", "new"):
        rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    conn = sqlite3.connect(db)
    conn.execute("UPDATE events SET ts = ts - 7200 WHERE id = 1")  # two hours ago
    conn.execute("UPDATE events SET ts = ts - 3000 WHERE id = 2")  # fifty minutes ago
    conn.commit()
    conn.close()
    return db


def commands(out: str) -> list[str]:
    return [json.loads(line)["event"]["arguments"]["command"] for line in out.splitlines()]


@pytest.mark.parametrize(("args", "expected"), [
    ([], ["old", "middle", "new"]),
    (["--since", "1h"], ["middle", "new"]),
    (["--until", "30m"], ["old", "middle"]),
    (["--since", "1h", "--until", "30m"], ["middle"]),
])
def test_tail_since_and_until(db: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: list[str]) -> None:
    assert run(["audit", "tail", "--db", str(db), "--no-follow", "--json", *args]) == 0
    assert commands(capsys.readouterr().out) == expected


@pytest.mark.parametrize("args", [["search", "--limit", "-5"], ["search", "--limit", "0"], ["tail", "-n", "-5"]])
def test_negative_limits_are_rejected(db: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert run(["audit", *args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("--limit" in err or "--lines" in err)


def test_export_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", "export", "--db", str(db), "--json"]) == 0
    assert commands(capsys.readouterr().out) == ["old", "middle", "new"]
    assert run(["audit", "export", "--db", str(db), "--json", "--format", "csv"]) == 2
    assert "disagree" in capsys.readouterr().err
