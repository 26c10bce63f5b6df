"""The warm server against its own plugins: nothing a plugin does in the server's process pool keeps
the server from answering at the deadline, or freezes it for later events.

Plugin code runs in worker processes (core/serve/workers.py); the answering process kills and
replaces a worker that overruns the deadline. One class per test: a plugin that holds the GIL in C
(a catastrophic regex), one that closes every inherited descriptor and blocks, one that forks a
long-lived child (in its own session) that would keep our pipes, sockets or lock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ..bridges.payloads import event
from ..serve.conftest import start_server

DEADLINE = "3"

HOOK = textwrap.dedent("""\
    import os, re, time
    from agent_hooks_core import hookimpl

    @hookimpl
    def pre_tool(event):
        cmd = event.arguments.get("command")
        if cmd == "regex":
            re.match(r"(a+)+$", "a" * 64 + "b")  # exponential, in C, holding the GIL
        if cmd == "close-and-block":
            os.closerange(0, 4096)
            time.sleep(3600)
        if cmd == "fork-and-keep":
            if os.fork() == 0:
                os.setsid()  # out of the worker's process group: killing the worker does not end it
                with open(os.environ["CHILD_PID"], "w") as fh:
                    fh.write(str(os.getpid()))
                time.sleep(3600)
                os._exit(0)
        if cmd == "rm -rf ~" or cmd == "fork-and-keep":
            return {"block": True, "reason": "no rm"}
""")


def _raw(cwd: Path, command: str) -> bytes:
    return json.dumps(event("PreToolUse", str(cwd), tool_input={"command": command})).encode()


def _decision(server, path: str, cwd: Path, command: str) -> tuple[str | None, str]:
    status, body = server.tcp("POST", path, _raw(cwd, command))
    assert status == 200, body
    out = json.loads(body).get("hookSpecificOutput", {})
    return out.get("permissionDecision"), out.get("permissionDecisionReason", "")


@pytest.fixture
def serve_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def hook(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.py"
    path.write_text(HOOK)
    return path


@pytest.mark.parametrize("command", ["regex", "close-and-block"])
def test_a_plugin_that_cannot_be_interrupted_gets_a_deny_and_later_events_are_answered(
        serve_home, hook, tmp_path, command):
    srv = start_server(serve_home, {"AGENT_HOOKS_ANSWER_DEADLINE": DEADLINE, "AGENT_HOOKS_SERVE_WORKERS": "2"})
    try:
        path = f"/hosts/claude-code?arg=--hook&arg={hook}"
        with ThreadPoolExecutor(8) as pool:
            stuck = pool.submit(_decision, srv, path, tmp_path, command)
            quick = [pool.submit(_decision, srv, path, tmp_path, "rm -rf ~" if i % 2 else "ls") for i in range(12)]
            answers = [f.result()[0] for f in quick]
            decision, reason = stuck.result()
        assert answers == ["deny" if i % 2 else None for i in range(12)]  # served by the other worker
        assert decision == "deny"
        assert f"no answer within {DEADLINE} s" in reason or "the worker closed its answer pipe" in reason
        # the stuck worker was killed and replaced: the pool is whole and answers again
        assert [_decision(srv, path, tmp_path, c)[0] for c in ("rm -rf ~", "ls")] == ["deny", None]
        st = srv.status()
        assert len(st["workers"]) == 2 and st["workers_replaced"] >= 1
    finally:
        srv.stop()


def test_a_plugin_that_forks_a_long_lived_child_holds_nothing_of_ours(serve_home, hook, tmp_path):
    child = tmp_path / "child.pid"
    srv = start_server(serve_home, {"AGENT_HOOKS_ANSWER_DEADLINE": DEADLINE, "AGENT_HOOKS_SERVE_WORKERS": "1",
                                    "CHILD_PID": str(child)})
    path = f"/hosts/claude-code?arg=--hook&arg={hook}"
    try:
        assert _decision(srv, path, tmp_path, "fork-and-keep") == ("deny", "no rm")
        assert _decision(srv, path, tmp_path, "ls")[0] is None  # the same worker answers again
        stop = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "stop"], env=srv.run_env(),
                              capture_output=True, text=True, timeout=60)
        assert stop.returncode == 0 and srv.proc.wait(timeout=30) == 0
    finally:
        srv.stop()
    # the orphan keeps neither the lock nor the socket: a new server starts in the same place
    again = start_server(serve_home)
    try:
        assert _decision(again, path, tmp_path, "rm -rf ~") == ("deny", "no rm")
    finally:
        again.stop()
        if child.exists():
            os.kill(int(child.read_text()), signal.SIGKILL)


def test_the_directory_the_server_runs_in_never_shadows_our_modules(tmp_path, hook):
    import sys

    home = tmp_path / "home"
    trap = home / "agent_hooks_core"
    trap.mkdir(parents=True)
    (trap / "__init__.py").write_text("raise SystemExit('the project shadowed agent_hooks_core')\n")
    code = ("import sys; sys.path.remove(''); from agent_hooks_core.__main__ import main; "
            "sys.exit(main(['serve', 'run']))")
    srv = start_server(home, {"AGENT_HOOKS_SERVE_WORKERS": "1"}, argv=[sys.executable, "-c", code])
    try:  # the server runs in `home`; its worker must import our package, not the trap
        path = f"/hosts/claude-code?arg=--hook&arg={hook}"
        assert _decision(srv, path, tmp_path, "rm -rf ~") == ("deny", "no rm")
    finally:
        srv.stop()


def test_a_worker_killed_while_idle_costs_no_request_a_deny(serve_home, hook, tmp_path):
    srv = start_server(serve_home, {"AGENT_HOOKS_SERVE_WORKERS": "2"})
    path = f"/hosts/claude-code?arg=--hook&arg={hook}"
    try:
        assert _decision(srv, path, tmp_path, "ls")[0] is None
        pids = srv.status()["workers"]
        for pid in pids:  # the OOM killer, an impatient admin
            os.kill(pid, signal.SIGKILL)
        for pid in pids:  # dead (a zombie until the server notices) before the next request
            while _state(pid) not in ("Z", None):
                pass
        assert [_decision(srv, path, tmp_path, c)[0] for c in ("ls", "ls", "rm -rf ~")] == [None, None, "deny"]
    finally:
        srv.stop()


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_policy_inputs_that_are_devices_or_fifos_cost_nothing(tmp_path, monkeypatch):
    """The watcher hashes only regular files, and never blocks on one swapped for a FIFO."""
    from agent_hooks_core.serve import inputs

    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path))
    (tmp_path / "settings.toml").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "trust.json")
    project = tmp_path / "project"
    (project / ".agent-hooks").mkdir(parents=True)
    os.mkfifo(project / ".agent-hooks" / "settings.toml")
    first = inputs.policy_hash(None, str(project), None)  # returns: nothing was read from them
    assert first == inputs.policy_hash(None, str(project), None)
    assert inputs.stamp_of(None, str(project), None) == inputs.stamp_of(None, str(project), None)
