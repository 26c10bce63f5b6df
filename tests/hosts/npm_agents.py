"""The npm agents installed together (one npm call): Qwen Code, GitHub Copilot CLI, Factory Droid.

Copilot's and Droid's postinstall only pick the platform package, which is listed here, so the
set installs with ``--ignore-scripts``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from .pins import DROID_NPM, PINS

QWEN = PINS["qwen"]
COPILOT = PINS["copilot"]
DROID = DROID_NPM
DROID_BINARY = PINS["droid"]

PACKAGES = [f"@qwen-code/qwen-code@{QWEN}", f"@github/copilot@{COPILOT}", f"@github/copilot-linux-x64@{COPILOT}",
            f"@factory/cli@{DROID}", f"@factory/cli-linux-x64@{DROID_BINARY}"]


def agents(npm_set: Callable[..., Path]) -> Path:
    import platform
    import sys

    if not (sys.platform == "linux" and platform.machine() == "x86_64"):
        pytest.skip("the pinned Copilot and Droid binaries are linux-x64")
    return npm_set(f"copilot-qwen-droid@{QWEN}+{COPILOT}+{DROID_BINARY}", PACKAGES, ignore_scripts=True)


def base_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COPILOT_", "GITHUB_", "GH_", "OPENAI_"))}
    return {**env, "HOME": str(home), "NO_PROXY": "127.0.0.1,localhost", "AGENT_HOOKS_PLUGINS": "guard",
            "DO_NOT_TRACK": "1", **extra}


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    return proc
