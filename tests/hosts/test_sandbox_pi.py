"""agent-hooks-sandbox in the real pi and oh-my-pi (extension over `agenthooks serve --stdio`): with
guard + sandbox enabled, a bash call the guard lets through (``make`` in a hostile repository)
changes nothing outside the project and reads nothing hidden, while the build in the project works."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.venvs import Venv

from .fakemodel import FakeModel, say, tool_call
from .pi_agents import make_agent
from .sandbox_world import COMMAND, assert_contained, env_of, sandbox_venv, world

__all__ = ["sandbox_venv", "world"]  # fixtures


@pytest.mark.parametrize("host", ["pi", "omp"])
@pytest.mark.proves("pi", "pre_tool", "rewrite")
@pytest.mark.proves("omp", "pre_tool", "rewrite")
def test_pi_runs_the_command_sandboxed(host: str, npm_tool: Any, sandbox_venv: Venv, world: dict[str, str]) -> None:
    agent = make_agent(host, npm_tool)
    home = Path(world["HOME"])
    agent_dir = home / f".{host}" / "agent"
    extra = {k: v for k, v in env_of(world).items() if k != "HOME"}
    sandbox_venv.run(sandbox_venv.bin("agenthooks"), "install", host, env=agent.env(home, agent_dir, **extra),
                     check=True)
    model = FakeModel([tool_call("bash", {"command": COMMAND}), say("done")])
    with model:
        agent.configure(agent_dir, model.base_url)
        proc = subprocess.run(agent.command("go"), cwd=world["project"], env=agent.env(home, agent_dir, **extra),
                              capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert model.errors == []
    results = model.tool_results()
    assert len(results) == 1, results
    assert_contained(world, results[0])
