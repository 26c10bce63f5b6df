"""The real pi and oh-my-pi, wired with ``agenthooks install pi|omp`` from the built wheels.

Each test: a fresh venv with agent-hooks-core and agent-hooks-guard (wheels), the extension
installed by that venv's ``agenthooks install <host>`` into a throwaway agent directory, and the
agent in print mode against the scripted fake model. What the model receives back as tool
results is what the test checks. Run: ``AGENT_HOOKS_HOST_TESTS=1 pytest tests/hosts -k pi``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.venvs import Venv, Wheelhouse, make_venv

from .fakemodel import FakeModel, Turn, say, tool_call
from .harness import GATE
from .pi_agents import Agent, Terminal, alive, make_agent, server_pids
from .probes import FORBIDDEN, REASON
from .probes import SOURCE as PROBE_SOURCE

HOSTS = ["pi", "omp"]


@pytest.fixture(scope="module")
def hooks_venv(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Wheelhouse) -> Venv:
    env = make_venv(tmp_path_factory.mktemp("pi-venv") / "venv", wheelhouse)
    env.install("agent-hooks-core", "agent-hooks-guard")
    return env


@pytest.fixture(params=HOSTS)
def agent(request: pytest.FixtureRequest, npm_tool: Any) -> Agent:
    return make_agent(request.param, npm_tool)


class Run:
    """One agent session in print mode against ``turns``; ``proc`` is the agent's process."""

    def __init__(self, agent: Agent, venv: Venv, tmp: Path, turns: list[Turn]) -> None:
        self.agent = agent
        self.venv = venv
        self.home = tmp / "home"
        self.project = tmp / "project"
        self.agent_dir = tmp / "agent"
        for d in (self.home, self.project):
            d.mkdir()
        (self.home / "keep.txt").write_text("still here")
        self.model = FakeModel(turns)
        self.proc: subprocess.Popen[str] | None = None
        #: every server process seen while the session ran
        self.servers: set[int] = set()
        self.agent_env_extra: dict[str, str] = {}

    def install(self) -> str:
        r = self.venv.run(self.venv.bin("agenthooks"), "install", self.agent.host,
                          env=self.agent.env(self.home, self.agent_dir), check=True)
        return r.stdout

    def current_servers(self) -> list[int]:
        assert self.proc is not None
        pids = server_pids(self.proc.pid, self.venv.python)
        self.servers.update(pids)
        return pids

    def run(self, prompt: str = "go") -> subprocess.CompletedProcess[str]:
        with self.model:
            self.agent.configure(self.agent_dir, self.model.base_url)
            env = self.agent.env(self.home, self.agent_dir, AGENT_HOOKS_HOME=str(self.home / "agent-hooks"),
                                 **self.agent_env_extra)
            self.proc = subprocess.Popen(self.agent.command(prompt), cwd=self.project, env=env, text=True,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                out, err = self.proc.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, err = self.proc.communicate()
                pytest.fail(f"{self.agent.host} hung; stderr:\n{err[-3000:]}")
        assert self.model.errors == []
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)

    def watch(self, body: dict[str, Any]) -> None:
        """A ``before`` callback: note the server processes alive at this model request."""
        self.current_servers()

    def kill_server(self, body: dict[str, Any]) -> None:
        """A ``before`` callback: SIGKILL the session's server between two tool calls."""
        (pid,) = self.current_servers()
        os.kill(pid, signal.SIGKILL)

    def no_orphans(self) -> bool:
        deadline = time.monotonic() + 15
        while any(alive(p) for p in self.servers) and time.monotonic() < deadline:
            time.sleep(0.05)  # waiting for processes to exit, not ordering events
        return not any(alive(p) for p in self.servers)


@pytest.mark.proves("pi", "pre_tool", "block")
@pytest.mark.proves("omp", "pre_tool", "block")
def test_guard_blocks_rm_rf_home_and_a_benign_command_runs(agent, hooks_venv, tmp_path):
    r = Run(agent, hooks_venv, tmp_path, [])
    r.model.turns = [tool_call("bash", {"command": "rm -rf ~"}, before=r.watch),
                     tool_call("bash", {"command": "echo benign-ran"}, before=r.watch),
                     say("done", before=r.watch)]
    assert "Wired agent-hooks into" in r.install()
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "done" in done.stdout
    blocked, benign = r.model.tool_results()
    assert "recursive delete of a broad path (~) [guard:rm-broad]" in blocked
    assert "benign-ran" in benign
    assert (r.home / "keep.txt").read_text() == "still here"
    assert len(r.servers) == 1  # one server for the whole session
    assert r.no_orphans()


