"""What the user and the organisation set is what runs, in every long-lived runtime, within a second.

Each input that decides what runs is changed under a running server and under a running
``serve --stdio`` session; the test polls (with a deadline of one second from the write) until
the new policy answers, and checks the old one answered until then. A change that does not load
keeps the last good policy with a visible error; ``serve status`` shows the enforced policy.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..bridges.payloads import event
from ..bridges.stdio_client import Session
from .conftest import start_server

WITHIN = 1.0

#: denies the command named by its settings ([plugins.denier] block = "...")
DENIER = '''\
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event, ctx):
    if event.arguments.get("command") == (ctx.config or {}).get("block"):
        return {"block": True, "reason": "blocked by " + str((ctx.config or {}).get("why", "settings"))}
'''


def _until(probe: Callable[[], Any], want: Any, written: float, what: str = "") -> Any:
    """Poll ``probe`` until it gives ``want``; fail if that takes more than WITHIN after the write."""
    while True:
        got = probe()
        if got == want:
            return got
        assert time.monotonic() - written < WITHIN, f"{what}: still {got!r}, {WITHIN} s after the change"


class Inputs:
    """The inputs under test, in a private AGENT_HOOKS_HOME and project."""

    def __init__(self, home: Path, project: Path) -> None:
        self.home = home
        self.project = project
        self.hook = project.parent / "denier.py"
        self.hook.write_text(DENIER)
        (project / ".agent-hooks").mkdir(parents=True)

    def write(self, path: Path, text: str) -> float:
        path.write_text(text)
        return time.monotonic()


def _server_probe(srv, inputs: Inputs, command: str) -> Callable[[], str | None]:
    raw = json.dumps(event("PreToolUse", str(inputs.project), tool_input={"command": command})).encode()
    path = f"/hosts/claude-code?arg=--hook&arg={inputs.hook}"

    def probe() -> str | None:
        status, body = srv.tcp("POST", path, raw)
        assert status == 200, body
        return json.loads(body).get("hookSpecificOutput", {}).get("permissionDecision")

    return probe


@pytest.fixture
def inputs(serve_home: Path, tmp_path: Path) -> Inputs:
    return Inputs(serve_home, tmp_path / "project")


def _changes(inputs: Inputs, env: dict[str, str]) -> list[tuple[str, Callable[[], float], str, str | None]]:
    """(what, change it, command, the decision for it afterwards), applied in order."""
    home, project = inputs.home, inputs.project
    org = home / "org.toml"

    def trust() -> float:
        subprocess.run([sys.executable, "-m", "agent_hooks_core", "trust", str(project)], env=env, check=True,
                       capture_output=True, timeout=60)
        return time.monotonic()

    return [
        ("user settings", lambda: inputs.write(home / "settings.toml", '[plugins.denier]\nblock = "one"\n'),
         "one", "deny"),
        ("project settings, untrusted", lambda: inputs.write(project / ".agent-hooks" / "settings.toml",
                                                             '[plugins.denier]\nblock = "two"\n'), "two", None),
        ("project trusted", trust, "two", "deny"),
        ("hook file", lambda: inputs.write(inputs.hook, DENIER.replace('== (ctx.config or {}).get("block")',
                                                                       'in ((ctx.config or {}).get("block"), "three")')),
         "three", "deny"),
        # the organisation's keys win over the user's and the project's
        ("organisation policy", lambda: (org.write_text('[plugins.denier]\nblock = "four"\n'), inputs.write(
            home / "settings.toml", f'organisation = {{path = "{org}"}}\n'))[1], "four", "deny"),
        ("organisation policy pushed", lambda: inputs.write(org, '[plugins.denier]\nblock = "five"\n'),
         "five", "deny"),
    ]


def test_every_input_changed_under_a_running_server_is_in_force_within_a_second(serve_home, inputs):
    srv = start_server(serve_home, {"AGENT_HOOKS_SERVE_WORKERS": "2"})
    try:
        for what, change, command, want in _changes(inputs, srv.run_env()):
            probe = _server_probe(srv, inputs, command)
            before = probe()
            assert before != want or what == "project settings, untrusted", what  # the old policy until then
            _until(probe, want, change(), what)
        st = srv.status()
        assert st["policies"] and all(p["matches_disk"] for p in st["policies"])
        assert all(len(p["policy"]) == 16 for p in st["policies"])
    finally:
        srv.stop()


def test_every_input_changed_under_a_stdio_session_is_in_force_within_a_second(serve_home, inputs, monkeypatch):
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(serve_home))
    session = Session(inputs.project, extra_args=["--hook", str(inputs.hook)])
    try:
        session.result("initialize", {"host": "pi", "cwd": str(inputs.project)})

        def probe_for(command: str) -> Callable[[], str | None]:
            def probe() -> str | None:
                answer = session.result("event", {"name": "tool_call", "payload": {
                    "type": "tool_call", "toolName": "bash", "toolCallId": "t1", "input": {"command": command}}})["answer"]
                return "deny" if answer and answer.get("block") else None
            return probe

        import os

        for what, change, command, want in _changes(inputs, dict(os.environ)):
            probe = probe_for(command)
            assert probe() != want or what == "project settings, untrusted", what
            _until(probe, want, change(), what)
    finally:
        session.close()


def test_a_change_that_does_not_load_keeps_the_last_good_policy_with_a_visible_error(serve_home, inputs):
    srv = start_server(serve_home, {"AGENT_HOOKS_SERVE_WORKERS": "1"})
    try:
        probe = _server_probe(srv, inputs, "one")
        _until(probe, "deny", inputs.write(serve_home / "settings.toml", '[plugins.denier]\nblock = "one"\n'))
        inputs.write(serve_home / "settings.toml", '[plugins.denier\nblock = "one"\n')  # broken TOML
        assert probe() == "deny"  # still enforced: never an allow out of a failure
        st = srv.status()
        assert any("reload refused" in e for e in st["policy_errors"]), st
        _until(probe, None, inputs.write(serve_home / "settings.toml", ""))  # fixed: the new policy applies
    finally:
        srv.stop()
