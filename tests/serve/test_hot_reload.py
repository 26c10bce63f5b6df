"""Hot reload in a running server: a plugin wheel installed while it runs is used by the next event;
disabled in the settings, it is not called by the next one; settings edits are seen at once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from ..bridges.payloads import event
from .conftest import start_server

PLUGIN = textwrap.dedent("""\
    from agent_hooks_core import hookimpl

    @hookimpl
    def pre_tool(event):
        if event.arguments.get("command") == "deploy":
            return {"block": True, "reason": "hot plugin says no"}
""")


def _wheel(tmp: Path) -> Path:
    src = tmp / "src"
    (src / "hot_plugin").mkdir(parents=True)
    (src / "hot_plugin" / "__init__.py").write_text(PLUGIN)
    (src / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "hot-plugin"
        version = "1.0"

        [project.entry-points.agent_hooks]
        hot = "hot_plugin"
    """))
    out = tmp / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(src)], check=True, capture_output=True, timeout=300)
    return next(out.glob("hot_plugin-*.whl"))


def _decision(server, cwd: Path) -> str | None:
    raw = json.dumps(event("PreToolUse", str(cwd), tool_input={"command": "deploy"})).encode()
    status, body = server.tcp("POST", "/hosts/claude-code", raw)
    assert status == 200
    return json.loads(body).get("hookSpecificOutput", {}).get("permissionDecision")


def test_install_a_wheel_then_disable_it_while_the_server_runs(serve_home, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    wheel = _wheel(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    srv = start_server(serve_home, {"PYTHONPATH": str(site), "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "0",
                                    "AGENT_HOOKS_SERVE_WORKERS": "1"})  # one worker: builds are countable
    try:
        assert _decision(srv, project) is None  # warm, and the plugin is not there yet
        builds = srv.status()["builds"]
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                        str(wheel)], check=True, capture_output=True, timeout=300)
        assert _decision(srv, project) == "deny"  # the next event sees it
        st = srv.status()
        assert st["builds"] == builds + 1 and st["last_reload"] is not None and "hot" in st["plugins"]
        assert _decision(srv, project) == "deny" and srv.status()["builds"] == builds + 1  # no rebuild needed

        (serve_home / "settings.toml").write_text('disabled = ["hot"]\n')
        assert _decision(srv, project) is None  # disabled: not called
        (serve_home / "settings.toml").write_text("")
        assert _decision(srv, project) == "deny"
    finally:
        srv.stop()


