"""Claude Code 2.1.330 with ``--transport command`` while this user's warm server runs for the same
environment: the per-event command relays each event to the server, which answers (the guard's
block reaches the model, a benign command runs), and the server counts the events."""

from __future__ import annotations

import json
import os
import subprocess

from . import test_claude_code as cc
from .test_claude_code import BENIGN, DANGEROUS, install, run_claude

# the same fixtures: the real Claude Code, a venv with agent-hooks-guard from wheels, a private home
claude, venv, home = cc.claude, cc.venv, cc.home


def _served(venv, env: dict[str, str]) -> int:
    proc = venv.run("agenthooks", "serve", "status", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return int(json.loads(proc.stdout)["events"])


def test_the_command_transport_relays_to_a_running_server(claude, venv, home):
    install(venv, home, "--transport", "command")
    # started with the environment Claude Code gives its hooks (run_claude's), so the keys match
    server_env = {"PATH": os.environ["PATH"], **home}
    proc = subprocess.run([str(venv.path / "bin" / "python"), "-I", "-m", "agent_hooks_core", "serve", "start"],
                          env=server_env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    before = _served(venv, home)
    results, project = run_claude(claude, venv, home, DANGEROUS)
    assert not (project / "MARKER").exists()
    assert len(results) == 1 and "[guard:rm-broad]" in results[0], results
    blocked = _served(venv, home)
    assert blocked > before, "no event reached the server"
    results, project = run_claude(claude, venv, home, BENIGN)
    assert (project / "MARKER2").exists() and "benign-ran" in results[0], results
    assert _served(venv, home) > blocked


def test_the_command_transport_starts_the_server_its_later_events_use(claude, venv, home):
    """No server: the first events are answered by the per-event process, which starts the warm
    server in the background (autostart); a later session's events are relayed to it."""
    import time

    install(venv, home, "--transport", "command")
    env = {**home, "AGENT_HOOKS_SERVE_AUTOSTART": "1"}
    results, project = run_claude(claude, venv, env, DANGEROUS)
    assert len(results) == 1 and "[guard:rm-broad]" in results[0], results
    until = time.monotonic() + 60
    while venv.run("agenthooks", "serve", "status", env=env).returncode != 0:
        assert time.monotonic() < until, "no server was started"
        time.sleep(0.1)  # another process's start-up, bounded
    status = json.loads(venv.run("agenthooks", "serve", "status", "--json", env=env).stdout)
    assert status["autostarted"] is True and status["http"] is None
    before = _served(venv, env)
    results, project = run_claude(claude, venv, env, BENIGN)
    assert (project / "MARKER2").exists() and "benign-ran" in results[0], results
    assert _served(venv, env) > before, "the later events were not relayed"
