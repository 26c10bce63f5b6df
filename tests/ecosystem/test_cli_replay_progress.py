"""`replay` on long files: progress on stderr as it goes; malformed lines reported on stderr too."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from agent_hooks_core.cli import replay

from .conftest import write

NO_REPO_PLUGINS = 'disabled = ["guard", "audit"]\n'
LINE = json.dumps({"hook": "pre_tool", "event": {"tool_name": "bash", "arguments": {"command": "ls"}}})


def session(path: Path, lines: int, malformed: int | None = None) -> Path:
    text = [LINE] * lines
    if malformed is not None:
        text[malformed - 1] = "{oops"
    path.write_text("\n".join(text) + "\n")
    return path


def test_a_long_replay_shows_progress_on_stderr(cli, home: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    write(home / "settings.toml", NO_REPO_PLUGINS)
    path = session(tmp_path / "long.jsonl", 50)
    monkeypatch.setattr(replay, "PROGRESS_EVERY", 0.0)  # every event counts as "a while"
    r = cli("replay", path)
    assert r.code == 0, r.err
    progress = [line for line in r.err.splitlines() if line.startswith(f"agenthooks: replaying {path}: ")]
    assert progress[0] == f"agenthooks: replaying {path}: 0/50 events"
    assert progress[-1] == f"agenthooks: replaying {path}: 50/50 events"
    assert "replaying" not in r.out  # stdout keeps the report only


def test_a_quick_replay_prints_no_progress(cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(home / "settings.toml", NO_REPO_PLUGINS)
    monkeypatch.setattr(replay, "PROGRESS_EVERY", 3600.0)
    r = cli("replay", session(tmp_path / "short.jsonl", 5))
    assert r.code == 0 and "replaying" not in r.err


def test_progress_counts_up_at_most_every_interval() -> None:
    times = iter([0.0, 0.2, 0.5, 1.1, 1.5, 2.3, 2.4, 2.5])  # the clock at start, then at each call
    stream = io.StringIO()
    progress = replay.Progress(Path("s.jsonl"), stream=stream, clock=lambda: next(times))
    for done in range(6):
        progress(done, 10)
    progress(10, 10)
    assert stream.getvalue().splitlines() == [
        "agenthooks: replaying s.jsonl: 2/10 events", "agenthooks: replaying s.jsonl: 4/10 events",
        "agenthooks: replaying s.jsonl: 10/10 events"]


def test_malformed_lines_are_reported_on_stderr(cli, home: Path, tmp_path: Path) -> None:
    write(home / "settings.toml", NO_REPO_PLUGINS)
    r = cli("replay", session(tmp_path / "bad.jsonl", 4, malformed=3))
    assert r.code == 2
    assert "agenthooks: warning: line 3: not JSON: Expecting property name enclosed in double quotes" in r.err
    assert "3 events replayed" in r.out
