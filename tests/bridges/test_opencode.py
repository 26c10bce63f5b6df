"""The OpenCode adapter (events as the shipped plugin sends them over serve --stdio) and installer."""

from __future__ import annotations

import sys

import pytest
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.base import BridgeInputError
from agent_hooks_core.bridges.opencode import install as oc
from agent_hooks_core.bridges.opencode.adapter import ADAPTER, EVENTS

from .hostkit_support import SECRET, Recorder, Scripted, guard_runtime, payloads, runtime

SAMPLES = payloads("opencode")


def with_args(key: str, **args: object) -> dict:
    ev = SAMPLES[key]
    ev["payload"]["output"]["args"] = dict(args)
    return ev


def test_registered_and_every_hook_sampled():
    assert load_adapter("opencode") is ADAPTER
    assert {k.split("/")[0] for k in SAMPLES} == set(EVENTS)


EXPECTED = {
    "tool.execute.before": ["pre_tool", "pre_shell_exec"], "tool.execute.before/write": ["pre_tool", "pre_file_write"],
    "tool.execute.before/read": ["pre_tool", "pre_file_read"],
    "tool.execute.before/webfetch": ["pre_tool", "pre_fetch_url"],
    "tool.execute.after": ["pre_tool_output", "post_tool"], "chat.message": ["pre_message"],
    "chat.params": ["pre_api_request"],
    "experimental.chat.system.transform": [], "experimental.session.compacting": ["pre_compact"],
    "event": ["on_start", "session_start"], "event/idle": ["agent_end"], "event/other": [],
    "event/compacted": ["post_compact"], "event/deleted": ["on_end"],
}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_each_hook(key, tmp_path):
    rec = Recorder()
    answer = ADAPTER.handle(runtime(rec, cwd=str(tmp_path)), SAMPLES[key])
    assert rec.hooks() == EXPECTED[key]
    assert answer.body is None and not answer.blocked


def test_guard_blocks_rm_rf_home(tmp_path):
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), with_args("tool.execute.before", command="sudo rm -rf ~"))
    assert answer.blocked and "[guard:rm-broad]" in answer.body["block"]


def test_guard_allows_ls(tmp_path):
    assert ADAPTER.handle(guard_runtime(str(tmp_path)), with_args("tool.execute.before", command="ls")).body is None


def test_rewrite_replaces_args(tmp_path):
    answer = ADAPTER.handle(runtime(Scripted(pre_tool={"arguments": {"command": "ls -la"}}), cwd=str(tmp_path)),
                            SAMPLES["tool.execute.before"])
    assert answer.body == {"args": {"command": "ls -la"}}


def test_secret_redacted_in_output(tmp_path):
    ev = SAMPLES["tool.execute.after"]
    ev["payload"]["output"]["output"] = f"token={SECRET}\n"
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), ev)
    assert answer.body == {"output": "token=[REDACTED:github-token]\n"}


def test_permission_ask_is_not_an_opencode_hook_we_take():
    """OpenCode 1.18.33 never calls permission.ask: registering it would promise a gate that never runs."""
    assert "permission.ask" not in EVENTS
    with pytest.raises(BridgeInputError, match="unknown OpenCode hook"):
        ADAPTER.handle(runtime(Scripted(pre_shell_exec={"denied": True})),
                       {"name": "permission.ask", "payload": {"input": {"type": "bash"}, "output": {}}})


def test_prompt_block_and_rewrite(tmp_path):
    blocked = ADAPTER.handle(runtime(Scripted(pre_message={"block": True, "reason": "no"}), cwd=str(tmp_path)),
                             SAMPLES["chat.message"])
    assert blocked.body == {"block": "no"}
    rewritten = ADAPTER.handle(runtime(Scripted(pre_message={"prompt": "fix it"}), cwd=str(tmp_path)),
                               SAMPLES["chat.message"])
    assert rewritten.body == {"text": "fix it"}


def test_system_prompt_and_compaction(tmp_path):
    rt = runtime(Scripted(pre_system_prompt={"inject": "be brief"}, on_compacting={"context": ["keep the plan"]}),
                 cwd=str(tmp_path))
    assert ADAPTER.handle(rt, SAMPLES["experimental.chat.system.transform"]).body == {"system": ["be brief"]}
    assert ADAPTER.handle(rt, SAMPLES["experimental.session.compacting"]).body == {"context": ["keep the plan"]}


def test_subscriptions_follow_plugins(tmp_path):
    assert ADAPTER.subscriptions(None) == ["tool.execute.before"]
    subs = ADAPTER.subscriptions(guard_runtime(str(tmp_path)))
    assert {"tool.execute.before", "tool.execute.after"} <= set(subs)
    assert "chat.message" not in subs


@pytest.mark.parametrize(("name", "body"), [("tool.execute.before", "block"), (None, "block")])
def test_failure_blocks_gating(name, body):
    answer = ADAPTER.failure(name, "server died")
    assert answer.blocked and body in answer.body


def test_failure_elsewhere_is_quiet():
    answer = ADAPTER.failure("chat.params", "server died")
    assert answer.body is None and not answer.blocked


def test_bad_payload_is_input_error(tmp_path):
    from agent_hooks_core.bridges.base import BridgeInputError

    with pytest.raises(BridgeInputError):
        ADAPTER.handle(runtime(Recorder(), cwd=str(tmp_path)), {"name": "tool.execute.before", "payload": {"input": {}}})
    with pytest.raises(BridgeInputError):
        ADAPTER.handle(runtime(Recorder(), cwd=str(tmp_path)), {"name": "tool.nope", "payload": {}})


# -- installer ------------------------------------------------------------------------------------

def test_install_bakes_interpreter_idempotent_uninstall(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    oc.plan_install("user").apply()
    path = tmp_path / ".config" / "opencode" / "plugin" / "agent-hooks.ts"
    text = path.read_text()
    assert f'"python": "{sys.executable}"' in text and "tool.execute.before" in text
    assert not oc.plan_install("user").changed
    assert oc.status()[0].startswith("ok:")
    oc.plan_install("user", python=str(tmp_path / "gone")).apply()
    assert oc.status()[0].startswith("problem:")
    oc.plan_uninstall("user").apply()
    assert not path.exists()


def test_install_refuses_a_foreign_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    path = tmp_path / ".config" / "opencode" / "plugin" / "agent-hooks.ts"
    path.parent.mkdir(parents=True)
    path.write_text("export const Mine = async () => ({})\n")
    with pytest.raises(oc.InstallError, match="not agent-hooks"):
        oc.plan_install("user")
    assert not oc.plan_uninstall("user").changed
