"""Helpers of the test_loading_* suites: agenthooks as a real subprocess, in a home and project of the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RM_ROOT = {"tool_name": "bash", "arguments": {"command": "rm -rf /"}}


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("AGENT_HOOKS_PLUGINS", "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "AGENT_HOOKS_TRACE")}
    env.update({"AGENT_HOOKS_HOME": str(home), "COLUMNS": "200", **extra})
    return env


def agenthooks(*args: str, cwd: Path, home: Path, data: Any = None, timeout: float = 60,
               **extra_env: str) -> Run:
    """``python -m agent_hooks_core ARGS`` in ``cwd``: what `install` writes when there is no script."""
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", *args], cwd=cwd,
                          env=env_for(home, **extra_env), capture_output=True, text=True, timeout=timeout,
                          input=None if data is None else json.dumps(data))
    return Run(proc.returncode, proc.stdout, proc.stderr)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def one_line(run: Run) -> str:
    """The single error line of a failed command (and that it is one line, exit 2, no traceback)."""
    lines = run.err.strip().splitlines()
    assert run.code == 2, run
    assert len(lines) == 1 and "Traceback" not in run.err and "internal error" not in run.err, run.err
    return lines[0]
