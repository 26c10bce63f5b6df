"""``agenthooks hosts --verify HOST``: the real install command into a throwaway HOME, then the
check runs the command lines the host's configuration holds, as the host would; a broken wiring
is reported and exits 1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support.environ import without

HOSTS = ["claude-code", "codex", "gemini"]
#: where each host's user configuration holds its gating hook
CONFIG = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}
GATE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A user with a fresh HOME and AGENT_HOOKS_HOME; the warm server a check may start is stopped after."""
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    keep = without("XDG_", "CODEX", "CLAUDE", "GEMINI")
    environ = {**keep, "HOME": str(home), "AGENT_HOOKS_HOME": str(tmp_path / "ah"), "CODEX_HOME": str(home / ".codex"),
               "COLUMNS": "200"}
    yield environ
    subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "stop"], env=environ, capture_output=True,
                   timeout=60, cwd=home)


def agenthooks(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent_hooks_core", *args], env=env, capture_output=True, text=True,
                          timeout=180, cwd=Path(env["HOME"]) / "project")


def install(env: dict[str, str], host: str) -> None:
    proc = agenthooks(env, "install", host)
    assert proc.returncode == 0, proc.stderr


def verify(env: dict[str, str], host: str) -> tuple[int, list[tuple[str, str]]]:
    proc = agenthooks(env, "hosts", "--verify", host, "--json")
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    assert data["host"] == host and data["ok"] is (proc.returncode == 0)
    return proc.returncode, [(c["status"], c["message"]) for c in data["checks"]]


@pytest.mark.parametrize("host", HOSTS)
def test_an_installed_host_passes_and_its_configured_command_blocks(env, host) -> None:
    install(env, host)
    code, checks = verify(env, host)
    assert code == 0, checks
    config = str(Path(env["HOME"]) / CONFIG[host])
    assert ("ok", "our hooks are in its configuration (user)") in checks
    ran = [m for s, m in checks if s == "ok" and m.startswith(f"{GATE[host]} in {config}: ")]
    assert len(ran) == 1, checks
    assert "answers a tool call it cannot check with a block" in ran[0] and "fail-closed" in ran[0], ran
    text = agenthooks(env, "hosts", "--verify", host)
    assert text.returncode == 0 and "every check passed" in text.stdout, text.stdout + text.stderr


@pytest.mark.parametrize("host", HOSTS)
def test_a_host_that_is_not_installed_fails_and_says_how_to_fix_it(env, host) -> None:
    code, checks = verify(env, host)
    assert code == 1
    assert ("fail", f"our hooks are not in its configuration: run `agenthooks install {host}`") in checks


def _rewrite_gate(env: dict[str, str], host: str, command: str) -> None:
    """Point our gating handler at ``command`` (shell form), as a hand edit would."""
    path = Path(env["HOME"]) / CONFIG[host]
    data = json.loads(path.read_text())
    for group in data["hooks"][GATE[host]]:
        for handler in group["hooks"]:
            handler.pop("args", None)
            handler["command"] = command
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("host", HOSTS)
def test_a_configured_command_that_does_not_block_fails(env, host) -> None:
    """A handler that still names our bridge but answers nothing (exit 0, no deny): the gate is open."""
    install(env, host)
    _rewrite_gate(env, host, f"echo agenthooks {host} --event {GATE[host]} >/dev/null")
    code, checks = verify(env, host)
    assert code == 1, checks
    failed = [m for s, m in checks if s == "fail" and m.startswith(f"{GATE[host]} in ")]
    assert failed and "did not block a tool call it cannot check (exit 0)" in failed[0], checks


@pytest.mark.parametrize("host", HOSTS)
def test_a_configured_command_that_is_gone_fails(env, host, tmp_path) -> None:
    install(env, host)
    gone = tmp_path / "moved" / "agenthooks"
    _rewrite_gate(env, host, f"{gone} {host} --event {GATE[host]}")
    code, checks = verify(env, host)
    assert code == 1, checks
    assert any(s == "fail" and m.startswith(f"{GATE[host]} in ") and "did not block" in m for s, m in checks), checks


def test_gemini_hooks_turned_off_fail(env) -> None:
    install(env, "gemini")
    path = Path(env["HOME"]) / CONFIG["gemini"]
    data = json.loads(path.read_text())
    data["hooksConfig"] = {"enabled": False}
    path.write_text(json.dumps(data))
    code, checks = verify(env, "gemini")
    assert code == 1
    assert any(s == "fail" and "hooks are turned off" in m for s, m in checks), checks


def test_codex_hooks_without_trust_fail(env) -> None:
    """Codex skips hooks it has no trust for: the installer's check says so and --verify fails."""
    proc = subprocess.run([sys.executable, "-c", "from agent_hooks_core.bridges.codex import install as cx; "
                           "cx.plan_install('user', trust=False).apply()"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    code, checks = verify(env, "codex")
    assert code == 1
    assert any(s == "fail" and "untrusted" in m for s, m in checks), checks


def test_an_unknown_host_is_exit_2_with_one_line(env) -> None:
    proc = agenthooks(env, "hosts", "--verify", "no-such-agent")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "unknown host 'no-such-agent'" in proc.stderr


def test_a_command_in_the_projects_configuration_is_shown_not_run(env, tmp_path) -> None:
    """A cloned repository's .claude/settings.json names our bridge and more: --verify never runs it."""
    project = Path(env["HOME"]) / "project"
    ran = tmp_path / "ran"
    hostile = f"agenthooks claude-code --event PreToolUse; touch {ran}"
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": hostile}]}]}}))
    _, checks = verify(env, "claude-code")
    assert not ran.exists()
    assert any(s == "note" and "not run: a project's configuration is the repository's to write" in m and hostile in m
               for s, m in checks), checks


EXTENSIONS = {"pi": ".pi/agent/extensions/agent-hooks.ts", "opencode": ".config/opencode/plugin/agent-hooks.ts"}


@pytest.mark.parametrize("host", sorted(EXTENSIONS))
def test_an_extension_host_starts_the_server_its_extension_names_and_it_blocks(env, host) -> None:
    install(env, host)
    code, checks = verify(env, host)
    assert code == 0, checks
    path = Path(env["HOME"]) / EXTENSIONS[host]
    assert any(s == "ok" and m.startswith(f"{'tool_call' if host == 'pi' else 'tool.execute.before'} through {path}: "
                                          "the server it starts answers a tool call it cannot check with a block")
               for s, m in checks), checks


@pytest.mark.parametrize("host", sorted(EXTENSIONS))
def test_an_extension_naming_a_python_that_is_gone_fails(env, host, tmp_path) -> None:
    install(env, host)
    path = Path(env["HOME"]) / EXTENSIONS[host]
    text = path.read_text()
    python = json.loads(text.split("const BAKED: ", 1)[1].split("= ", 1)[1].split("; //", 1)[0])["python"]
    path.write_text(text.replace(json.dumps(python), json.dumps(str(tmp_path / "gone" / "python")), 1))
    code, checks = verify(env, host)
    assert code == 1, checks
    assert any(s == "fail" and "cannot start" in m for s, m in checks), checks
