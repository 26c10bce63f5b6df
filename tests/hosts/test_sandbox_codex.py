"""agent-hooks-sandbox in the real Codex (its own sandbox off): with guard + sandbox enabled, a shell
call the guard lets through (``make`` in a hostile repository) changes nothing outside the project
and reads nothing hidden, while the build in the project works."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.venvs import Venv

from .fake_responses import FakeResponses
from .sandbox_world import COMMAND, assert_contained, installed, sandbox_venv, world
from .test_codex import VERSION

__all__ = ["sandbox_venv", "world"]  # fixtures


@pytest.mark.proves("codex", "pre_tool", "rewrite")
def test_codex_runs_the_command_sandboxed(npm_tool, sandbox_venv: Venv, world: dict[str, str]) -> None:
    codex = npm_tool("@openai/codex", VERSION, "codex")
    home = Path(world["HOME"])
    with installed(sandbox_venv, "codex", world, CODEX_HOME=str(home / ".codex")) as env, \
            FakeResponses([("shell", COMMAND), ("text", "ok")]) as fake:
        config = home / ".codex" / "config.toml"
        config.write_text(
            f'model = "gpt-5-codex"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "http://127.0.0.1:{fake.port}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n\n'
            + config.read_text())
        proc = subprocess.run([str(codex), "exec", "--skip-git-repo-check", "--json",
                               "--dangerously-bypass-approvals-and-sandbox", "-C", world["project"], "go"],
                              capture_output=True, text=True, timeout=300, env={**env, "FAKE_KEY": "k"},
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs = fake.tool_outputs()
    assert len(outputs) == 1, outputs
    assert_contained(world, outputs[0])
