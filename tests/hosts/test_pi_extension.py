"""The shipped extension itself (TypeScript), run by jiti with a stand-in for pi and a server that
misbehaves on purpose (``pi_extension/fake_server.py``): what pi gets back in each case.

Opt-in with the other real-agent tests: jiti comes from the pinned pi install."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .pi_agents import PI

HERE = Path(__file__).with_name("pi_extension")
BASH = {"type": "tool_call", "toolName": "bash", "toolCallId": "c1", "input": {"command": "rm -rf ~", "timeout": 5}}


@pytest.fixture
def run_extension(npm_tool: Any, tmp_path: Path):
    jiti = npm_tool(*PI).parent / "jiti"

    def run(mode: str, steps: list[dict[str, Any]], timeout_ms: int = 60_000) -> dict[str, Any]:
        python = tmp_path / "fake-python"
        python.write_text(f"#!/bin/sh\nexec {sys.executable} {HERE / 'fake_server.py'}\n")
        python.chmod(python.stat().st_mode | stat.S_IXUSR)
        env = {**os.environ, "AGENT_HOOKS_PYTHON": str(python), "FAKE_SERVER_MODE": mode,
               "FAKE_SERVER_LOG": str(tmp_path / "server.log"), "AGENT_HOOKS_TIMEOUT_MS": str(timeout_ms)}
        env.pop("AGENT_HOOKS_DEBUG", None)
        proc = subprocess.run([str(jiti), str(HERE / "harness.ts"), json.dumps(steps)], capture_output=True,
                              text=True, env=env, timeout=120, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)  # type: ignore[no-any-return]

    run.log = lambda: [json.loads(line) for line in (tmp_path / "server.log").read_text().splitlines()]  # type: ignore[attr-defined]
    return run


def started(log: list[dict[str, Any]]) -> int:
    return sum(1 for entry in log if "started" in entry)


@pytest.mark.parametrize(("mode", "why"), [
    ("nonsense", "answered tool_call with nonsense"),
    ("garbage", "wrote a line that is not JSON: this is not json"),
    ("exit", "exited unexpectedly (exit code 7)"),
])
def test_a_misbehaving_server_blocks_tool_call_and_the_next_event_restarts_it(run_extension, mode, why):
    out = run_extension(mode, [{"name": "tool_call", "event": BASH}, {"name": "input", "event": {"text": "hi"}}])
    assert out["subscribed"] == ["input", "session_shutdown", "tool_call"]
    blocked, after = out["results"]
    assert blocked["answer"]["block"] is True
    assert blocked["answer"]["reason"].startswith("agent-hooks could not check this tool call, so it is blocked "
                                                  "(fail-closed): ")
    assert why in blocked["answer"]["reason"]
    assert after["answer"] is None  # not a gating event: logged, pi goes on
    assert started(run_extension.log()) == 2  # the second event started a fresh server


def test_a_server_that_does_not_answer_in_time_blocks(run_extension):
    out = run_extension("hang", [{"name": "tool_call", "event": BASH}], timeout_ms=1500)
    (blocked,) = out["results"]
    assert "did not answer event within 1.5s" in blocked["answer"]["reason"]


def test_a_rewrite_is_applied_to_event_input_in_place(run_extension):
    out = run_extension("rewrite", [{"name": "tool_call", "event": BASH}])
    (result,) = out["results"]
    assert result["answer"] is None
    assert result["event"]["input"] == {"command": "echo safe"}  # timeout removed: the answer is the whole input


@pytest.mark.parametrize(("confirmed", "answer"), [(True, None), (False, {"block": True, "reason": "said no"})])
def test_ui_and_session_round_trips(run_extension, confirmed, answer):
    out = run_extension("ui", [{"name": "tool_call", "event": BASH, "hasUI": True, "ui": {"confirm": confirmed}}])
    (result,) = out["results"]
    assert result["answer"] == answer
    assert result["ui"] == [["confirm", "t", "ok?"], ["notify", "asked", "warning"]]
    assert out["session"] == [["sendMessage", {"customType": "x", "content": "c", "display": True}, None],
                              ["appendEntry", "e", {"n": 1}]]
    replies = [e for e in run_extension.log() if e.get("id") == 900]
    assert replies == [{"jsonrpc": "2.0", "id": 900, "result": confirmed}]


def test_plugin_commands_are_registered_and_run_in_the_server(run_extension):
    out = run_extension("nonsense", [{"command": "hello", "event": "world"}])
    assert out["commands"] == ["hello"]
    assert out["results"] == [{"command": "hello", "ui": [["notify", "hello world", "info"]]}]


def test_the_server_is_told_to_shut_down_with_the_session(run_extension):
    run_extension("rewrite", [{"name": "tool_call", "event": BASH}])
    assert [e.get("method") for e in run_extension.log() if "method" in e][-1] == "shutdown"
