"""The fast client on a gating event, per host and per failure: every failure ends in a block that
arrives before the host's own timeout.

The server is dead (a socket file nobody listens on) or never answers; the per-event process it
falls back to then crashes (an interpreter that cannot import us exits 1), is killed by a signal,
is stopped for good, or runs a plugin that hangs. Real processes throughout: the client as the
host runs it (``python -S -I fastclient.py``), the per-event process as it would run.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core.transports import client

from ..bridges.hostkit_support import payloads
from ..bridges.payloads import event as claude_event

#: the event's budget given to the client (--timeout); the host's own timeout is longer
BUDGET = 4.0
#: what a loaded machine may add to the budget before the client has exited
SLACK = 3.0

#: host -> its gating event (in the recorded payloads), non-gating event
HOSTS = {"claude-code": ("PreToolUse", "Stop"), "codex": ("PreToolUse", "Stop"),
         "gemini": ("BeforeTool", "AfterTool"), "cursor": ("preToolUse", "stop")}

HOOKS = {
    # the plugin kills the per-event process that would write the answer (the worker's parent)
    "killed": "import os, signal\n\n@hookimpl\ndef pre_tool(event):\n    os.kill(os.getppid(), signal.SIGKILL)\n",
    # the plugin stops that process for good: it neither answers nor exits
    "stopped": "import os, signal\n\n@hookimpl\ndef pre_tool(event):\n    os.kill(os.getppid(), signal.SIGSTOP)\n",
    # the plugin never returns: the per-event process must answer with what is left of the budget
    "hangs": "import time\n\n@hookimpl\ndef pre_tool(event):\n    while True:\n        time.sleep(0.05)\n",
}


def payload(host: str, name: str, cwd: Path) -> dict[str, Any]:
    if host == "claude-code":
        return claude_event(name, str(cwd))
    sample = payloads(host)[name]
    if "cwd" in sample:
        sample["cwd"] = str(cwd)
    return sample


def blocked(host: str, proc: subprocess.CompletedProcess[bytes]) -> bool:
    """The host would not run the tool: exit 2, or the host's deny on stdout."""
    if proc.returncode == 2:
        return True
    if proc.returncode != 0 or not proc.stdout.strip():
        return False
    body = json.loads(proc.stdout)
    decision = (body.get("hookSpecificOutput") or {}).get("permissionDecision") if host in ("claude-code", "codex") \
        else body.get("decision") if host == "gemini" else body.get("permission")
    return decision in ("deny", "block")


@pytest.fixture
def dead_socket(tmp_path: Path) -> Iterator[str]:
    """A socket file of this user that nobody listens on: a server that died."""
    path = str(tmp_path / "s.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.close()
    yield path


@pytest.fixture
def mute_socket(tmp_path: Path) -> Iterator[str]:
    """A server that accepts the connection and never answers."""
    path = str(tmp_path / "m.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(8)
    yield path
    sock.close()


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter that cannot import agent_hooks_core (a recreated venv): the fallback exits 1."""
    where = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    return str(where / "bin" / "python")


def run(host: str, name: str, sock: str, cwd: Path, *, gating: bool = True, hook: Path | None = None,
        python: str | None = None) -> tuple[subprocess.CompletedProcess[bytes], float]:
    args = ["--event", name, *(["--hook", str(hook)] if hook else [])]
    argv = client.command_for(host, args, gating=gating, autostart=False, socket=sock)
    argv[argv.index("--"):argv.index("--")] = ["--timeout", str(BUDGET)]
    if python is not None:
        argv[0] = python
    raw = json.dumps(payload(host, name, cwd)).encode()
    env = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    start = time.monotonic()
    proc = subprocess.run(argv, input=raw, capture_output=True, cwd=cwd, env=env, timeout=BUDGET + 60)
    return proc, time.monotonic() - start


def one_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = [line for line in proc.stderr.decode().splitlines() if line.startswith("agent-hooks fast client:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_server_dead_and_the_fallback_crashes(host, tmp_path, dead_socket, bare_python):
    proc, _ = run(host, HOSTS[host][0], dead_socket, tmp_path, python=bare_python)
    assert proc.returncode == 2 and proc.stdout == b"", proc.stderr
    assert "exited with status 1: blocked" in one_line(proc)


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_server_dead_and_the_fallback_killed_by_a_signal(host, tmp_path, dead_socket):
    hook = tmp_path / "kill.py"
    hook.write_text("from agent_hooks_core import hookimpl\n" + HOOKS["killed"])
    proc, _ = run(host, HOSTS[host][0], dead_socket, tmp_path, hook=hook)
    assert proc.returncode == 2 and proc.stdout == b"", proc.stderr
    assert "killed by signal 9: blocked" in one_line(proc)


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_server_dead_and_the_fallback_stopped_is_killed_at_the_deadline(host, tmp_path, dead_socket):
    hook = tmp_path / "stop.py"
    hook.write_text("from agent_hooks_core import hookimpl\n" + HOOKS["stopped"])
    proc, took = run(host, HOSTS[host][0], dead_socket, tmp_path, hook=hook)
    assert proc.returncode == 2 and proc.stdout == b"", proc.stderr
    assert "gave no answer within 4 s" in one_line(proc)
    assert took < BUDGET + SLACK


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_server_dead_and_a_hung_plugin_is_denied_within_the_shared_budget(host, tmp_path, dead_socket):
    # the per-event process gets what is left of the budget (not its own 55 s): it answers with
    # the host's deny, or the client blocks at the deadline, before the host's timeout either way
    hook = tmp_path / "hang.py"
    hook.write_text("from agent_hooks_core import hookimpl\n" + HOOKS["hangs"])
    proc, took = run(host, HOSTS[host][0], dead_socket, tmp_path, hook=hook)
    assert blocked(host, proc), (proc.returncode, proc.stdout, proc.stderr)
    assert took < BUDGET + SLACK


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_a_server_that_never_answers_is_a_block_at_the_deadline(host, tmp_path, mute_socket):
    proc, took = run(host, HOSTS[host][0], mute_socket, tmp_path)
    assert proc.returncode == 2 and proc.stdout == b""
    assert "the server gave no answer within 4 s" in one_line(proc)
    assert took < BUDGET + SLACK


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_on_other_events_a_failure_stays_non_blocking(host, tmp_path, dead_socket, bare_python):
    # exit 1 is the non-blocking error every host documents; a signal death is no 247
    proc, _ = run(host, HOSTS[host][1], dead_socket, tmp_path, gating=False, python=bare_python)
    assert proc.returncode == 1, proc.stderr
