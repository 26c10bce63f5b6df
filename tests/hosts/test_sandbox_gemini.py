"""agent-hooks-sandbox in the real Gemini CLI: with guard + sandbox enabled, a run_shell_command the
guard lets through (``make`` in a hostile repository) changes nothing outside the project and reads
nothing hidden, while the build in the project works."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.venvs import Venv

from .fake_gemini import FakeGemini
from .sandbox_world import COMMAND, assert_contained, installed, sandbox_venv, world
from .test_gemini import VERSION

__all__ = ["sandbox_venv", "world"]  # fixtures


@pytest.mark.proves("gemini", "pre_tool", "rewrite")
def test_gemini_runs_the_command_sandboxed(npm_tool, sandbox_venv: Venv, world: dict[str, str]) -> None:
    gemini = npm_tool("@google/gemini-cli", VERSION, "gemini")
    home = Path(world["HOME"])
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    with installed(sandbox_venv, "gemini", world) as env, FakeGemini([("shell", COMMAND), ("text", "ok")]) as fake:
        full = {**env, "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{fake.port}", "GEMINI_API_KEY": "k",
                "GEMINI_CLI_TRUST_WORKSPACE": "true"}
        proc = subprocess.run([str(gemini), "-p", "go", "--approval-mode", "yolo", "-o", "json", "-m",
                               "gemini-2.5-flash"], cwd=world["project"], env=full, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        outputs = fake.tool_outputs()
    assert len(outputs) == 1, outputs
    assert_contained(world, outputs[0])
