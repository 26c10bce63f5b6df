"""Shared fixtures. Every test runs with its own AGENT_HOOKS_HOME so no user settings leak in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.venvs import Venv, Wheelhouse, make_venv, project_dirs


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("agent-hooks-home")
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(home))
    # no per-event command started by a test leaves a warm server behind (tests/transports/test_autostart.py
    # turns it on for itself)
    monkeypatch.setenv("AGENT_HOOKS_SERVE_AUTOSTART", "0")
    # COLUMNS/LINES: pytest-xdist's workers inherit a terminal size (80x24); a test that lays out
    # for a width sets COLUMNS itself
    for var in ("AGENT_HOOKS_PLUGINS", "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "AGENT_HOOKS_TRACE", "COLUMNS", "LINES"):
        monkeypatch.delenv(var, raising=False)
    yield home


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


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Wheelhouse:
    """Wheels of the core and every first-party plugin, plus all their dependencies."""
    house = Wheelhouse(tmp_path_factory.mktemp("wheelhouse"))
    wheels = [house.build(src) for src in project_dirs().values()]
    house.fetch_dependencies(*wheels)
    return house


@pytest.fixture
def fresh_venv(tmp_path: Path, wheelhouse: Wheelhouse) -> Callable[..., Venv]:
    """Factory: ``fresh_venv("agent-hooks-core", "agent-hooks-guard")`` -> a venv with those installed."""

    def factory(*requirements: str | Path, name: str = "venv") -> Venv:
        env = make_venv(tmp_path / name, wheelhouse)
        if requirements:
            env.install(*requirements)
        return env

    return factory
