"""End-to-end tests with the real agent binaries (pi, omp, Codex, Gemini CLI, OpenCode, Claude Code,
Qwen Code, GitHub Copilot CLI, Factory Droid).

Opt-in: they download the agents from the npm registry or PyPI (pinned versions; PyPI agents
each in a venv of their own, with a Python they support) and run them against a fake model server
on 127.0.0.1. Run them with ``tox -e hosts`` (which sets
``AGENT_HOOKS_HOST_TESTS=1``); the default suite skips this directory with one reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

ENABLED = os.environ.get("AGENT_HOOKS_HOST_TESTS") == "1"

#: ``@pytest.mark.proves(host, hook, *claims)``: this test, run against the pinned agent (pins.py),
#: proves that ``hook`` on ``host`` can do each of ``claims`` (block, rewrite, ask, continue,
#: closed): what ``agenthooks hosts`` shows without a ``*``. tests/bridges/test_proven_cells.py reads
#: these markers and fails when a claimed cell has no proving test or ``Cap.proven`` disagrees.
PROVES = ("proves(host, hook, *claims): the real-agent test proves these capability claims "
          "of the host record (see tests/bridges/test_proven_cells.py)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", PROVES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        return
    skip = pytest.mark.skip(reason="real-agent tests are opt-in: run `tox -e hosts`")
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


def npm_cache_root() -> Path:
    """Where pinned agent installs are kept between runs (one directory per package@version)."""
    base = os.environ.get("AGENT_HOOKS_NPM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agent-hooks-tests", "npm")
    return Path(base)


def install_npm(package: str, version: str, binary: str) -> Path:
    """Install ``package@version`` from the npm registry (once) and return the path of ``binary``."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not on PATH (Node.js is needed for the real-agent tests)")
    prefix = npm_cache_root() / f"{package.replace('/', '+')}@{version}"
    exe = prefix / "node_modules" / ".bin" / binary
    if not exe.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(prefix),
             f"{package}@{version}"],
            capture_output=True, text=True, timeout=900)
        if proc.returncode != 0 or not exe.exists():
            pytest.fail(f"npm install {package}@{version} failed:\n{proc.stderr[-4000:]}")
    return exe


def install_npm_set(name: str, packages: list[str], *, ignore_scripts: bool = False) -> Path:
    """Install several pinned packages with ONE npm call into a shared prefix (once) and return its
    ``node_modules``. ``ignore_scripts`` for agents whose postinstall only fetches what npm already
    installs (their platform binary is listed among ``packages``)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not on PATH (Node.js is needed for the real-agent tests)")
    prefix = npm_cache_root() / name
    done = prefix / ".installed"
    wanted = "\n".join(packages)
    if not done.exists() or done.read_text() != wanted:
        prefix.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(prefix),
             *(["--ignore-scripts"] if ignore_scripts else []), *packages],
            capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            pytest.fail(f"npm install {' '.join(packages)} failed:\n{proc.stderr[-4000:]}")
        done.write_text(wanted)
    return prefix / "node_modules"


@pytest.fixture(scope="session")
def npm_set() -> Callable[..., Path]:
    """``npm_set("name", ["pkg@1.0", ...], ignore_scripts=True)`` -> the shared ``node_modules``."""
    return install_npm_set


@pytest.fixture(scope="session")
def npm_tool() -> Callable[[str, str, str], Path]:
    """``npm_tool("@mariozechner/pi-coding-agent", "0.73.1", "pi")`` -> the binary's path."""
    return install_npm


# -- PyPI agents (Mistral Vibe, Kimi CLI, OpenHands): one cached venv per package@version ------


def pypi_cache_root() -> Path:
    base = os.environ.get("AGENT_HOOKS_PYPI_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agent-hooks-tests", "pypi")
    return Path(base)


def install_pypi(package: str, version: str, binary: str, pythons: tuple[str, ...] = ("python3.13", "python3.12")
                 ) -> Path:
    """Install ``package==version`` into its own venv (once) and return the path of ``binary``.
    ``pythons``: interpreters the package supports, first found wins."""
    prefix = pypi_cache_root() / f"{package}@{version}"
    exe = prefix / "bin" / binary
    if not exe.exists():
        python = next((p for p in map(shutil.which, pythons) if p), None)
        if python is None:
            pytest.skip(f"{package} {version} needs one of {', '.join(pythons)}, none is on PATH")
        for argv in ([python, "-m", "venv", "--clear", str(prefix)],
                     [str(prefix / "bin" / "python"), "-m", "pip", "install", "-q", f"{package}=={version}"]):
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                pytest.fail(f"installing {package}=={version} failed:\n{proc.stderr[-4000:]}")
        if not exe.exists():
            pytest.fail(f"{package}=={version} has no {binary} executable")
    return exe


@pytest.fixture(scope="session")
def pypi_tool() -> Callable[..., Path]:
    """``pypi_tool("mistral-vibe", "3.0.2", "vibe")`` -> the binary's path."""
    return install_pypi