@pytest.mark.proves("pi", "pre_tool", "closed")
@pytest.mark.proves("pi", "pre_shell_exec", "closed")
@pytest.mark.proves("omp", "pre_tool", "closed")
@pytest.mark.proves("omp", "pre_shell_exec", "closed")
def test_a_killed_server_blocks_the_next_tool_call_and_the_one_after_runs(agent, hooks_venv, tmp_path):
    r = Run(agent, hooks_venv, tmp_path, [])
    r.model.turns = [tool_call("bash", {"command": "echo first-ran"}, before=r.watch),
                     tool_call("bash", {"command": "echo second-ran"}, before=r.kill_server),
                     tool_call("bash", {"command": "echo third-ran"}, before=r.watch),
                     say("done", before=r.watch)]
    r.install()
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    first, second, third = r.model.tool_results()
    assert "first-ran" in first and "third-ran" in third
    assert "second-ran" not in second
    assert "agent-hooks could not check this tool call, so it is blocked (fail-closed)" in second
    assert "exited unexpectedly (signal SIGKILL)" in second
    assert len(r.servers) == 2  # the killed one and its replacement
    assert r.no_orphans()


def test_with_the_guard_disabled_the_same_kind_of_command_runs(agent, hooks_venv, tmp_path):
    """The guard disabled in settings: nothing gates tool calls, `rm -rf` of a scratch dir runs."""
    r = Run(agent, hooks_venv, tmp_path, [])
    settings = r.home / "agent-hooks" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('disabled = ["guard"]\n')
    (r.project / "scratch").mkdir()
    r.model.turns = [tool_call("bash", {"command": "rm -rf scratch && echo removed"}), say("done")]
    r.install()
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "removed" in r.model.tool_results()[0]
    assert not (r.project / "scratch").exists()


PIPED = "echo ZWNobyBwaXBlZC1yYW4K | base64 -d | sh"  # prints piped-ran; the guard asks (pipe-to-shell)


@pytest.mark.parametrize(("confirmed", "expected"), [
    (False, "base64 -d output run by sh [guard:pipe-to-shell] (the user said no)"),
    (True, "piped-ran"),
])
@pytest.mark.proves("pi", "pre_tool", "ask")
@pytest.mark.proves("omp", "pre_tool", "ask")
def test_the_guard_asks_through_the_agents_own_ui(agent, hooks_venv, tmp_path, confirmed, expected):
    """RPC mode has a UI (the client answers its dialogs): ctx.ui.confirm reaches it and the answer counts."""
    r = Run(agent, hooks_venv, tmp_path, [tool_call("bash", {"command": PIPED}), say("done")])
    r.install()
    asked: list[dict[str, Any]] = []
    with r.model:
        r.agent.configure(r.agent_dir, r.model.base_url)
        env = r.agent.env(r.home, r.agent_dir, AGENT_HOOKS_HOME=str(r.home / "agent-hooks"))
        cmd = [str(r.agent.binary), "--mode", "rpc", "--no-session", "--provider", "fake", "--model", "fake-model"]
        proc = subprocess.Popen(cmd, cwd=r.project, env=env, text=True, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps({"id": "p1", "type": "prompt", "message": "go"}) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                msg = json.loads(line)
                if msg.get("type") == "extension_ui_request" and msg.get("method") == "confirm":
                    asked.append(msg)
                    proc.stdin.write(json.dumps({"type": "extension_ui_response", "id": msg["id"],
                                                 "confirmed": confirmed}) + "\n")
                    proc.stdin.flush()
                elif msg.get("type") == "agent_end":
                    break
            proc.stdin.close()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert [(a["title"], PIPED in a["message"]) for a in asked] == [("agent-hooks guard", True)]
    (result,) = r.model.tool_results()
    assert expected in result


@pytest.mark.proves("pi", "pre_tool", "closed")
@pytest.mark.proves("pi", "pre_shell_exec", "closed")
@pytest.mark.proves("omp", "pre_tool", "closed")
@pytest.mark.proves("omp", "pre_shell_exec", "closed")
def test_a_hung_server_blocks_that_tool_call_and_is_replaced(agent, hooks_venv, tmp_path):
    """A plugin that hangs past the extension's timeout: that call blocks, the server is killed,
    the next call runs on a fresh one."""
    r = Run(agent, hooks_venv, tmp_path, [])
    hook = tmp_path / "slow_hook.py"
    hook.write_text("import time\nfrom agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event):\n"
                    "    if 'hang-here' in str(event.arguments):\n        time.sleep(25)\n")
    settings = r.home / "agent-hooks" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(f"hooks = [{str(hook)!r}]\n".replace("'", '"'))
    # a user hook file loads once a person trusted it
    r.venv.run(r.venv.bin("agenthooks"), "trust", env={"AGENT_HOOKS_HOME": str(settings.parent)}, cwd=r.project,
               check=True)
    r.model.turns = [tool_call("bash", {"command": "echo hang-here"}, before=r.watch),
                     tool_call("bash", {"command": "echo after-ran"}, before=r.watch),
                     say("done", before=r.watch)]
    r.install()
    r.agent_env_extra = {"AGENT_HOOKS_TIMEOUT_MS": "3000"}
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    hung, after = r.model.tool_results()
    assert "blocked (fail-closed): the agent-hooks server did not answer event within 3s" in hung
    assert "after-ran" in after
    assert len(r.servers) == 2
    assert r.no_orphans()


@pytest.mark.parametrize("agent", ["pi"], indirect=True)  # omp's TUI opens a first-run setup wizard first
def test_the_guard_question_shows_in_the_interactive_tui(agent, hooks_venv, tmp_path):
    """The real TUI on a pseudo-terminal: the guard's ctx.ui.confirm is pi's own dialog; Escape is a no."""
    r = Run(agent, hooks_venv, tmp_path, [tool_call("bash", {"command": PIPED}), say("all done")])
    r.install()
    with r.model:
        r.agent.configure(r.agent_dir, r.model.base_url)
        env = r.agent.env(r.home, r.agent_dir, AGENT_HOOKS_HOME=str(r.home / "agent-hooks"))
        term = Terminal([str(r.agent.binary), "--provider", "fake", "--model", "fake-model"], r.project, env)
        try:
            assert term.expect("fake-model"), term.text[-2000:]
            term.type(b"go\r")
            assert term.expect(r"agent-hooks guard\s+base64 -d output run by sh \[guard:pipe-to-shell\]"), term.text[-3000:]
            assert PIPED in term.text
            term.type(b"\x1b")  # dismiss the dialog: no
            assert term.expect("all done"), term.text[-3000:]
        finally:
            term.close()
    (result,) = r.model.tool_results()
    assert "(the user said no)" in result and "piped-ran" not in result


def _user_hook(r: Run, tmp_path: Path, source: str, settings: str = "") -> None:
    hook = tmp_path / "user_hook.py"
    hook.write_text(source)
    path = r.home / "agent-hooks" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"hooks = [{json.dumps(str(hook))}]\n{settings}")
    # a user hook file loads once a person trusted it
    r.venv.run(r.venv.bin("agenthooks"), "trust", env={"AGENT_HOOKS_HOME": str(path.parent)}, cwd=r.project,
               check=True)


