"""A moved or recreated environment never turns the guard off silently.

Host configurations name the stable launcher (outside the environment), not the interpreter: once
the environment is moved, the launcher says so in one line and blocks gating events (exit 2 in every
host), other events get the hosts' non-blocking error (exit 1), and ``doctor`` names the cause.
Real: agent-hooks installed from its wheel into a venv, which is then really moved.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from agent_hooks_core.bridges import claude_code_install as cc
from agent_hooks_core.bridges.codex import install as cx
from agent_hooks_core.transports import launcher

from ..bridges.hostkit_support import payloads
from ..bridges.payloads import event as claude_event
from ..support import environ

pytestmark = pytest.mark.skipif(not launcher.supported(), reason="the launcher is a POSIX sh script")


def hook_commands(env: dict[str, str]) -> dict[str, list[str]]:
    """(host, event) -> argv of our hook, as the hosts would run it."""
    codex = json.loads((Path(env["CODEX_HOME"]) / "hooks.json").read_text())["hooks"]
    claude = json.loads((Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())["hooks"]
    out = {}
    for event in ("PreToolUse", "Stop"):
        out[f"codex/{event}"] = shlex.split(codex[event][0]["hooks"][0]["command"])
        entry = next(h for g in claude[event] for h in g["hooks"] if cc.is_ours(h))
        out[f"claude-code/{event}"] = [entry["command"], *entry["args"]]
    return out


def fire(argv: list[str], host: str, event: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    raw = claude_event(event, str(cwd)) if host == "claude-code" else {**payloads("codex")[event], "cwd": str(cwd)}
    return subprocess.run(argv, input=json.dumps(raw).encode(), capture_output=True, cwd=cwd, env=env, timeout=120)


def test_a_moved_venv_blocks_gating_events_and_doctor_says_why(tmp_path, fresh_venv, monkeypatch):
    venv = fresh_venv("agent-hooks-core")
    env = environ.without("VIRTUAL_ENV")
    env.update(HOME=str(tmp_path / "home"), AGENT_HOOKS_HOME=str(tmp_path / "ah"), CODEX_HOME=str(tmp_path / "codex"),
               CLAUDE_CONFIG_DIR=str(tmp_path / "claude"), XDG_RUNTIME_DIR=str(tmp_path / "run"))
    for d in ("home", "run"):
        (tmp_path / d).mkdir(mode=0o700)
    work = tmp_path / "work"
    work.mkdir()
    for args in (["codex", "--user"], ["claude-code", "--user", "--transport", "command"]):
        proc = venv.run(venv.bin("agenthooks"), "install", *args, env=env, cwd=work)
        assert proc.returncode == 0, proc.stderr
    commands = hook_commands(env)
    # the server started first and stopped before the move (else the first event would start one)
    assert venv.run(venv.bin("agenthooks"), "serve", "start", env=env, cwd=work).returncode == 0
    try:
        for key, argv in commands.items():
            assert launcher.is_launcher_path(argv[0]) and not argv[0].startswith(str(venv.path)), argv
            host, event = key.split("/")
            assert fire(argv, host, event, work, env).returncode == 0, key  # it works where it was installed
    finally:
        assert venv.run(venv.bin("agenthooks"), "serve", "stop", env=env, cwd=work).returncode == 0

    venv.path.rename(tmp_path / "moved")  # the user moves (or deletes and recreates) the environment
    for key, argv in commands.items():
        host, event = key.split("/")
        proc = fire(argv, host, event, work, env)
        assert proc.returncode == (2 if event == "PreToolUse" else 1), (key, proc.stderr)
        assert proc.stdout == b"" and proc.stderr.count(b"\n") == 1 and b"is gone" in proc.stderr, proc.stderr

    for var in ("AGENT_HOOKS_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "HOME"):
        monkeypatch.setenv(var, env[var])
    codex_lines = [line for line in cx.status() if "hooks.json" in line]
    assert codex_lines and codex_lines[0].startswith("problem:") and "which is gone" in codex_lines[0], codex_lines
    claude = [str(c) for c in cc.check() if "user settings" in str(c)]
    assert claude and claude[0].startswith("warning:") and "which is gone" in claude[0], claude
