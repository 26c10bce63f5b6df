"""``agenthooks replay``: the core function with explicit runtimes, and the command end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agent_hooks_guard
import pytest
from agent_hooks_core import Runtime, hookimpl
from agent_hooks_core.cli.app import run
from agent_hooks_core.cli.replay import (
    MALFORMED,
    compare,
    describe,
    parse_line,
    read_expect,
    read_session,
    replay_entries,
    write_expect,
)

SESSIONS = Path(__file__).resolve().parents[2] / "examples" / "sessions"
DEMO = SESSIONS / "coding-session.jsonl"
GOLDEN = SESSIONS / "coding-session.expect.jsonl"


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "220")  # the table's cells wrap at the terminal width


def write_session(path: Path, *lines: Any) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class Messenger:
    __name__ = "messenger"

    @hookimpl
    def session_start(self, event: Any, ctx: Any) -> None:
        ctx.send_message("CI is red on main")


# -- the core function ---------------------------------------------------------------------------


def test_the_demo_session_decides_what_its_golden_file_says() -> None:
    rt = Runtime(plugins=[("guard", agent_hooks_guard)], host="replay")
    result = replay_entries(rt, read_session(DEMO))
    assert compare(result.steps, read_expect(GOLDEN)) == []
    summary = result.summary()
    assert summary["decisions"] == {"denied": 1, "blocked": 5, "modified": 2, "allowed": 15, "observed": 3}
    assert summary["events"] == 26 and summary["errors"] == 0 and summary["malformed"] == 0
    by_line = {s.line: s for s in result.steps}
    assert "[guard:protected-read]" in by_line[8].reason and by_line[8].what == "shell_exec: cat .env"
    assert by_line[10].changed[0].startswith("output: …stripe_key: [REDACTED:stripe-key]")
    assert by_line[17].changed == ["excluded: shell_exec, write_file, file_edit"]
    assert "[guard:force-push]" in by_line[23].reason


def test_the_golden_file_catches_a_changed_policy() -> None:
    rt = Runtime(plugins=[("guard", agent_hooks_guard)], plugin_config={"guard": {"disable_rules": ["sudo"]}})
    diffs = compare(replay_entries(rt, read_session(DEMO)).steps, read_expect(GOLDEN))
    assert diffs == ["line 20: pre_tool: expected blocked, got allowed"]


def test_malformed_lines_are_reported_by_number_and_the_rest_replays(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        {"hook": "pre_tool", "event": {"tool_name": "bash", "arguments": {"command": "sudo ls"}}},
        "{not json",
        "[1, 2]",
        "",
        {"event": {}},
        {"hook": "pre_tol", "event": {}},
        {"hook": "pre_tool", "event": {"arguments": {}}},
        {"hook": "pre_tool", "event": "rm -rf /"},
        {"hook": "pre_message", "event": {"prompt": "still here"}},
    )
    result = replay_entries(Runtime(plugins=[("guard", agent_hooks_guard)]), read_session(path))
    assert [(s.line, s.decision) for s in result.steps] == [
        (1, "blocked"), (2, MALFORMED), (3, MALFORMED), (5, MALFORMED), (6, MALFORMED), (7, MALFORMED),
        (8, MALFORMED), (9, "allowed")]
    errors = {s.line: s.errors[0] for s in result.malformed}
    assert errors[2].startswith("not JSON") and "list" in errors[3] and '"hook"' in errors[5]
    assert "unknown hook 'pre_tol'" in errors[6] and "did you mean 'pre_tool'" in errors[6]
    assert "tool_name" in errors[7] and "JSON object" in errors[8]


def test_dialect_and_host_event_lines(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        {"hook": "tool_call", "dialect": "pi", "event": {"toolName": "bash", "toolCallId": "1",
                                                         "input": {"command": "rm -rf ~"}}},
        {"hook": "pre_tool", "dialect": "chibi", "event": {"tool_name": "run_command",
                                                            "arguments": {"command": "git status"}}},
        {"host_event": "Notification", "host": "claude-code", "payload": {"message": "needs permission"}},
    )
    result = replay_entries(Runtime(plugins=[("guard", agent_hooks_guard)]), read_session(path))
    assert [(s.hook, s.decision) for s in result.steps] == [
        ("pre_tool", "blocked"), ("pre_tool", "allowed"), ("Notification", "observed")]
    assert result.steps[2].what == "claude-code: message=needs permission"


def test_messages_plugins_send_are_part_of_the_result() -> None:
    rt = Runtime(plugins=[("messenger", Messenger())])
    result = replay_entries(rt, [parse_line(1, json.dumps({"hook": "session_start", "event": {}}))])
    assert result.messages == [{"text": "CI is red on main", "plugin": "messenger"}]


@pytest.mark.parametrize("hook, event, text", [
    ("pre_tool", {"tool_name": "bash", "arguments": {"command": "ls   -la"}}, "bash: ls -la"),
    ("pre_file_write", {"path": "src/a.py"}, "src/a.py"),
    ("pre_api_tools", {"tools": [{"name": "a"}, {"name": "b"}], "recursion_depth": 2}, "2 tools (depth 2): a, b"),
    ("pre_llm_context", {"messages": [{}, {}]}, "2 messages"),
    ("pre_message", {"prompt": "x" * 200}, "x" * 89 + "…"),
])
def test_describe(hook: str, event: dict[str, Any], text: str) -> None:
    assert describe(hook, event) == text


def test_write_expect_round_trip(tmp_path: Path) -> None:
    rt = Runtime(plugins=[("guard", agent_hooks_guard)])
    steps = replay_entries(rt, read_session(DEMO)).steps
    write_expect(tmp_path / "golden.jsonl", steps)
    assert (tmp_path / "golden.jsonl").read_text() == GOLDEN.read_text()


# -- the command --------------------------------------------------------------------------------


def test_replay_command_table_summary_and_audit_location(capsys: pytest.CaptureFixture[str],
                                                         _isolated_home: Path) -> None:
    code, out, err = cli(capsys, "replay", str(DEMO), "--session-id", "demo-1")
    assert code == 0, err
    assert "curl output run by sh [guard:pipe-to-shell]" in out
    assert "26 events replayed (session demo-1): 1 denied, 5 blocked, 2 modified, 15 allowed, 3 observed; 0 errors" in out
    db = _isolated_home / "audit.db"
    assert f"audit log: {db} (26 records for this session; `agenthooks audit stats --session demo-1`)" in out


def test_audit_stats_agree_with_the_replay_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "replay", str(DEMO), "--json")
    assert code == 0
    report = json.loads(out)
    code, out, _ = cli(capsys, "audit", "stats", "--session", report["session"], "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["total"] == report["summary"]["events"] == 26
    assert stats["decisions"] == report["summary"]["decisions"]
    blocked_by_guard = sum(r["blocked"] + r["denied"] for r in stats["by_plugin"] if r["plugin"] == "guard")
    assert blocked_by_guard == report["summary"]["answered_by"]["guard"]["blocked"] + \
        report["summary"]["answered_by"]["guard"]["denied"]
    code, out, _ = cli(capsys, "audit", "stats", "--session", "last", "--json")
    assert json.loads(out)["decisions"] == report["summary"]["decisions"]


def test_replay_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "replay", str(DEMO), "--json", "--session-id", "j1")
    report = json.loads(out)
    assert code == 0 and report["session"] == "j1" and {"audit", "guard"} <= set(report["plugins"])
    assert len(report["steps"]) == 26 and report["steps"][7]["decision"] == "blocked"
    assert report["reports"][0].startswith("audit log: ")


def test_expect_passes_fails_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "replay", str(DEMO), "--expect", str(GOLDEN))
    assert code == 0 and "decisions match" in out
    changed = tmp_path / "golden.jsonl"
    changed.write_text(GOLDEN.read_text().replace('"line": 4, "hook": "pre_tool", "decision": "allowed"',
                                                  '"line": 4, "hook": "pre_tool", "decision": "blocked"'))
    code, out, _ = cli(capsys, "replay", str(DEMO), "--expect", str(changed))
    assert code == 1 and "1 differences" in out and "line 4: pre_tool: expected blocked, got allowed" in out
    code, out, _ = cli(capsys, "replay", str(DEMO), "--expect", str(changed), "--json")
    assert code == 1 and json.loads(out)["expect"]["differences"] == ["line 4: pre_tool: expected blocked, got allowed"]
    written = tmp_path / "new.jsonl"
    assert cli(capsys, "replay", str(DEMO), "--write-expect", str(written))[0] == 0
    assert written.read_text() == GOLDEN.read_text()


def test_malformed_lines_exit_2_after_replaying_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_session(tmp_path / "s.jsonl", {"hook": "pre_message", "event": {"prompt": "hi"}}, "oops",
                         {"hook": "pre_tool", "event": {"tool_name": "bash", "arguments": {"command": "sudo ls"}}})
    code, out, _ = cli(capsys, "replay", str(path))
    assert code == 2
    assert "2 events replayed" in out and "1 malformed lines" in out and "line 2: not JSON" in out


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "replay", str(tmp_path / "missing.jsonl"))
    assert code == 2 and err.strip() == f"agenthooks: error: {tmp_path / 'missing.jsonl'}: no such file"
    code, _, err = cli(capsys, "replay", str(tmp_path))
    assert code == 2 and err.strip().endswith("is a directory")
    code, _, err = cli(capsys, "replay", str(DEMO), "--write-expect", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert code == 2 and "--write-expect" in err and err.count("\n") == 1
    bad_golden = tmp_path / "g.jsonl"
    bad_golden.write_text("{}\n")
    code, _, err = cli(capsys, "replay", str(DEMO), "--expect", str(bad_golden))
    assert code == 2 and "line 1" in err and err.count("\n") == 1


def test_the_audit_plugin_reports_when_its_database_is_unusable(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "audit.db"
    db.write_bytes(b"not sqlite" * 500)
    monkeypatch.setenv("AGENT_HOOKS_AUDIT_DB", str(db))
    path = write_session(tmp_path / "s.jsonl", {"hook": "pre_tool", "event": {
        "tool_name": "bash", "arguments": {"command": "rm -rf /"}}})
    code, out, _ = cli(capsys, "replay", str(path))
    assert code == 0
    assert "blocked" in out and "audit: hook_called" in out and "corrupt" in out
    assert f"audit log: {db} unavailable" in out and "1 records pending" in out
