"""``agenthooks install claude-code --transport http|client``: what is written, switching, removing,
doctor, and Claude Code's side of the http protocol played against a real server."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import stat
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import typer
from agent_hooks_core.bridges import claude_code_install as cc
from agent_hooks_core.serve import paths
from typer.testing import CliRunner

from tests.support.trusting import trust_user_hooks

from ..serve.conftest import start_server
from .cc_schema import problems
from .payloads import event


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / "ah-home"))
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return proj


def invoke(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, list(args))


def local(project: Path) -> dict:
    return json.loads((project / ".claude" / "settings.local.json").read_text())


def handlers(settings: dict, event_name: str) -> list[dict]:
    return [h for g in settings["hooks"][event_name] for h in g["hooks"]]


def test_http_install_writes_http_hooks_the_token_and_a_starter(project, cli):
    r = invoke(cli, "install", "claude-code", "--local", "--transport", "http")
    assert r.exit_code == 0, r.output
    path = project / ".claude" / "settings.local.json"
    settings = local(project)
    assert problems(settings) == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert settings["env"] == {"AGENT_HOOKS_TOKEN": paths.token(create=False)}
    url = f"http://127.0.0.1:{paths.port()}/hosts/claude-code"
    for name in cc.EVENTS:
        http_hooks = [h for h in handlers(settings, name) if h["type"] == "http"]
        assert http_hooks == [{"type": "http", "url": url, "headers": {"X-Agent-Hooks-Token": "$AGENT_HOOKS_TOKEN"},
                               "allowedEnvVars": ["AGENT_HOOKS_TOKEN"], "timeout": 5 if name == "SessionEnd" else 60,
                               **({"onFailure": "block"} if name in ("PreToolUse", "PermissionRequest") else {})}]
    starter = handlers(settings, "SessionStart")[0]
    assert starter["type"] == "command" and starter["args"][-1] == "--ensure-server" and cc.is_starter(starter)
    assert os.path.isabs(starter["command"]) and ("-I" in starter["args"] or "-P" in starter["args"])
    assert cc.is_starter(starter) and not cc.is_starter(handlers(settings, "Stop")[0])


def test_http_with_ask_passes_it_in_the_url_of_pre_tool_use_only(project, cli):
    assert invoke(cli, "install", "claude-code", "--local", "--transport", "http", "--ask").exit_code == 0
    settings = local(project)
    assert handlers(settings, "PreToolUse")[0]["url"].endswith("/hosts/claude-code?arg=--ask")
    assert handlers(settings, "Stop")[0]["url"].endswith("/hosts/claude-code")


def test_http_refuses_the_committed_project_file(project, cli):
    r = invoke(cli, "install", "claude-code", "--project", "--transport", "http")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "carries your per-user token" in r.output
    assert not (project / ".claude").exists()


def test_an_unknown_transport_is_one_line(project, cli):
    r = invoke(cli, "install", "claude-code", "--local", "--transport", "pigeon")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "--transport must be one of auto, command, client, http" in r.output


def test_switching_transports_replaces_everything_of_ours_and_uninstall_removes_it(project, cli):
    user = {"env": {"KEEP": "1"}, "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text(json.dumps(user))
    assert invoke(cli, "install", "claude-code", "--local", "--transport", "http").exit_code == 0
    assert invoke(cli, "install", "claude-code", "--local", "--transport", "client").exit_code == 0
    settings = local(project)
    assert settings["env"] == {"KEEP": "1"}  # the token went with the http hooks
    ours = [h for name in settings["hooks"] for h in handlers(settings, name) if cc.is_ours(h) or cc.is_starter(h)]
    assert len(ours) == len(cc.EVENTS) and cc.transport_of(ours) == "client"
    pre = handlers(settings, "PreToolUse")[0]
    assert pre["args"][:3] == ["--gating", "-S", "-I"] and "--gating" in pre["args"][3:] and pre["onFailure"] == "block"
    assert "--gating" not in handlers(settings, "Stop")[0]["args"]
    assert invoke(cli, "install", "claude-code", "--local", "--transport", "command").exit_code == 0
    assert cc.transport_of([h for n in settings["hooks"] for h in handlers(local(project), n)]) == "command"
    assert invoke(cli, "uninstall", "claude-code", "--local").exit_code == 0
    assert local(project) == user


def test_doctor_says_the_server_is_down_and_how_to_fix_it(project, cli):
    invoke(cli, "install", "claude-code", "--local", "--transport", "http")
    lines = cc.status(project)
    assert lines[0].startswith("ok: ") and "(transport http), current" in lines[0]
    assert any(line.startswith("problem: ") and "the warm server is not running" in line
               and "`agenthooks serve start`" in line for line in lines)
    invoke(cli, "install", "claude-code", "--local", "--transport", "client")
    assert any(line.startswith("warning: ") and "answered by a fresh process" in line for line in cc.status(project))


def test_doctor_finds_a_wrong_token(project, cli):
    invoke(cli, "install", "claude-code", "--local", "--transport", "http")
    path = project / ".claude" / "settings.local.json"
    settings = local(project)
    settings["env"]["AGENT_HOOKS_TOKEN"] = "stale"
    path.write_text(json.dumps(settings))
    assert any("env.AGENT_HOOKS_TOKEN is missing or not the server's token" in line for line in cc.status(project))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_claude_code(entry: dict, env: dict[str, str], body: bytes) -> tuple[int, bytes]:
    """POST like Claude Code 2.1.330: $VAR in headers expanded only for allowedEnvVars."""
    allowed = set(entry.get("allowedEnvVars", []))
    headers = {k: re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), "")
                         if m.group(1) in allowed else "", v) for k, v in entry.get("headers", {}).items()}
    url = urlsplit(entry["url"])
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        conn.request("POST", url.path + (f"?{url.query}" if url.query else ""), body=body,
                     headers={**headers, "Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_what_install_writes_works_against_a_real_server(project, cli, monkeypatch, tmp_path):
    port = _free_port()
    monkeypatch.setenv("AGENT_HOOKS_SERVE_PORT", str(port))
    hook = tmp_path / "deny.py"
    hook.write_text("from agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event):\n"
                    "    if 'rm -rf' in str(event.arguments.get('command')):\n"
                    "        return {'block': True, 'reason': 'not on my watch'}\n")
    ah_home = Path(os.environ["AGENT_HOOKS_HOME"])
    ah_home.mkdir(parents=True, exist_ok=True)
    (ah_home / "settings.toml").write_text(f"hooks = [{json.dumps(str(hook))}]\n")
    trust_user_hooks()
    assert invoke(cli, "install", "claude-code", "--local", "--transport", "http").exit_code == 0
    settings = local(project)
    srv = start_server(ah_home, {"AGENT_HOOKS_SERVE_PORT": str(port)})
    try:
        pre = handlers(settings, "PreToolUse")[0]
        rm = json.dumps(event("PreToolUse", str(project), tool_input={"command": "rm -rf ~"})).encode()
        status, body = _as_claude_code(pre, settings["env"], rm)
        assert status == 200 and json.loads(body)["hookSpecificOutput"] == {
            "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on my watch"}
        ls = json.dumps(event("PreToolUse", str(project), tool_input={"command": "ls"})).encode()
        assert _as_claude_code(pre, settings["env"], ls) == (200, b"{}\n")  # never an empty body
        assert _as_claude_code(pre, {}, rm)[0] == 403  # without the token: refused (onFailure blocks it)
        lines = cc.status(project)
        assert not any(line.startswith("problem: ") for line in lines), lines
    finally:
        srv.stop()
