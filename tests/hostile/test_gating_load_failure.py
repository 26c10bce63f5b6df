"""A plugin that implements a gating hook and fails to load or configure makes that hook deny in
every path: `agenthooks fire`, `replay`, the server's /fire, stdio and the bridges.

The mechanism is one place (discovery registers the gate for any failed plugin that implements,
or may implement, a gating hook), so each path below is the same runtime seen through a
different transport, each a real subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bridges.stdio_client import Session
from tests.serve.conftest import start_server

from .loading_support import RM_ROOT, agenthooks, write

#: a plugin with a strict configuration (like the guard's): `modee` is a typo of `mode`
STRICT = """
    from pydantic import BaseModel, ConfigDict
    from agent_hooks_core import hookimpl

    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")
        mode: str = "enforce"

    @hookimpl
    def plugin_config_model():
        return Config

    @hookimpl
    def pre_tool(event):
        if "rm -rf" in str(event.arguments.get("command")):
            return {"block": True, "reason": "no rm"}
"""
TYPO = '[plugins.strict]\nmodee = "observe"\n'
WHY = "plugin 'strict' failed to load"


@pytest.fixture
def setup(_isolated_home: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home with the typo in its settings, the plugin file, a working directory)."""
    write(_isolated_home / "settings.toml", TYPO)
    plugin = write(tmp_path / "plugins" / "strict.py", STRICT)
    cwd = tmp_path / "work"
    cwd.mkdir()
    return _isolated_home, plugin, cwd


NO_AUTOLOAD = {"AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_fire(setup: tuple[Path, Path, Path]) -> None:
    home, plugin, cwd = setup
    run = agenthooks("--hook", str(plugin), "fire", "pre_tool", cwd=cwd, home=home, data=RM_ROOT, **NO_AUTOLOAD)
    assert run.json["block"] is True and WHY in run.json["reason"], run
    # and not only for what the plugin would have blocked: it may have been the one to say no
    ls = {"tool_name": "bash", "arguments": {"command": "ls"}}
    run = agenthooks("--hook", str(plugin), "fire", "pre_tool", cwd=cwd, home=home, data=ls, **NO_AUTOLOAD)
    assert run.json["block"] is True and "modee" in run.json["reason"], run


def test_fire_with_the_installed_guard(_isolated_home: Path, tmp_path: Path) -> None:
    write(_isolated_home / "settings.toml", '[plugins.guard]\nmodee = "observe"\n')
    run = agenthooks("fire", "pre_tool", cwd=tmp_path, home=_isolated_home, data=RM_ROOT,
                     AGENT_HOOKS_PLUGINS="guard")
    assert run.json["block"] is True and "plugin 'guard' failed to load" in run.json["reason"], run


def test_a_failed_plugin_with_no_gating_hook_changes_nothing(_isolated_home: Path, tmp_path: Path) -> None:
    write(_isolated_home / "settings.toml", '[plugins.observer]\nmodee = 1\n')
    observer = write(tmp_path / "observer.py", STRICT.replace("def pre_tool(event):", "def post_tool(event):"))
    ls = {"tool_name": "bash", "arguments": {"command": "ls"}}
    run = agenthooks("--hook", str(observer), "fire", "pre_tool", cwd=tmp_path, home=_isolated_home, data=ls,
                     **NO_AUTOLOAD)
    assert run.code == 0 and run.json == {}, run


def test_replay(setup: tuple[Path, Path, Path]) -> None:
    home, plugin, cwd = setup
    session = write(cwd / "session.jsonl", json.dumps({"hook": "pre_tool", "event": RM_ROOT}) + "\n")
    run = agenthooks("--hook", str(plugin), "replay", "--json", str(session), cwd=cwd, home=home, **NO_AUTOLOAD)
    report = json.loads(run.out)
    assert report["summary"]["decisions"]["blocked"] == 1, run
    assert report["summary"]["answered_by"] == {"required-gate": {"blocked": 1}}


def test_server_fire(setup: tuple[Path, Path, Path]) -> None:
    home, plugin, cwd = setup
    server = start_server(home)
    try:
        request = {"hook": "pre_tool", "payload": RM_ROOT, "cwd": str(cwd), "hooks": [str(plugin)]}
        status, body = server.tcp("POST", "/fire", json.dumps(request).encode())
    finally:
        server.stop()
    out = json.loads(body)
    assert status == 200 and out["decision"] == "blocked" and WHY in out["result"]["reason"], out


def test_stdio(setup: tuple[Path, Path, Path]) -> None:
    _, plugin, cwd = setup
    session = Session(cwd, extra_args=["--hook", str(plugin)])
    try:
        session.result("initialize", {"host": "pi", "cwd": str(cwd)})
        out = session.result("fire", {"hook": "pre_tool", "payload": RM_ROOT})
    finally:
        session.proc.kill()
        session.proc.wait()
    assert out["decision"] == "blocked" and WHY in out["result"]["reason"], out


def test_bridge(setup: tuple[Path, Path, Path]) -> None:
    home, plugin, cwd = setup
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd), "tool_name": "Bash",
             "tool_input": {"command": "ls"}}
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", "--hook", str(plugin)],
                          input=json.dumps(event), capture_output=True, text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "AGENT_HOOKS_HOME": str(home), **NO_AUTOLOAD})
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "strict" in out["permissionDecisionReason"], proc


#: a payload each gating hook accepts
GATING_PAYLOADS = {
    "pre_tool": RM_ROOT,
    "pre_file_read": {"path": "notes.txt"},
    "pre_file_write": {"path": "notes.txt", "content": "x"},
    "pre_shell_exec": {"command": "ls"},
    "pre_fetch_url": {"url": "https://example.com/"},
    "permission_request": {"tool_name": "bash", "arguments": {"command": "ls"}},
}


def test_every_gating_hook_has_a_payload_here() -> None:
    from agent_hooks_core.discovery.gate import GATING_HOOKS

    assert set(GATING_PAYLOADS) == set(GATING_HOOKS)


@pytest.mark.parametrize("hook", sorted(GATING_PAYLOADS))
def test_every_gating_hook_denies(setup: tuple[Path, Path, Path], hook: str) -> None:
    # the plugin implements only pre_tool, but a plugin that failed to load may have implemented any of them
    home, plugin, cwd = setup
    run = agenthooks("--hook", str(plugin), "fire", hook, "--outcome", cwd=cwd, home=home,
                     data=GATING_PAYLOADS[hook], **NO_AUTOLOAD)
    assert run.json["decision"] in ("blocked", "denied") and WHY in run.json["result"]["reason"], run
