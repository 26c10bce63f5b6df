"""The session-side cells of pi's and omp's matrix, proven on the pinned agents in RPC mode (and pi's
TUI for ``!cmd``): a probe plugin cancels a new session, a fork and a tree navigation while a
``REFUSE`` file is in the project (the agent's session and conversation stay as they were), lets
them through without it (the control: the same command does change the session), answers a tree
navigation's summary itself, adds a prompt template at resource discovery, and answers a user's
``!cmd`` with its own result.

One RPC session per host covers the switch, fork and tree cells, so the table grows by hosts, not
by sessions.
"""

from __future__ import annotations

import json

import pytest

# the prompt tests' agents, and their fixtures (imported, pytest finds them here)
from .test_prompts import AGENTS, Rpc, fixtures, home  # noqa: F401

TREE_MARK = "tree-mark-6e1f"
TEMPLATE_MARK = "template-mark-0c7d"
BASH_MARK = "bash-mark-5a2e"

PROBE = f"""
from pathlib import Path

from agent_hooks_core import hookimpl

def _refused(ctx, what):
    if Path(ctx.cwd, "REFUSE").exists():
        Path(ctx.cwd, what + "-REFUSED").write_text("the probe refused it")
        return {{"cancel": True}}
    return None

@hookimpl
def pre_session_switch(event, ctx):
    return _refused(ctx, "SWITCH")

@hookimpl
def pre_session_fork(event, ctx):
    return _refused(ctx, "FORK")

@hookimpl
def pre_session_tree(event, ctx):
    return _refused(ctx, "TREE") or {{"summary": {{"summary": {TREE_MARK!r}}}}}

@hookimpl
def resources_discover(event, ctx):
    prompts = Path(ctx.cwd).parent / "probe-prompts"
    prompts.mkdir(exist_ok=True)
    (prompts / "probe-template.md").write_text("---\\ndescription: the probe's template\\n---\\n{TEMPLATE_MARK}\\n")
    return {{"prompt_paths": [str(prompts / "probe-template.md")]}}

@hookimpl
def user_bash(event, ctx):
    return {{"result": {{"output": {BASH_MARK!r} + " for " + event.command, "exit_code": 0, "cancelled": False,
                        "truncated": False}}}}
"""

#: a second extension, for the tests only: ``/goto <entry> [summarize]`` navigates the session tree
#: (RPC mode has no command for it; an extension command's context does)
GOTO = """
export default function (pi: any) {
  pi.registerCommand("goto", {
    description: "navigate the session tree (agent-hooks tests)",
    handler: async (args: string, ctx: any) => {
      const [target, summarize] = args.trim().split(/\\s+/);
      const result = await ctx.navigateTree(target, { summarize: summarize === "summarize" });
      ctx.ui.notify(`goto: ${JSON.stringify(result)}`, "info");
    },
  });
}
"""

#: (host, RPC command that forks, command listing the entries a fork can start from)
FORKS = {"pi": ("fork", "get_fork_messages"), "omp": ("branch", "get_branch_messages")}


def _agent(fixtures, home, tmp_path, host):  # noqa: F811
    plugin = tmp_path / "session_probe.py"
    plugin.write_text(PROBE)
    agent = AGENTS[host](fixtures, home, plugin)
    (agent.agent_dir / "extensions").mkdir(parents=True, exist_ok=True)
    (agent.agent_dir / "extensions" / "goto.ts").write_text(GOTO)
    return agent


def _state(rpc: Rpc) -> dict[str, object]:
    state = rpc.command({"type": "get_state"})
    assert state.get("success") is True, state
    return dict(state["data"])


def _goto(rpc: Rpc, entry: str) -> dict[str, object]:
    """``/goto entry summarize``; what navigateTree answered."""
    rpc.send({"type": "prompt", "message": f"/goto {entry} summarize"})
    note = rpc._until(lambda m: m.get("method") == "notify" and str(m.get("message")).startswith("goto: "))
    return dict(json.loads(str(note["message"]).removeprefix("goto: ")))


def _first_entry(rpc: Rpc, host: str) -> str:
    listing = rpc.command({"type": FORKS[host][1]})
    assert listing.get("success") is True, listing
    return str(listing["data"]["messages"][0]["entryId"])


