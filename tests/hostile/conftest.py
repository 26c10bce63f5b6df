"""Fixtures of the hostile suites that run agent-hooks in a home and a project of their own."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    """The test's AGENT_HOOKS_HOME (user settings, user hooks, trust store, cache)."""
    return _isolated_home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory (holding ``.agent-hooks/hooks``), the working directory of the test."""
    root = tmp_path / "project"
    (root / ".agent-hooks" / "hooks").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root
