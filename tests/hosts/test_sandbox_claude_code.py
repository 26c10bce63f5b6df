"""agent-hooks-sandbox in the real Claude Code: with guard + sandbox enabled, a Bash call the guard
lets through (``make`` in a hostile repository) changes nothing outside the project and reads
nothing hidden, while the build in the project works."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.venvs import Venv

from .fake_anthropic import FakeAnthropic
from .sandbox_world import COMMAND, assert_contained, env_of, sandbox_venv, world
from .test_claude_code import claude

__all__ = ["claude", "sandbox_venv", "world"]  # fixtures


@pytest.mark.proves("claude-code", "pre_tool", "rewrite")
def test_claude_code_runs_the_command_sandboxed(claude: Path, sandbox_venv: Venv, world: dict[str, str]) -> None:
    env = env_of(world)
    proc = sandbox_venv.run("agenthooks", "install", "claude-code", env=env)
    assert proc.returncode == 0, proc.stderr
    with FakeAnthropic(COMMAND) as fake:
        full = {"PATH": f"{sandbox_venv.path / 'bin'}:{os.environ['PATH']}", **env,
                "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        proc = subprocess.run([str(claude), "-p", "go", "--allowedTools", "Bash"], cwd=world["project"], env=full,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        results = fake.tool_results()
    assert len(results) == 1, results
    assert_contained(world, results[0])
