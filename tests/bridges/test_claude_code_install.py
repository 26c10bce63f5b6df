"""``agenthooks install|uninstall claude-code`` and the doctor status of the wiring."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import typer
from agent_hooks_core.bridges import claude_code_install as cc
from typer.testing import CliRunner

from .cc_schema import problems

USER_HOOK = {"type": "command", "command": "~/bin/notify.sh", "timeout": 5}
USER_SETTINGS = {
    "model": "claude-sonnet-5",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [USER_HOOK]}],
        "Notification": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return proj


def invoke(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, list(args))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def ours(settings: dict) -> dict[str, list[dict]]:
    return {e: [h for g in gs for h in g["hooks"] if cc.is_ours(h)] for e, gs in settings["hooks"].items()
            if any(cc.is_ours(h) for g in gs for h in g["hooks"])}


def test_install_project_writes_a_settings_file_claude_code_accepts(project, cli):
    r = invoke(cli, "install", "claude-code", "--project")
    assert r.exit_code == 0, r.output
    path = project / ".claude" / "settings.json"
    assert f"Wired agent-hooks into Claude Code (project): {path}" in r.output
    assert "transport: client" in r.output  # a committed file: the fast client, no token
    settings = load(path)
    assert problems(settings) == [] and "env" not in settings
    installed = ours(settings)
    assert list(installed) == list(cc.EVENTS)
    for event, handlers in installed.items():
        assert handlers == [cc.client_handler(event)]
        assert os.path.isabs(handlers[0]["command"]) and os.access(handlers[0]["command"], os.X_OK)
        assert handlers[0].get("onFailure") == ("block" if event in cc.GATING_EVENTS else None)
    groups = settings["hooks"]
    assert groups["PreToolUse"][0]["matcher"] == "*" and "matcher" not in groups["Stop"][0]


@pytest.mark.parametrize(("flags", "transport"), [
    (["--user"], "http"), (["--local"], "http"), (["--project"], "client"), ([], "http"),
    (["--project", "--transport", "command"], "command"), (["--local", "--transport", "client"], "client"),
])
def test_the_default_transport_is_the_fastest_safe_one_for_the_scope(project, cli, flags, transport, monkeypatch):
    monkeypatch.setattr("agent_hooks_core.serve.peers.other_users", lambda: [])  # a one-person machine
    r = invoke(cli, "install", "claude-code", *flags)
    assert r.exit_code == 0, r.output
    assert f"transport: {transport}\n" in r.output and "why:" in r.output
    scope = next((f[2:] for f in flags if f in ("--user", "--project", "--local")), "user")
    settings = load(cc.settings_path(scope, project))
    assert cc.transport_of([h for hs in ours(settings).values() for h in hs]) == transport
    assert ("env" in settings) == (transport == "http")  # the token only where it is private


@pytest.mark.parametrize("flags", [["--user"], ["--local"], []])
def test_where_other_people_log_in_the_default_keeps_the_token_off_tcp(project, cli, flags, monkeypatch):
    """While the server is down another user could listen on its 127.0.0.1 port and receive the token."""
    monkeypatch.setattr("agent_hooks_core.serve.peers.other_users", lambda: ["bob"])
    r = invoke(cli, "install", "claude-code", *flags)
    assert r.exit_code == 0, r.output
    assert "transport: client\n" in r.output and "other people log in here" in r.output
    scope = next((f[2:] for f in flags if f in ("--user", "--local")), "user")
    settings = load(cc.settings_path(scope, project))
    assert cc.transport_of([h for hs in ours(settings).values() for h in hs]) == "client"
    assert "env" not in settings  # no token in the file


def test_install_command_transport_runs_the_bridge_through_the_launcher(project, cli):
    r = invoke(cli, "install", "claude-code", "--project", "--transport", "command")
    assert r.exit_code == 0, r.output
    settings = load(project / ".claude" / "settings.json")
    assert problems(settings) == []
    command, prefix = cc.bridge_command()
    assert os.path.isabs(command) and os.access(command, os.X_OK)
    for event, handlers in ours(settings).items():
        gating = event in cc.GATING_EVENTS
        assert handlers == [{"type": "command", "command": command,
                             "args": [*(["--gating"] if gating else []), *prefix, "claude-code", "--event", event],
                             "timeout": 5 if event == "SessionEnd" else 60,
                             **({"onFailure": "block"} if gating else {})}]


def test_install_with_ask(project, cli):
    assert invoke(cli, "install", "claude-code", "--local", "--ask", "--transport", "command").exit_code == 0
    installed = ours(load(project / ".claude" / "settings.local.json"))
    assert installed["PreToolUse"][0]["args"][-1] == "--ask" and "--ask" not in installed["Stop"][0]["args"]
    assert cc.status(project)[0].startswith("ok: ")
    assert invoke(cli, "install", "claude-code", "--local", "--transport", "command").exit_code == 0  # and back
    assert "--ask" not in ours(load(project / ".claude" / "settings.local.json"))["PreToolUse"][0]["args"]


def test_install_is_idempotent(project, cli):
    assert invoke(cli, "install", "claude-code", "--local").exit_code == 0
    path = project / ".claude" / "settings.local.json"
    first = path.read_bytes()
    r = invoke(cli, "install", "claude-code", "--local")
    assert r.exit_code == 0 and "already wired" in r.output
    assert path.read_bytes() == first
    assert not path.with_name("settings.local.json.agenthooks.bak").exists()


def test_install_keeps_the_users_settings_and_makes_a_backup(project, cli):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    original = json.dumps(USER_SETTINGS, indent=4) + "\n"
    path.write_text(original)
    path.chmod(0o640)
    assert invoke(cli, "install", "claude-code", "--project").exit_code == 0
    settings = load(path)
    assert settings["model"] == "claude-sonnet-5" and settings["permissions"] == USER_SETTINGS["permissions"]
    assert settings["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [USER_HOOK]}
    assert settings["hooks"]["Notification"][0] == USER_SETTINGS["hooks"]["Notification"][0]
    assert len(settings["hooks"]["Notification"]) == 2
    assert path.with_name("settings.json.agenthooks.bak").read_text() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_text().startswith('{\n    "model"')  # indented like the user's file
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_reinstall_replaces_an_outdated_entry_in_place(project):
    old = cc.merged(USER_SETTINGS, "/old/venv/bin/agenthooks", [])
    legacy = {"type": "command", "command": "agenthooks claude-code"}  # shell form, by hand
    old["hooks"]["Stop"][0]["hooks"].append(legacy)
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(old))
    cc.plan_install("project").apply()
    settings = load(path)
    command, _ = cc.bridge_command()
    assert all(len(hs) == 1 and hs[0]["command"] == command for hs in ours(settings).values())
    # same place as before: after the user's own PreToolUse group
    assert settings["hooks"]["PreToolUse"][0]["hooks"] == [USER_HOOK]
    assert cc.is_ours(settings["hooks"]["PreToolUse"][1]["hooks"][0])


def test_our_handler_in_a_users_group_is_swapped_there(project):
    settings = {"hooks": {"Stop": [{"hooks": [USER_HOOK, {"type": "command", "command": "/x/bin/agenthooks",
                                                          "args": ["claude-code"]}]}]}}
    new = cc.merged(settings, "/y/bin/agenthooks", [])
    assert new["hooks"]["Stop"] == [{"hooks": [USER_HOOK, cc.handler("Stop", "/y/bin/agenthooks", [])]}]


def test_uninstall_removes_only_ours(project, cli):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(USER_SETTINGS))
    invoke(cli, "install", "claude-code", "--project")
    r = invoke(cli, "uninstall", "claude-code", "--project")
    assert r.exit_code == 0 and "Removed agent-hooks from Claude Code (project)" in r.output
    assert load(path) == USER_SETTINGS
    r = invoke(cli, "uninstall", "claude-code", "--project")
    assert r.exit_code == 0 and "not wired" in r.output


def test_uninstall_where_there_is_no_file_creates_none(project, cli):
    r = invoke(cli, "uninstall", "claude-code", "--project")
    assert r.exit_code == 0 and "not wired" in r.output
    assert not (project / ".claude").exists()


def test_uninstall_drops_what_only_we_filled(project, cli):
    invoke(cli, "install", "claude-code", "--local")
    invoke(cli, "uninstall", "claude-code", "--local")
    assert not (project / ".claude" / "settings.local.json").exists()  # nothing else was in it: deleted


def test_dry_run_shows_a_diff_and_writes_nothing(project, cli):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")
    before = path.read_text()
    r = invoke(cli, "install", "claude-code", "--project", "--dry-run")
    assert r.exit_code == 0
    assert r.output.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert '+            "onFailure": "block"' in r.output
    assert '             "timeout": 5' in r.output.splitlines()  # the user's hook, as context
    assert path.read_text() == before and not path.with_name("settings.json.agenthooks.bak").exists()
    r = invoke(cli, "uninstall", "claude-code", "--project", "--dry-run")
    assert "not wired, nothing to change" in r.output


def test_dry_run_of_a_new_file(project, cli):
    r = invoke(cli, "install", "claude-code", "--local", "--dry-run")
    assert r.output.startswith("--- /dev/null\n")
    assert not (project / ".claude").exists()


def test_user_scope_is_the_default_and_follows_claude_config_dir(project, cli, tmp_path):
    assert invoke(cli, "install", "claude-code").exit_code == 0
    assert problems(load(tmp_path / "claude-home" / "settings.json")) == []
    assert not (project / ".claude").exists()


def test_dir_option(project, cli, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    assert invoke(cli, "install", "claude-code", "--project", "--dir", str(other)).exit_code == 0
    assert (other / ".claude" / "settings.json").exists()


@pytest.mark.parametrize(("content", "message"), [
    ("{broken", "is not valid JSON"),
    ("[]", "must hold a JSON object"),
    ('{"hooks": []}', '"hooks" must be an object'),
    ('{"hooks": {"Stop": {}}}', "hooks.Stop must be a list"),
])
def test_a_settings_file_we_cannot_read_is_left_alone(project, cli, content, message):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    for command in ("install", "uninstall"):
        r = CliRunner().invoke(cli, [command, "claude-code", "--project"])
        assert r.exit_code == 2
        assert r.output.count("\n") == 1 and "agenthooks: error:" in r.output and message in r.output
        assert path.read_text() == content


def test_one_scope_at_a_time(project, cli):
    r = invoke(cli, "install", "claude-code", "--project", "--local")
    assert r.exit_code == 2 and "choose one of --user, --project, --local" in r.output


def test_command_falls_back_to_python_dash_m(monkeypatch, tmp_path):
    monkeypatch.setattr(cc.sysconfig, "get_path", lambda name: str(tmp_path))
    command, prefix = cc.bridge_command()
    # the project is the agent's: -I (or -P) keeps the project directory (Claude Code's cwd) off sys.path
    assert prefix in (["-I", "-m", "agent_hooks_core"], ["-E", "-P", "-m", "agent_hooks_core"]) and os.path.isabs(command)
    assert cc.is_ours(cc.handler("Stop", command, prefix))


@pytest.mark.parametrize(("entry", "mine"), [
    ({"type": "command", "command": "/v/bin/agenthooks", "args": ["claude-code"]}, True),
    ({"type": "command", "command": "C:\\v\\Scripts\\agenthooks.exe", "args": ["claude-code"]}, True),
    ({"type": "command", "command": "/usr/bin/python3", "args": ["-m", "agent_hooks_core", "claude-code"]}, True),
    ({"type": "command", "command": "agenthooks claude-code --event Stop"}, True),
    ({"type": "command", "command": "/v/bin/agenthooks", "args": ["chibi"]}, False),
    ({"type": "command", "command": "my-agenthooks-wrapper.sh"}, False),
    ({"type": "command", "command": "/usr/bin/python3", "args": ["claude-code.py"]}, False),
    ({"type": "http", "url": "http://x/agenthooks claude-code"}, False),
])
def test_is_ours(entry, mine):
    assert cc.is_ours(entry) is mine


# -- doctor --------------------------------------------------------------------------------------


def test_status_not_wired(project):
    assert cc.status(project) == [
        "warning: Claude Code is not wired to agent-hooks; run `agenthooks install claude-code`"]


def test_status_current(project, cli):
    invoke(cli, "install", "claude-code", "--project", "--transport", "command")
    path = project / ".claude" / "settings.json"
    assert cc.status(project) == [f"ok: Claude Code project settings ({path}): wired for {len(cc.EVENTS)} events, current"]


def test_status_outdated(project):
    settings = cc.merged({}, "/gone/venv/bin/agenthooks", [])
    del settings["hooks"]["Stop"]
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**settings, "disableAllHooks": True}))
    lines = cc.status(project)
    assert lines[0] == f"warning: Claude Code local settings ({path}): disableAllHooks is true, so no hook runs"
    assert lines[1].startswith(f"warning: Claude Code local settings ({path}): outdated (not wired for Stop; ")
    assert "runs /gone/venv/bin/agenthooks, which does not exist" in lines[1]
    # --local would be http by default: the hint keeps the transport the file uses
    assert lines[1].endswith("run `agenthooks install claude-code --transport command --local`")


def test_status_reports_an_unreadable_file(project):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{")
    assert any("is not valid JSON" in line for line in cc.status(project))


def test_status_two_scopes_with_different_commands(project):
    cc.FileChange(cc.settings_path("project"), None, cc.dump(cc.merged({}, "/a/bin/agenthooks", []))).apply()
    cc.plan_install("local").apply()
    assert any("with different commands" in line for line in cc.status(project))


def test_every_claude_code_event_is_wired_or_left_out_for_a_reason():
    assert set(cc.EVENTS).isdisjoint(cc.NOT_WIRED)
    assert set(cc.EVENTS) | set(cc.NOT_WIRED) == set(cc.HOOK_EVENTS)


def test_a_deleted_launcher_is_reported_and_a_reinstall_repairs_it(project, cli):
    from agent_hooks_core.transports import launcher

    if not launcher.supported():
        pytest.skip("the launcher is a POSIX sh script")
    assert invoke(cli, "install", "claude-code", "--project", "--transport", "command").exit_code == 0
    path = launcher.path()
    assert path.is_file() and os.access(path, os.X_OK)
    path.unlink()
    line = cc.status(project)[0]
    assert line.startswith("warning:") and f"runs {path}, which does not exist" in line
    r = invoke(cli, "install", "claude-code", "--project", "--transport", "command")
    assert r.exit_code == 0 and "already wired" in r.output  # the settings did not change...
    assert path.is_file() and cc.status(project)[0].startswith("ok:")  # ...the launcher is back