@pytest.mark.parametrize("host", ["pi", "omp"])
@pytest.mark.proves("pi", "pre_session_switch", "block")
@pytest.mark.proves("pi", "pre_session_fork", "block")
@pytest.mark.proves("pi", "pre_session_tree", "block", "rewrite")
@pytest.mark.proves("omp", "pre_session_switch", "block")
@pytest.mark.proves("omp", "pre_session_fork", "block")
@pytest.mark.proves("omp", "pre_session_tree", "block", "rewrite")
def test_a_session_change_is_refused_or_summarised(fixtures, home, tmp_path, host):  # noqa: F811
    from .fakemodel import FakeModel

    agent = _agent(fixtures, home, tmp_path, host)
    project = home / "project"
    fork, _ = FORKS[host]
    with FakeModel([]) as model, agent.rpc(model) as rpc:
        rpc.prompt("say hello")
        rpc.prompt("and again")
        before = _state(rpc)
        entry = _first_entry(rpc, host)
        asked = len(model.requests)

        (project / "REFUSE").write_text("")
        for command, marker in (({"type": "new_session"}, "SWITCH"), ({"type": fork, "entryId": entry}, "FORK")):
            refused = rpc.command(command)
            assert refused.get("success") is True and refused["data"]["cancelled"] is True, refused
            assert (project / f"{marker}-REFUSED").exists(), marker
            assert _state(rpc) == before, command
        assert _goto(rpc, entry) == {"cancelled": True}
        assert (project / "TREE-REFUSED").exists()
        assert _state(rpc) == before  # still on the same leaf, all messages there
        assert len(model.requests) == asked

        # the control, and the probe's own summary of the branch left behind
        (project / "REFUSE").unlink()
        assert _goto(rpc, entry) == {"cancelled": False}
        moved = _state(rpc)
        assert moved["sessionId"] == before["sessionId"] and moved["messageCount"] != before["messageCount"], moved
        assert len(model.requests) == asked  # the probe's summary, not the model's
        rpc.prompt("what now")
        assert TREE_MARK in json.dumps(model.requests[-1]), model.requests[-1]
        entry = _first_entry(rpc, host)
        forked = rpc.command({"type": fork, "entryId": entry})
        assert forked.get("success") is True and forked["data"]["cancelled"] is False, forked
        assert _state(rpc)["sessionId"] != before["sessionId"]
        switched = rpc.command({"type": "new_session"})
        assert switched.get("success") is True and switched["data"]["cancelled"] is False, switched
        assert _state(rpc)["messageCount"] == 0
        assert not model.errors, model.errors


@pytest.mark.proves("pi", "resources_discover", "rewrite")
def test_a_discovered_prompt_template_is_used(fixtures, home, tmp_path):  # noqa: F811
    """The probe's template, added at start-up, is one of pi's commands, and ``/probe-template``
    expands to its text in what the model receives."""
    from .fakemodel import FakeModel, say

    agent = _agent(fixtures, home, tmp_path, "pi")
    with FakeModel([say("ok")]) as model, agent.rpc(model) as rpc:
        commands = rpc.command({"type": "get_commands"})
        assert "probe-template" in json.dumps(commands), commands
        rpc.prompt("/probe-template")
        assert TEMPLATE_MARK in json.dumps(model.requests), model.requests
        assert not model.errors, model.errors


@pytest.mark.proves("pi", "user_bash", "rewrite")
def test_a_user_bash_command_is_answered_by_the_plugin(fixtures, home, tmp_path):  # noqa: F811
    """``!touch RAN`` in pi's TUI: the probe's result is shown in place of the command's, which never runs."""
    from .fakemodel import FakeModel
    from .pi_agents import Terminal

    agent = _agent(fixtures, home, tmp_path, "pi")
    project = home / "project"
    with FakeModel([]) as model:
        agent.agent.configure(agent.agent_dir, model.base_url)
        term = Terminal([str(agent.agent.binary), "--provider", "fake", "--model", "fake-model"], project,
                        agent.agent.env(agent.home, agent.agent_dir))
        try:
            assert term.expect("fake-model"), term.text[-2000:]
            term.type(b"!touch RAN\r")
            assert term.expect(f"{BASH_MARK} for touch RAN"), term.text[-3000:]
        finally:
            term.close()
    assert not (project / "RAN").exists()
