"""``agenthooks install codex``: hooks.json, hook trust in config.toml, doctor lines."""

from __future__ import annotations

import io
import json
import shlex
import sys

import pytest
import tomlkit
from agent_hooks_core.bridges.codex import install as cx
from agent_hooks_core.bridges.codex.adapter import EVENTS

ARGV = [sys.executable, "-I", "-m", "agent_hooks_core", "codex"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    return tmp_path / "codex-home"


# hashes Codex 0.169.0 itself reported (`codex app-server`, hooks/list currentHash) for these handlers
@pytest.mark.parametrize(("event", "group", "entry", "expected"), [
    ("PreToolUse", {"matcher": "*"}, {"type": "command", "command": "/usr/bin/true x", "timeout": 30},
     "sha256:59208676d3b34b0143fca3038af40fb6c4da624fe85921394068ca094c53ef7d"),
    ("Stop", {}, {"type": "command", "command": "/usr/bin/true", "timeout": 30, "statusMessage": "hi"},
     "sha256:0a32681a4a3f6ab81a29d84f41be1ed603d3aec440169e280d9ec9beba4b86d4"),
])
def test_trust_hash_matches_codex(event, group, entry, expected):
    assert cx.trust_hash(event, group, entry) == expected


def test_install_writes_hooks_and_trust(home):
    plan = cx.plan_install("user", argv=ARGV)
    plan.apply()
    hooks = json.loads((home / "hooks.json").read_text())["hooks"]
    assert list(hooks) == list(EVENTS)
    pre = hooks["PreToolUse"][0]["hooks"][0]
    assert pre["command"] == shlex.join([*ARGV, "--event", "PreToolUse"]) and pre["timeout"] == 60
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 3
    state = tomlkit.loads((home / "config.toml").read_text()).unwrap()["hooks"]["state"]
    path = home / "hooks.json"
    assert state[f"{path}:pre_tool_use:0:0"]["trusted_hash"] == cx.trust_hash("PreToolUse", {}, pre)
    assert len(state) == len(EVENTS)
    assert cx.status() == [f"ok: Codex user hooks ({path}): wired for {len(EVENTS)} events, trusted"]


def test_install_is_idempotent_and_keeps_user_hooks_and_settings(home):
    home.mkdir()
    user_hooks = {"hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "mine"}]}]}}
    (home / "hooks.json").write_text(json.dumps(user_hooks))
    (home / "config.toml").write_text('model = "o3"  # mine\n\n[hooks.state."x:stop:0:0"]\ntrusted_hash = "sha256:1"\n')
    cx.plan_install("user", argv=ARGV).apply()
    assert not cx.plan_install("user", argv=ARGV).changed
    hooks = json.loads((home / "hooks.json").read_text())["hooks"]
    assert hooks["PreToolUse"][0] == user_hooks["hooks"]["PreToolUse"][0]  # user's first: their trust keys stay
    text = (home / "config.toml").read_text()
    assert 'model = "o3"  # mine' in text and 'x:stop:0:0' in text
    assert f"{home / 'hooks.json'}:pre_tool_use:1:0" in tomlkit.loads(text).unwrap()["hooks"]["state"]
    cx.plan_uninstall("user").apply()
    assert json.loads((home / "hooks.json").read_text()) == user_hooks
    state = tomlkit.loads((home / "config.toml").read_text()).unwrap()["hooks"]["state"]
    assert list(state) == ["x:stop:0:0"]


def test_a_changed_definition_is_reported_untrusted(home):
    cx.plan_install("user", argv=ARGV).apply()
    data = json.loads((home / "hooks.json").read_text())
    data["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 61  # any edit changes the hash
    (home / "hooks.json").write_text(json.dumps(data))
    lines = cx.status()
    assert any(line.startswith("problem:") and "installed but untrusted (PreToolUse)" in line for line in lines)


def test_no_trust_option_leaves_it_to_the_user(home):
    out = io.StringIO()
    cx.install("user", trust=False, out=out)
    assert "not trusted" in out.getvalue()
    assert any("untrusted" in line for line in cx.status())


def test_dry_run_writes_nothing(home):
    out = io.StringIO()
    assert cx.install("user", dry_run=True, out=out) == 0
    assert not home.exists()
    assert "+++" in out.getvalue() and "trusted_hash" in out.getvalue()


def test_project_scope_tells_about_project_trust(home, tmp_path):
    plan = cx.plan_install("project", tmp_path / "proj", argv=ARGV)
    assert any("project is trusted" in n or "trust_level" in n for n in plan.notes)
    plan.apply()
    assert (tmp_path / "proj" / ".codex" / "hooks.json").exists()
    assert any("not trusted" in line for line in cx.status(tmp_path / "proj"))


@pytest.mark.parametrize(("content", "fragment"), [("{", "not valid JSON"), ("[]", "JSON object"),
                                                    ('{"hooks": []}', "must map")])
def test_a_broken_hooks_file_is_refused(home, content, fragment):
    home.mkdir()
    (home / "hooks.json").write_text(content)
    with pytest.raises(cx.InstallError, match=fragment):
        cx.plan_install("user", argv=ARGV)
    assert (home / "hooks.json").read_text() == content


def test_features_off_is_a_problem(home):
    home.mkdir()
    (home / "config.toml").write_text("[features]\nhooks = false\n")
    assert any(line.startswith("problem:") and "turned off" in line for line in cx.status())


@pytest.mark.parametrize(("command", "host", "ours"), [
    ("/v/bin/agenthooks codex --event Stop", "codex", True),
    ("'/v 1/bin/python' -I -m agent_hooks_core codex --event Stop", "codex", True),
    ("/v/bin/python -S -I /v/site/agent_hooks_core/transports/fastclient.py --socket /run/s.sock --isolation -I "
     "--gating -- codex --event PreToolUse", "codex", True),
    ("/v/bin/python -S -I /v/site/agent_hooks_core/transports/fastclient.py codex --socket /run/s.sock "
     "--isolation -I --gating --autostart -- --event PreToolUse", "codex", True),
    ("/v/bin/agenthooks gemini --event BeforeTool", "codex", False),
    ("/v/bin/python -S -I /x/fastclient.py --socket /run/codex -- gemini", "codex", False),
    ("echo agenthooks is great; codex", "codex", False),
    ("my-hook.sh", "codex", False),
])
def test_our_entries_are_recognised_in_every_command_form(command, host, ours):
    from agent_hooks_core.bridges.hostkit.jsonconfig import runs_us

    assert runs_us(command, host) is ours


def test_default_install_uses_the_fast_client_gating_where_it_matters(home):
    cx.plan_install("user").apply()
    hooks = json.loads((home / "hooks.json").read_text())["hooks"]
    pre = hooks["PreToolUse"][0]["hooks"][0]["command"]
    stop = hooks["Stop"][0]["hooks"][0]["command"]
    assert "fastclient.py" in pre and "--gating" in pre and pre.endswith("--event PreToolUse")
    assert "--gating" not in stop
    assert cx.status()[0].startswith("ok:")


def test_a_deleted_launcher_is_a_problem_until_a_reinstall(home):
    from agent_hooks_core.transports import launcher

    if not launcher.supported():
        pytest.skip("the launcher is a POSIX sh script")
    out = io.StringIO()
    assert cx.install("user", out=out) == 0
    assert "transport: the fast client" in out.getvalue()
    launcher.path().unlink()
    assert any(line.startswith("problem:") and "which does not exist" in line for line in cx.status())
    assert cx.install("user", out=io.StringIO()) == 0
    assert launcher.path().is_file() and cx.status()[0].startswith("ok:")