def test_project_hook_files_run_only_where_trusted_and_only_while_unchanged(serve_home, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for p in (one, two):
        (p / ".agent-hooks").mkdir(parents=True)
        (p / ".agent-hooks" / "deny.py").write_text(PLUGIN)
        (p / ".agent-hooks" / "settings.toml").write_text('hooks = [".agent-hooks/deny.py"]\n')
    srv = start_server(serve_home)
    try:
        trust = subprocess.run([sys.executable, "-m", "agent_hooks_core", "trust", str(two)], env=srv.run_env(),
                               capture_output=True, text=True, timeout=60)
        assert trust.returncode == 0, trust.stderr
        assert _decision(srv, one) is None  # untrusted: its hook code never runs in the server either
        assert _decision(srv, two) == "deny"
        assert srv.status()["runtimes"] == 2
        # the trusted file changes: it is no longer what was trusted, so the next event does not run it
        (two / ".agent-hooks" / "deny.py").write_text(PLUGIN + "\n# changed\n")
        assert _decision(srv, two) is None
    finally:
        srv.stop()


def _install(wheel: Path, site: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, timeout=300)


def _reason(server, cwd: Path, command: str) -> tuple[str | None, str]:
    raw = json.dumps(event("PreToolUse", str(cwd), tool_input={"command": command})).encode()
    status, body = server.tcp("POST", "/hosts/claude-code", raw)
    assert status == 200
    out = json.loads(body).get("hookSpecificOutput", {})
    return out.get("permissionDecision"), out.get("permissionDecisionReason", "")


def test_a_gating_plugin_that_disappears_mid_upgrade_denies_until_it_is_back(serve_home, tmp_path):
    import shutil

    site = tmp_path / "site"
    site.mkdir()
    wheel = _wheel(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    _install(wheel, site)
    srv = start_server(serve_home, {"PYTHONPATH": str(site), "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "0",
                                    "AGENT_HOOKS_SERVE_WORKERS": "1"})
    try:
        assert _reason(srv, project, "deploy") == ("deny", "hot plugin says no")
        assert _reason(srv, project, "ls")[0] is None
        # the uninstall half of an upgrade: the distribution is gone
        for path in site.glob("hot_plugin*"):  # the package and its .dist-info
            shutil.rmtree(path)
        decision, reason = _reason(srv, project, "ls")
        assert decision == "deny" and "hot disappeared" in reason  # never an allow while it is missing
        assert any(p["missing"] == ["hot"] for p in srv.status()["policies"])
        _install(wheel, site)  # the install half: back to normal
        assert _reason(srv, project, "ls")[0] is None
        assert _reason(srv, project, "deploy") == ("deny", "hot plugin says no")
    finally:
        srv.stop()


def test_a_gating_hook_file_that_stops_loading_keeps_the_last_good_runtime(serve_home, tmp_path):
    hook = tmp_path / "gate.py"
    hook.write_text(PLUGIN)
    project = tmp_path / "project"
    project.mkdir()
    srv = start_server(serve_home, {"AGENT_HOOKS_SERVE_WORKERS": "1"})
    raw = {c: json.dumps(event("PreToolUse", str(project), tool_input={"command": c})).encode() for c in ("deploy", "ls")}

    def decision(command: str) -> str | None:
        status, body = srv.tcp("POST", f"/hosts/claude-code?arg=--hook&arg={hook}", raw[command])
        assert status == 200
        return json.loads(body).get("hookSpecificOutput", {}).get("permissionDecision")

    try:
        assert (decision("deploy"), decision("ls")) == ("deny", None)
        hook.write_text("def half_written(:\n")
        assert (decision("deploy"), decision("ls")) == ("deny", None)  # the last good runtime answers
        errors = srv.status()["policy_errors"]
        assert any("reload refused" in e and "gate" in e for e in errors), errors
        hook.write_text(PLUGIN.replace("deploy", "ls"))
        assert (decision("deploy"), decision("ls")) == (None, "deny")  # fixed: the new one is in force
    finally:
        srv.stop()


def test_a_wheel_installed_under_a_stdio_session_is_in_force_for_its_next_event(serve_home, tmp_path):
    import os
    import time

    site = tmp_path / "site"
    site.mkdir()
    wheel = _wheel(tmp_path)
    env = {**os.environ, "AGENT_HOOKS_HOME": str(serve_home), "PYTHONPATH": str(site),
           "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "agent_hooks_core", "serve", "--stdio"], cwd=tmp_path, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    ids = iter(range(1, 1000))

    def call(method: str, params: dict) -> dict:
        my_id = next(ids)
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params}).encode()
                         + b"\n")
        proc.stdin.flush()
        while True:
            msg = json.loads(proc.stdout.readline())
            if msg.get("id") == my_id:
                return msg["result"]

    def blocked() -> bool:
        answer = call("event", {"name": "tool_call", "payload": {
            "type": "tool_call", "toolName": "bash", "toolCallId": "c", "input": {"command": "deploy"}}})["answer"]
        return bool(answer and answer.get("block"))

    try:
        call("initialize", {"host": "pi", "cwd": str(tmp_path)})
        assert not blocked()
        _install(wheel, site)
        written = time.monotonic()
        while not blocked():
            assert time.monotonic() - written < 1.0, "the installed plugin was not in force within a second"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
