"""The stop gate's count survives a fresh bridge process per event, per (host, session)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agent_hooks_core import Runtime, hookimpl


class Gate:
    @hookimpl
    def stop_gate(self, event):
        return {"continue": True, "reason": "again"}


def _fire(session: str | None, host: str = "claude-code") -> dict:
    rt = Runtime([Gate()], session_id=session, host=host, stop_gate_limit=2)  # a new process per event
    return dict(rt.fire("stop_gate", {}).data or {})


def test_the_count_is_kept_per_host_and_session_in_the_user_dir() -> None:
    assert [_fire("s1").get("continue") for _ in range(3)] == [True, True, False]
    assert _fire("s2")["continue"] is True and _fire("s1", host="codex")["continue"] is True
    files = list((Path(os.environ["AGENT_HOOKS_HOME"]) / "stop-gate").iterdir())
    assert len(files) == 2 and all(f.stat().st_mode & 0o077 == 0 for f in files)  # s1 restarted at the limit


def test_without_a_session_the_count_lives_on_the_runtime() -> None:
    rt = Runtime([Gate()], stop_gate_limit=1)
    assert [bool(rt.fire("stop_gate", {}).data["continue"]) for _ in range(3)] == [True, False, True]
    assert not (Path(os.environ["AGENT_HOOKS_HOME"]) / "stop-gate").exists()


@pytest.mark.parametrize("junk", [b"", b"x" * 100, b"-5", b"\xff\xfe"])
def test_a_damaged_count_file_counts_as_zero(junk: bytes) -> None:
    _fire("s1")
    (path,) = (Path(os.environ["AGENT_HOOKS_HOME"]) / "stop-gate").iterdir()
    path.write_bytes(junk)
    assert _fire("s1")["continue"] is True


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3"])
def test_a_bad_limit_is_one_line(bad: object) -> None:
    from agent_hooks_core.errors import ConfigError

    with pytest.raises(ConfigError, match="stop_gate_limit must be a whole number >= 0"):
        Runtime([], stop_gate_limit=bad)  # type: ignore[arg-type]


def test_one_runtime_serving_many_sessions_counts_each_apart() -> None:
    """A warm server's runtime takes the session from each request."""
    rt = Runtime([Gate()], host="claude-code", stop_gate_limit=1)
    answers = []
    for session in ("a", "b", "a", "b"):
        rt.session_id = session
        answers.append(bool(rt.fire("stop_gate", {}).data["continue"]))
    assert answers == [True, True, False, False]
