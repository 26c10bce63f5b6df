"""The hosts that speak Claude Code's hook protocol through their own config files (Qwen Code,
GitHub Copilot CLI, Factory Droid): install is idempotent and keeps the user's entries, uninstall
leaves nothing of ours, doctor reports wiring the host would skip, and a PreToolUse that fails on
our side is a deny in JSON and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges import adapter
from agent_hooks_core.bridges.registry import installer

#: host -> (user config file under HOME, the key of the event table or None for the top level)
HOSTS: dict[str, tuple[str, str | None]] = {
    "qwen": (".qwen/settings.json", "hooks"),
    "copilot": (".copilot/hooks/agent-hooks.json", "hooks"),
    "droid": (".factory/hooks.json", None),
}

ARGV = [sys.executable, "-m", "agent_hooks_core"]


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def _table(data: dict, key: str | None) -> dict:
    return data.get(key, {}) if key else data


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_install_keeps_the_users_hooks_and_is_idempotent(host, home):
    rel, key = HOSTS[host]
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = {"hooks": [{"type": "command", "command": "echo mine", "timeout": 5}]}
    users = {"PreToolUse": [mine]}
    path.write_text(json.dumps({key: users, "theme": "dark"} if key else {**users}))
    inst = installer(host)
    inst.plan_install("user", argv=[*ARGV, host]).apply()
    first = path.read_text()
    inst.plan_install("user", argv=[*ARGV, host]).apply()
    assert path.read_text() == first
    table = _table(json.loads(first), key)
    assert mine in table["PreToolUse"] and len(table["PreToolUse"]) == 2
    assert set(adapter(host).EVENTS) <= set(table)
    project = str(home / "project")
    assert inst.wired(project) == ["user"]
    assert any(line.startswith("ok: ") for line in inst.status(project))
    inst.plan_uninstall("user").apply()
    left = json.loads(path.read_text())
    assert _table(left, key) == users and inst.wired(project) == []


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_a_broken_table_is_one_line_and_nothing_changes(host, home):
    rel, key = HOSTS[host]
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({key: ["not", "an", "object"]}) if key else json.dumps({"PreToolUse": {"x": 1}})
    path.write_text(text)
    inst = installer(host)
    with pytest.raises(Exception) as info:
        inst.plan_install("user", argv=[*ARGV, host]).apply()
    assert "nothing was changed" in str(info.value) and "\n" not in str(info.value)
    assert path.read_text() == text


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_unreadable_pretooluse_fails_closed(host):
    answer = adapter(host).failure("PreToolUse", "bad input")
    body = answer.body["hookSpecificOutput"]
    assert answer.exit_code == (0 if host == "copilot" else 2) and answer.blocked
    assert body["permissionDecision"] == "deny" and "fail-closed" in body["permissionDecisionReason"]
    assert adapter(host).failure("SessionEnd", "bad input").exit_code == 1


@pytest.mark.parametrize(("trusted", "warned"), [(None, True), ("project", False), ("", False), ("elsewhere", True)])
def test_doctor_reports_copilots_untrusted_folder(home, trusted, warned):
    from agent_hooks_core.bridges import copilot

    project = home / "work" / "project"
    project.mkdir(parents=True)
    copilot.INSTALLER.plan_install("project", project, argv=[*ARGV, "copilot"]).apply()
    if trusted is not None:
        folder = {"project": project, "": home / "work", "elsewhere": home / "other"}[trusted]
        (home / ".copilot").mkdir()
        # Copilot writes this file with a leading comment line
        (home / ".copilot" / "config.json").write_text(
            "// managed by Copilot\n" + json.dumps({"trusted_folders": [str(folder)]}))
    lines = copilot.INSTALLER.status(str(project))
    assert any(line.startswith("warning:") and "trust" in line for line in lines) is warned, lines


@pytest.mark.parametrize(("layout", "expected"), [
    ("top", "ok: "),                      # what install writes
    ("wrapped", "problem: "),             # ours under a "hooks" wrapper: Droid never runs them
    ("user-wrapped", "warning: "),        # the user's own hooks under the wrapper
    ("settings", "warning: "),            # hooks in settings.json while hooks.json exists
])
def test_doctor_reports_droids_silent_skips(home, layout, expected):
    from agent_hooks_core.bridges import droid

    droid.INSTALLER.plan_install("user", argv=[*ARGV, "droid"]).apply()
    path = home / ".factory" / "hooks.json"
    ours = json.loads(path.read_text())
    mine = {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}
    if layout == "wrapped":
        path.write_text(json.dumps({"hooks": ours}))
    elif layout == "user-wrapped":
        path.write_text(json.dumps({**ours, "hooks": mine}))
    elif layout == "settings":
        (home / ".factory" / "settings.json").write_text(json.dumps({"hooks": mine}))
    lines = droid.INSTALLER.status(str(home / "project"))
    assert any(line.startswith(expected) for line in lines), lines
    if expected != "ok: ":
        assert any("ignores" in line for line in lines), lines


def test_doctor_says_copilot_does_not_run_our_claude_project_hooks(home, tmp_path, monkeypatch):
    """Copilot runs a trusted repository's .claude hooks, but ours (exec-form) without their args."""
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    copilot = installer("copilot")
    assert not [line for line in copilot.status(str(project)) if "Claude Code hooks" in line]
    import subprocess

    proc = subprocess.run([*ARGV, "install", "claude-code", "--project"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in copilot.status(str(project)) if "Claude Code hooks" in line]
    assert len(warned) == 1 and "agenthooks install copilot" in warned[0], warned
    copilot.plan_install("user").apply()
    assert not [line for line in copilot.status(str(project)) if "Claude Code hooks" in line]


#: where each host reads the context a hook adds (Copilot 1.0.102: the top level only, measured)
CONTEXT_AT = {"qwen": ("hookSpecificOutput", "additionalContext"), "droid": ("hookSpecificOutput", "additionalContext"),
              "copilot": ("additionalContext",)}


@pytest.mark.parametrize("host", sorted(HOSTS))
@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit"])
def test_injected_context_is_where_the_host_reads_it(host, event, tmp_path):
    from tests.bridges.conftest import PLUGIN

    payload = {"hook_event_name": event, "session_id": "s1", "cwd": str(tmp_path), "prompt": "hi", "source": "startup"}
    script = {"pre_system_prompt": {"answer": {"inject": "Project rule: run tox."}}}
    env = {**os.environ, "CC_TEST_LOG": str(tmp_path / "calls.jsonl"), "CC_TEST_SCRIPT": json.dumps(script),
           "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([*ARGV, host, "--hook", str(PLUGIN)], input=json.dumps(payload), capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    body: object = json.loads(proc.stdout)
    for key in CONTEXT_AT[host]:
        assert isinstance(body, dict), proc.stdout
        body = body.get(key)
    assert body == "Project rule: run tox.", proc.stdout
