"""agent-hooks-sandbox in the real OpenCode (plugin over `agenthooks serve --stdio`): with guard +
sandbox enabled, a bash call the guard lets through (``make`` in a hostile repository) changes
nothing outside the project and reads nothing hidden, while the build in the project works."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.venvs import Venv

from .fake_chat import FakeChat
from .sandbox_world import COMMAND, assert_contained, installed, sandbox_venv, world
from .test_opencode import QUIET, VERSION, write_config

__all__ = ["sandbox_venv", "world"]  # fixtures


@pytest.mark.proves("opencode", "pre_tool", "rewrite")
def test_opencode_runs_the_command_sandboxed(npm_tool, sandbox_venv: Venv, world: dict[str, str]) -> None:
    opencode = npm_tool("opencode-ai", VERSION, "opencode")
    project = Path(world["project"])
    with installed(sandbox_venv, "opencode", world) as env, \
            FakeChat([("call", "bash", {"command": COMMAND, "description": "build"}), ("text", "ok", None)]) as fake:
        write_config(project, fake.base_url)
        proc = subprocess.run([str(opencode), "run", "--model", "fake/m1", "go"], cwd=project,
                              env={**env, **QUIET, "PWD": str(project)}, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        results = fake.tool_results()
    assert len(results) == 1, results
    assert_contained(world, results[0])
