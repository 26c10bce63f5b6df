"""The Mistral Vibe adapter on recorded Vibe 3.0.2 payloads, its answers, and the installer
(hooks.toml, strict = true, project trust and a shadowing project hook found by doctor)."""

from __future__ import annotations

import sys

import pytest
import tomlkit
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.vibe import install as vb
from agent_hooks_core.bridges.vibe.adapter import ADAPTER, EVENTS

from .hostkit_support import Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("vibe")
#: the fields of Vibe's structured response
TOP = {"decision", "reason", "system_message", "hook_specific_output"}


def test_registered_and_every_event_sampled():
    assert load_adapter("vibe") is ADAPTER
    assert {k.split("/")[0] for k in SAMPLES} == set(EVENTS)


def pre_tool(command):
    event = SAMPLES["pre_tool"]
    event["tool_input"] = {"command": command}
    return event


@pytest.mark.parametrize(("command", "denied"), [("rm -rf ~", True), ("echo hi", False)])
def test_guard_decides_and_the_answer_is_vibes_shape(command, denied, tmp_path):
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), pre_tool(command))
    assert answer.exit_code == 0 and answer.blocked is denied
    if denied:
        assert set(answer.body) <= TOP and answer.body["decision"] == "deny" and "[guard:" in answer.body["reason"]
    else:
        assert answer.body is None


@pytest.mark.parametrize("event", [
    {"hook_event_name": "pre_tool", "tool_name": "file_system.bash", "tool_input": {}},
    {"hook_event_name": "pre_tool", "tool_name": "bash", "tool_input": {"command": ["rm", "-rf", "/"]}},
    {"hook_event_name": "pre_tool", "tool_name": "file_system.write_file", "tool_input": "x"},
])
def test_an_event_that_cannot_be_checked_is_denied_on_both_paths(event):
    from agent_hooks_core.bridges.base import BridgeInputError

    with pytest.raises(BridgeInputError):  # every transport answers this with failure()
        ADAPTER.handle(runtime(Scripted(pre_tool=None)), event)
    answer = ADAPTER.failure("pre_tool", "bad event")
    # a JSON deny for Vibe, and exit 2 + stderr for strict = true if the JSON were lost
    assert answer.body["decision"] == "deny" and "fail-closed" in answer.body["reason"]
    assert answer.exit_code == 2 and answer.stderr and answer.blocked


@pytest.mark.parametrize(("tool", "arguments", "hook"), [
    ("read_file", {"path": "secret.txt"}, "pre_file_read"),           # 3.0.2's own field
    ("read_file", {"file_path": "secret.txt"}, "pre_file_read"),
    ("write_file", {"path": "secret.txt", "content": "x"}, "pre_file_write"),
    ("edit", {"file_path": "secret.txt", "old_string": "a", "new_string": "b"}, "pre_file_write"),
])
def test_file_tools_reach_their_permission_hook_whichever_path_field(tool, arguments, hook, tmp_path):
    plugin = Scripted(**{hook: {"denied": True, "reason": "not that file"}})
    event = {**SAMPLES["pre_tool"], "tool_name": tool, "tool_input": arguments}
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), event)
    assert answer.blocked and answer.body["reason"] == "not that file", answer
    assert plugin.calls[0][1]["path"] == str(tmp_path / "secret.txt")


def test_rewrite_is_the_whole_new_input(tmp_path):
    plugin = Scripted(pre_tool={"arguments": {"command": "echo safer"}})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), pre_tool("echo original"))
    assert answer.body == {"hook_specific_output": {"tool_input": {"command": "echo safer"}}}


def test_stop_gate_continue_is_a_post_agent_deny(tmp_path):
    plugin = Scripted(stop_gate={"continue": True, "reason": "run the tests first"})
    answer = ADAPTER.handle(runtime(plugin, cwd=str(tmp_path)), SAMPLES["post_agent"])
    assert answer.body == {"decision": "deny", "reason": "run the tests first"}
    quiet = ADAPTER.handle(runtime(Scripted(stop_gate=None), cwd=str(tmp_path)), SAMPLES["post_agent"])
    assert quiet.body is None


# -- installer -------------------------------------------------------------------------------

ARGV = [sys.executable, "-I", "-m", "agent_hooks_core", "vibe"]
MINE = '# my hooks\n[[hooks]]\nname = "lint"\ntype = "post_agent"\ncommand = "make lint"\n'


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("VIBE_HOME", raising=False)
    (tmp_path / "home" / ".vibe").mkdir(parents=True)
    return tmp_path / "home"


def test_install_is_strict_idempotent_and_uninstall_restores(home):
    hooks = home / ".vibe" / "hooks.toml"
    hooks.write_text(MINE)
    vb.plan_install("user", argv=ARGV).apply()
    assert not vb.plan_install("user", argv=ARGV).changed
    entries = tomlkit.parse(hooks.read_text())["hooks"]
    assert entries[0]["name"] == "lint"
    ours = {e["type"]: e for e in entries[1:]}
    assert set(ours) == set(EVENTS)
    assert ours["pre_tool"]["strict"] is True and ours["post_tool"]["strict"] is True
    assert "strict" not in ours["post_agent"]  # Vibe refuses strict there
    assert vb.status()[0].startswith("ok:")
    vb.plan_uninstall("user").apply()
    assert hooks.read_text() == MINE


def test_a_lax_hook_of_ours_is_a_problem(home):
    vb.plan_install("user", argv=ARGV).apply()
    path = home / ".vibe" / "hooks.toml"
    path.write_text(path.read_text().replace("strict = true", "strict = false"))
    assert any(line.startswith("problem:") and "not strict" in line for line in vb.status())


def test_project_trust_and_a_shadowing_project_hook(home, tmp_path):
    project = tmp_path / "proj"
    plan = vb.plan_install("project", project, argv=ARGV)
    assert any("trusted folder" in n for n in plan.notes)
    plan.apply()
    assert any(line.startswith("warning:") and "not trusted" in line for line in vb.status(project))
    (home / ".vibe" / "trusted_folders.toml").write_text(f'trusted = ["{tmp_path}"]\nuntrusted = []\n')
    assert not any("not trusted" in line for line in vb.status(project))
    # a trusted project whose own hooks.toml reuses our name replaces our user hook
    vb.plan_uninstall("project", project).apply()
    vb.plan_install("user", argv=ARGV).apply()
    (project / ".vibe").mkdir(parents=True, exist_ok=True)
    (project / ".vibe" / "hooks.toml").write_text(
        '[[hooks]]\nname = "agent-hooks-pre-tool"\ntype = "pre_tool"\ncommand = "true"\n')
    assert any(line.startswith("problem:") and "replaces" in line for line in vb.status(project))


@pytest.mark.parametrize(("text", "problem"), [
    ("[[hooks]\n", "not valid TOML"),
    ('hooks = "x"\n', "array of tables"),
    ('[[hooks]]\nname = "agent-hooks-pre-tool"\ntype = "pre_tool"\ncommand = "mine"\n', "rename it"),
])
def test_bad_files_are_one_line_and_untouched(home, text, problem):
    path = home / ".vibe" / "hooks.toml"
    path.write_text(text)
    with pytest.raises(vb.InstallError, match=problem):
        vb.plan_install("user", argv=ARGV)
    assert path.read_text() == text