REWRITE = """
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event):
    if event.arguments.get("command") == "echo original":
        return {"arguments": {**event.arguments, "command": "echo rewritten-ran"}}
"""


@pytest.mark.proves("pi", "pre_tool", "rewrite")
@pytest.mark.proves("omp", "pre_tool", "rewrite")
def test_a_rewritten_tool_call_runs_as_rewritten(agent, hooks_venv, tmp_path):
    """pi applies it through event.input; omp through the result's input, which it revalidates."""
    r = Run(agent, hooks_venv, tmp_path, [tool_call("bash", {"command": "echo original"}), say("done")])
    _user_hook(r, tmp_path, REWRITE)
    r.install()
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    (result,) = r.model.tool_results()
    assert "rewritten-ran" in result and "original" not in result


@pytest.mark.proves("pi", "pre_shell_exec", "block")
@pytest.mark.proves("omp", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_with_the_reason(agent, hooks_venv, tmp_path):
    r = Run(agent, hooks_venv, tmp_path, [tool_call("bash", {"command": FORBIDDEN}), say("done")])
    _user_hook(r, tmp_path, PROBE_SOURCE)
    r.install()
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    (result,) = r.model.tool_results()
    assert REASON in result, result
    assert not (r.project / "ran.txt").exists()



@pytest.mark.parametrize("agent", ["omp"], indirect=True)  # pi 0.73.1 has no stop event a hook can answer
@pytest.mark.parametrize(("wanted", "limit", "runs"), [(2, 3, 2), (99, 1, 2)])
@pytest.mark.proves("omp", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_omp_working_within_the_limit(agent, hooks_venv, tmp_path, wanted, limit, runs):
    turns = [tool_call("bash", {"command": "echo ran >> RUNS"}), say("done")] * 3
    r = Run(agent, hooks_venv, tmp_path, turns)
    _user_hook(r, tmp_path, GATE.replace("WANTED", str(wanted)), f"stop_gate_limit = {limit}\n")
    r.install()
    done = r.run()
    assert done.returncode == 0, done.stderr[-3000:]
    assert (r.project / "RUNS").read_text().count("ran") == runs
    assert "not done: only 1 run(s), run it again" in json.dumps(r.model.requests)
