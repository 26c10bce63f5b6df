"""Claude Code 2.1.330 (the real binary from npm) with `agenthooks install claude-code`, against a
fake Anthropic Messages API on 127.0.0.1 (``claude -p``): agent-hooks-guard, installed from wheels
in a fresh venv, stops a dangerous Bash command and its reason reaches the model; a benign command
runs. Over the default install (http for --user, the server started by the SessionStart hook),
the command and client transports, the http transport with a warm server, and the http transport
with the server stopped; and with the environment moved after install."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.venvs import Venv, Wheelhouse, make_venv

from .fake_anthropic import FakeAnthropic
from .harness import GATE, decider
from .pins import PINS
from .probes import FORBIDDEN, REASON
from .probes import SOURCE as PROBE_SOURCE

VERSION = PINS["claude-code"]
DANGEROUS = "touch MARKER && rm -rf ~"
BENIGN = "touch MARKER2 && echo benign-ran"


@pytest.fixture(scope="module")
def claude(npm_tool) -> Path:
    exe = npm_tool("@anthropic-ai/claude-code", VERSION, "claude")
    # the npm package runs a native binary from an optional dependency: no binary, no test
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0 or VERSION not in proc.stdout:
        pytest.skip(f"claude {VERSION} from npm does not run here: {(proc.stderr or proc.stdout)[-300:]}")
    return exe


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheelhouse: Wheelhouse) -> Venv:
    env = make_venv(tmp_path_factory.mktemp("cc") / "venv", wheelhouse)
    env.install("agent-hooks-guard")
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def home(tmp_path, venv: Venv) -> Iterator[dict[str, str]]:
    """A temp HOME (with a file rm -rf ~ would delete) and a private agent-hooks home and port; any
    warm server started in it is stopped at the end."""
    home = tmp_path / "home"
    (home / "keep").mkdir(parents=True)
    (home / "keep" / "file").write_text("still here")
    (home / "project").mkdir()
    ah_home = tempfile.mkdtemp(prefix="ah-", dir="/tmp")  # short: the unix socket lives under it
    env = {"HOME": str(home), "AGENT_HOOKS_HOME": ah_home, "AGENT_HOOKS_SERVE_PORT": str(_free_port()),
           "NO_PROXY": "127.0.0.1,localhost"}
    try:
        yield env
    finally:
        venv.run("agenthooks", "serve", "stop", env=env)
        shutil.rmtree(ah_home, ignore_errors=True)


def install(venv: Venv, env: dict[str, str], *args: str) -> dict:
    proc = venv.run("agenthooks", "install", "claude-code", *args, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())


def run_claude(claude: Path, venv: Venv, env: dict[str, str], command: str,
               args: tuple[str, ...] = ("--allowedTools", "Bash"), fake_out: list[FakeAnthropic] | None = None,
               ) -> tuple[list[str], Path]:
    project = Path(env["HOME"]) / "project"
    with FakeAnthropic(command) as fake:
        full = {"PATH": os.environ["PATH"], **env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        # --allowedTools: no permission prompt in -p (--dangerously-skip-permissions refuses root)
        proc = subprocess.run([str(claude), "-p", "go", *args], cwd=project, env=full,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        if fake_out is not None:
            fake_out.append(fake)
        return fake.tool_results(), project


def server_running(venv: Venv, env: dict[str, str]) -> bool:
    return venv.run("agenthooks", "serve", "status", env=env).returncode == 0


@pytest.fixture(params=["default", "command", "client", "http"])
def wired(request, claude, venv, home) -> dict[str, str]:
    """Installed with each transport; the http one with a warm server running, the default one
    (http) as a user gets it: nothing started by hand."""
    settings = install(venv, home, *(["--transport", request.param] if request.param != "default" else []))
    assert "PreToolUse" in settings["hooks"]
    if request.param == "http":
        proc = venv.run("agenthooks", "serve", "start", env=home)
        assert proc.returncode == 0, proc.stderr
        assert server_running(venv, home)
    return home


@pytest.mark.proves("claude-code", "pre_tool", "block")
def test_a_dangerous_command_is_blocked_and_the_model_sees_why(claude, venv, wired):
    results, project = run_claude(claude, venv, wired, DANGEROUS)
    assert not (project / "MARKER").exists()
    assert (Path(wired["HOME"]) / "keep" / "file").read_text() == "still here"
    assert len(results) == 1, results
    assert "recursive delete of a broad path (~) [guard:rm-broad]" in results[0], results


def test_a_benign_command_runs(claude, venv, wired):
    results, project = run_claude(claude, venv, wired, BENIGN)
    assert (project / "MARKER2").exists()
    assert len(results) == 1 and "benign-ran" in results[0] and "guard" not in results[0], results


@pytest.mark.proves("claude-code", "pre_tool", "closed")
@pytest.mark.proves("claude-code", "pre_shell_exec", "closed")
def test_a_moved_environment_blocks_instead_of_switching_the_guard_off(claude, home, tmp_path, wheelhouse):
    """The venv is moved after install: the launcher Claude Code runs blocks PreToolUse."""
    moving = make_venv(tmp_path / "venv", wheelhouse)
    moving.install("agent-hooks-guard")
    install(moving, home, "--transport", "command")
    moving.path.rename(tmp_path / "moved")
    results, project = run_claude(claude, moving, home, BENIGN)
    assert not (project / "MARKER2").exists()
    assert len(results) == 1 and "is gone" in results[0], results


def test_http_with_the_server_stopped_session_start_restarts_it(claude, venv, home):
    install(venv, home, "--transport", "http")
    assert not server_running(venv, home)
    results, project = run_claude(claude, venv, home, DANGEROUS)
    assert not (project / "MARKER").exists()
    assert len(results) == 1 and "[guard:rm-broad]" in results[0], results
    assert server_running(venv, home)  # the SessionStart starter hook started it


@pytest.mark.proves("claude-code", "pre_tool", "closed")
@pytest.mark.proves("claude-code", "pre_shell_exec", "closed")
def test_http_with_no_server_at_all_blocks(claude, venv, home):
    """The server dies mid-session (here: never started, and the SessionStart starter removed):
    ``onFailure: block`` keeps the command from running."""
    settings = install(venv, home, "--transport", "http")
    for group in settings["hooks"]["SessionStart"]:
        group["hooks"] = [h for h in group["hooks"] if h.get("type") == "http"]
    (Path(home["HOME"]) / ".claude" / "settings.json").write_text(json.dumps(settings))
    results, project = run_claude(claude, venv, home, DANGEROUS)
    assert not (project / "MARKER").exists()
    assert (Path(home["HOME"]) / "keep" / "file").read_text() == "still here"
    assert not server_running(venv, home)
    # Claude Code's own words for a handler that failed: the reason is ours, not the guard's
    assert len(results) == 1 and 'blocking because onFailure is "block"' in results[0], results
    assert "guard" not in results[0]


@pytest.mark.proves("claude-code", "pre_shell_exec", "block")
def test_a_shell_gate_blocks_and_the_model_sees_why(claude, venv, home, tmp_path):
    install(venv, home)
    _user_hook(venv, home, "shellgate", PROBE_SOURCE)
    results, project = run_claude(claude, venv, home, FORBIDDEN)
    assert not (project / "ran.txt").exists()
    assert len(results) == 1 and REASON in results[0], results


# -- the stop gate and the permission decision ---------------------------------------------------




def _user_hook(venv, env: dict[str, str], name: str, source: str, settings: str = "") -> None:
    path = Path(env["AGENT_HOOKS_HOME"]) / f"{name}.py"
    path.write_text(source)
    (Path(env["AGENT_HOOKS_HOME"]) / "settings.toml").write_text(f"hooks = [{str(path)!r}]\n{settings}")
    # a user hook file loads once a person trusted it
    venv.run("agenthooks", "trust", env=env, cwd=Path(env["HOME"]), check=True)


@pytest.mark.parametrize(("wanted", "limit", "runs"), [
    (2, 3, 2),    # the gate keeps Claude Code working once, then lets it stop
    (99, 2, 3),   # a gate that never lets go: the user's limit stops it (Claude Code's own cap is 8)
])
@pytest.mark.proves("claude-code", "stop_gate", "block", "continue")
def test_the_stop_gate_keeps_claude_code_working_within_the_limit(claude, venv, home, wanted, limit, runs):
    install(venv, home)
    _user_hook(venv, home, "gate", GATE.replace("WANTED", str(wanted)), f"stop_gate_limit = {limit}\n")
    fakes: list[FakeAnthropic] = []
    run_claude(claude, venv, home, "echo ran >> RUNS", fake_out=fakes)
    project = Path(home["HOME"]) / "project"
    assert (project / "RUNS").read_text().count("ran") == runs
    seen = json.dumps(fakes[0].requests)
    assert "not done: only 1 run(s), run it again" in seen  # the reason reached the model


@pytest.mark.parametrize(("command", "approver", "ran", "seen"), [
    ("echo ran > RAN", True, ["RAN", "REWRITTEN"], None),                # allowed, with updated input
    ("echo ran > RAN", False, [], "not an approver"),                    # an allow from a non-approver denies
    ("touch DENIED", True, [], "no DENIED files here [decider]"),        # deny, the reason to the model
    ("touch UNDECIDED", True, [], None),                                 # no opinion: Claude Code's own prompt
    ("touch CRASH", True, [], "permission_request fails closed"),          # an approver that raises: denied
])
@pytest.mark.proves("claude-code", "permission_request", "block", "rewrite", "closed")
def test_the_permission_decision_on_claude_codes_prompt(claude, venv, home, command, approver, ran, seen):
    install(venv, home)
    _user_hook(venv, home, "decider", decider(approver, rewrite=True))
    results, project = run_claude(claude, venv, home, command, args=())  # no --allowedTools: Bash asks
    assert sorted(p.name for p in project.iterdir() if p.name.isupper()) == ran
    assert len(results) == 1, results
    if seen is not None:
        assert seen in results[0], results
