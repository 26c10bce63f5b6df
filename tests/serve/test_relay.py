"""The per-event command (``agenthooks claude-code``) relays its event to a running warm server for
the same environment, answers in-process otherwise, and never gets an allow out of a lost answer.

Real processes throughout: a real ``serve run``, the real per-event command as hosts run it, and the
server's own counters to tell where an event was answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..bridges.payloads import event
from .conftest import Server, start_server

#: a pre_tool that says which process answered. With KILL_SERVER (a file holding the server's
#: pid) set it allows instead and, in a worker of that server (its parent: never the test's own
#: process), kills the server first
HOOK = """\
import os
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event):
    if os.environ.get("KILL_SERVER"):
        with open(os.environ["KILL_SERVER"]) as fh:
            if int(fh.read()) == os.getppid():
                os.kill(os.getppid(), 9)
        return None
    return {"block": True, "reason": "denied by the hook in pid %d" % os.getpid()}
"""


@pytest.fixture
def hook(tmp_path: Path) -> Path:
    path = tmp_path / "deny.py"
    path.write_text(HOOK)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def per_event(env: dict[str, str], project: Path, hook: Path, name: str = "PreToolUse",
              raw: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The per-event command as a command host runs it (a fresh process, the event on stdin)."""
    body = raw if raw is not None else json.dumps(event(name, str(project))).encode()
    return subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", "--event", name,
                           "--hook", str(hook)], input=body, capture_output=True, cwd=project, env=env,
                          timeout=120)


def served(server: Server) -> int:
    return int(server.status()["events"])


