"""The agent versions the real-agent tests run, in one place: host name -> the version its binary
reports. Each capability a test here proves (the ``proves`` marker) names this version in its host
record's ``Cap.proven``; tests/bridges/test_proven_cells.py fails when the two disagree.

Cursor is missing on purpose: it has no binary to run, so its capabilities are protocol-tested only.
"""

from __future__ import annotations

PINS: dict[str, str] = {
    "claude-code": "2.1.330",  # npm @anthropic-ai/claude-code
    "codex": "0.169.0",  # npm @openai/codex
    "gemini": "0.61.0",  # npm @google/gemini-cli
    "opencode": "1.18.33",  # npm opencode-ai
    "pi": "0.73.1",  # npm @mariozechner/pi-coding-agent
    "omp": "18.2.3",  # npm @oh-my-pi/pi-coding-agent
    "qwen": "0.24.4",  # npm @qwen-code/qwen-code
    "copilot": "1.0.102",  # npm @github/copilot (+ @github/copilot-linux-x64)
    "droid": "0.225.2",  # npm @factory/cli-linux-x64, the binary (@factory/cli is DROID_NPM)
    "kimi": "1.51.0",  # PyPI kimi-cli
    "openhands": "1.16.0",  # PyPI openhands
    "vibe": "3.0.2",  # PyPI mistral-vibe
}

#: @factory/cli's own version: its launcher package lags the binary it installs
DROID_NPM = "0.225.1"
