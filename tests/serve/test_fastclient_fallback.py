"""The fast client with no server: it answers through the per-event process, fails closed on its own errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.transports import client

from ..bridges.payloads import event


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    return tmp_path


def test_command_for_is_exec_form_with_absolute_paths_and_isolation(home):
    argv = client.command_for("claude-code", ["--event", "PreToolUse"], gating=True)
    assert os.path.isabs(argv[0]) and argv[1:3] == ["-S", "-I"] and os.path.isabs(argv[3])
    assert Path(argv[3]).is_file() and client.is_fast_client(argv)
    assert argv[-4:] == ["--", "claude-code", "--event", "PreToolUse"] and "--gating" in argv
    assert os.path.isabs(argv[argv.index("--socket") + 1])
    assert client.process_command("codex")[-3:] == ["-m", "agent_hooks_core", "codex"]
    assert "-I" in client.process_command("codex") or "-P" in client.process_command("codex")


def _run(argv, raw, cwd):
    return subprocess.run(argv, input=raw, capture_output=True, cwd=cwd, timeout=60)


def test_no_server_answers_in_process_with_the_same_bytes(home):
    hook = home / "deny.py"
    hook.write_text("from agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event):\n"
                    "    return {'block': True, 'reason': 'no ' + event.arguments['command']}\n")
    argv = client.command_for("claude-code", ["--event", "PreToolUse", "--hook", str(hook)], gating=True,
                              autostart=False)
    proc = _run(argv, json.dumps(event("PreToolUse", str(home))).encode(), home)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert (out["permissionDecision"], out["permissionDecisionReason"]) == ("deny", "no npm test")


def test_a_project_module_never_shadows_the_client_or_the_bridge(home):
    # the project is the agent's: a json.py / tomllib.py in the project must not be imported
    for name in ("json.py", "tomllib.py", "_socket.py", "posix.py"):
        (home / name).write_text("raise SystemExit('imported from the project')\n")
    argv = client.command_for("claude-code", ["--event", "Stop"], autostart=False)
    proc = _run(argv, json.dumps(event("Stop", str(home))).encode(), home)
    assert proc.returncode == 0 and b"imported from the project" not in proc.stderr, proc.stderr


@pytest.mark.parametrize(("args", "code"), [
    (["--gating", "--bogus"], 2), (["--bogus"], 1), (["--gating"], 2), (["--gating", "--"], 2),
    (["--gating", "--timeout", "soon", "--", "claude-code"], 2), (["claude-code", "--socket"], 1),
])
def test_a_bad_client_command_line_fails_closed_on_gating_events(args, code):
    proc = _run([sys.executable, "-S", "-I", str(client.FASTCLIENT), *args], b"{}", None)
    assert proc.returncode == code and proc.stderr.decode().startswith("agent-hooks fast client: bad command line")
    assert proc.stderr.count(b"\n") == 1