def decision(proc: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    return out["permissionDecision"], out["permissionDecisionReason"]


def worker_pids(server: Server) -> set[int]:
    return {int(w) for w in server.status()["workers"]}


# where an event is answered: (scenario, extra environment of the per-event process, relayed?)
SCENARIOS = [
    ("same environment", {}, True),
    ("another settings directory", {"XDG_CONFIG_HOME": "/nonexistent/other-config"}, False),
    ("another agent-hooks variable", {"AGENT_HOOKS_TEST_OPTION": "other"}, False),
    ("another host config directory", {"CLAUDE_CONFIG_DIR": "/nonexistent/claude"}, False),
    ("relay switched off", {"AGENT_HOOKS_RELAY": "0"}, False),
    ("a fast client's fallback", {"AGENT_HOOKS_ANSWER_BY": "9999999999"}, False),
]


@pytest.mark.parametrize(("scenario", "extra", "relayed"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_where_the_event_is_answered(server: Server, project: Path, hook: Path, scenario: str,
                                     extra: dict[str, str], relayed: bool) -> None:
    before = served(server)
    proc = per_event({**server.run_env(), **extra}, project, hook)
    verdict, reason = decision(proc)
    assert verdict == "deny" and "denied by the hook in pid" in reason, scenario
    pid = int(reason.rsplit(" ", 1)[1])
    assert served(server) == before + (1 if relayed else 0), scenario
    assert (pid in worker_pids(server)) is relayed, scenario


def test_a_non_gating_event_is_relayed_too(server: Server, project: Path, hook: Path) -> None:
    before = served(server)
    proc = per_event(server.run_env(), project, hook, "PostToolUse")
    assert proc.returncode == 0, proc.stderr
    assert served(server) == before + 1


def test_no_server_answers_in_process(serve_home: Path, project: Path, hook: Path) -> None:
    env = {**os.environ, "AGENT_HOOKS_HOME": str(serve_home), "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    verdict, reason = decision(per_event(env, project, hook))
    assert verdict == "deny" and "denied by the hook" in reason


def test_a_stale_socket_answers_in_process(serve_home: Path, project: Path, hook: Path) -> None:
    server = start_server(serve_home)
    sock, env = server.sock, server.run_env()
    server.proc.kill()  # no clean exit: the socket file stays, nobody listens
    server.proc.wait()
    assert os.path.exists(sock)
    verdict, reason = decision(per_event(env, project, hook))
    assert verdict == "deny" and "denied by the hook" in reason


def test_an_event_without_a_cwd_is_answered_in_process(server: Server, project: Path, hook: Path) -> None:
    # the adapter would take the process's working directory, which the server does not share
    raw = json.dumps({k: v for k, v in event("PreToolUse", str(project)).items() if k != "cwd"}).encode()
    before = served(server)
    verdict, _ = decision(per_event(server.run_env(), project, hook, raw=raw))
    assert verdict == "deny" and served(server) == before


def test_the_server_killed_mid_request_blocks_a_gating_event(serve_home: Path, project: Path, hook: Path) -> None:
    # the hook allows wherever it runs and kills the server from its worker: only the failure
    # answer of a lost relay can deny here (in-process, the event would be allowed)
    pidfile = serve_home.parent / "server.pid"
    server = start_server(serve_home, {"KILL_SERVER": str(pidfile)})
    try:
        pidfile.write_text(str(server.proc.pid))
        proc = per_event(server.run_env(), project, hook)
        try:
            code = server.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            code = None
        assert code == -9, f"the hook did not run in the server's worker: {proc.stdout!r} {proc.stderr!r}"
        verdict, reason = decision(proc)
        assert verdict == "deny" and "fail-closed" in reason and "warm server" in reason, reason
    finally:
        server.stop()


def test_a_relayed_event_imports_neither_pluggy_nor_the_runtime(server: Server, project: Path, hook: Path) -> None:
    before = served(server)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "agent_hooks_core", "claude-code", "--event",
                           "PreToolUse", "--hook", str(hook)], input=json.dumps(event("PreToolUse", str(project))).encode(),
                          capture_output=True, cwd=project, env=server.run_env(), timeout=120)
    assert served(server) == before + 1, proc.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    assert not imported & {"pluggy", "pydantic", "agent_hooks_core.runtime", "agent_hooks_core.bridges"}


BASE_ENV = {"HOME": "/home/u", "PATH": "/usr/bin", "AGENT_HOOKS_HOME": "/home/u/.ah"}


@pytest.mark.parametrize(("change", "same"), [
    ({}, True),
    ({"AGENT_HOOKS_ANSWER_BY": "1"}, True),  # one event's budget
    ({"AGENT_HOOKS_RELAY": "1"}, True),
    ({"AGENT_HOOKS_BRIDGE_WORKER": "0"}, True),
    ({"CLAUDE_PROJECT_DIR": "/p"}, True),  # a host's per-event variable
    ({"PATH": "/other/bin"}, False),
    ({"XDG_CONFIG_HOME": "/x"}, False),
    ({"CODEX_HOME": "/c"}, False),
    ({"AGENT_HOOKS_PLUGINS": "guard"}, False),
    ({"AGENT_HOOKS_HOME": "/elsewhere"}, False),
])
def test_the_environment_key(change: dict[str, str], same: bool) -> None:
    from agent_hooks_core import runpaths

    assert (runpaths.environment_key({**BASE_ENV, **change}) == runpaths.environment_key(BASE_ENV)) is same


def test_the_relay_waits_as_long_as_the_per_event_process() -> None:
    from agent_hooks_core.bridges import registry
    from agent_hooks_core.transports import process, relay

    assert (relay.DEADLINE, relay.ENV_DEADLINE, relay.ENV_ANSWER_BY) == (
        process.DEFAULT_DEADLINE, process.ENV_DEADLINE, process.ENV_ANSWER_BY)
    for record in registry.first_party():
        if record.command is not None:  # the hosts the relay serves: none answers sooner
            assert record.load_adapter().answer_deadline <= relay.DEADLINE, record.name


def test_the_environment_key_ignores_how_the_process_was_started(tmp_path: Path) -> None:
    # `agenthooks serve start` (a console script: its bin directory first on sys.path) and the
    # per-event `python -I -m agent_hooks_core HOST` must agree, or the relay never happens
    code = "from agent_hooks_core import runpaths; print(runpaths.environment_key())"
    script = tmp_path / "bin" / "agenthooks-key"
    script.parent.mkdir()
    script.write_text(code + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    isolated = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, env=env, check=True)
    as_script = subprocess.run([sys.executable, "-s", str(script)], capture_output=True, text=True, env=env,
                               check=True)
    assert isolated.stdout.strip() == as_script.stdout.strip()
