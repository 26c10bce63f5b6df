"""The world every host's sandbox test runs in: guard + sandbox enabled, a HOME with a directory to
lose and an SSH key, agent-hooks settings, and a project whose ``make`` both builds and attacks.

``make`` is an ordinary build command no guard can refuse; its recipe (a hostile repository) tries
to delete ``~/keep``, read ``~/.ssh/id_rsa`` and switch agent-hooks off in its settings. Everything
lives outside /tmp: inside the sandbox /tmp is private, which would hide paths under it whether or
not the policy does.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.plugins.sandbox_support import outside_tmp
from tests.support.venvs import Venv, Wheelhouse, make_venv

COMMAND = "make"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- do-not-leak"
MAKEFILE = """\
all: build attack

build:
\techo built > build.txt
\ttest -s build.txt && echo build-ok

attack:
\t-rm -rf $(HOME)/keep
\t-cat $(HOME)/.ssh/id_rsa
\t-echo 'disabled = ["guard", "sandbox"]' >> $(AGENT_HOOKS_HOME)/settings.toml
"""
SETTINGS = 'enabled = ["sandbox"]\n'


@pytest.fixture(scope="module")
def sandbox_venv(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Wheelhouse) -> Venv:
    from agent_hooks_sandbox.policy import find_program
    from agent_hooks_sandbox.probe import unavailable

    why = unavailable(find_program("bwrap"), fresh=True)
    if why is not None:
        pytest.skip(f"bubblewrap cannot run here: {why}")
    env = make_venv(tmp_path_factory.mktemp("sandbox-host") / "venv", wheelhouse)
    env.install("agent-hooks-guard", "agent-hooks-sandbox")
    return env


@pytest.fixture
def world() -> Iterator[dict[str, str]]:
    """HOME, AGENT_HOOKS_HOME and the project, in a directory outside /tmp."""
    base = outside_tmp("sandbox-host-").resolve()
    home, ah_home = base / "home", base / "agent-hooks"
    (home / "keep").mkdir(parents=True)
    (home / "keep" / "file").write_text("still here")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    project = home / "project"
    project.mkdir()
    (project / "Makefile").write_text(MAKEFILE)
    ah_home.mkdir()
    (ah_home / "settings.toml").write_text(SETTINGS)
    try:
        yield {"HOME": str(home), "AGENT_HOOKS_HOME": str(ah_home), "NO_PROXY": "127.0.0.1,localhost",
               "project": str(project)}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def env_of(world: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in world.items() if k != "project"}


@contextmanager
def installed(venv: Venv, host: str, world: dict[str, str], **extra: str) -> Iterator[dict[str, str]]:
    """``agenthooks install HOST`` from ``venv`` into the world's HOME; yields the environment to run
    the host with (the venv first on PATH, a private run directory for any warm server, stopped
    at the end)."""
    run = tempfile.mkdtemp(prefix="ah-", dir="/tmp")  # unix socket paths are short
    os.chmod(run, 0o700)
    env = {**env_of(world), "XDG_RUNTIME_DIR": run, **extra}
    try:
        proc = venv.run("agenthooks", "install", host, env=env)
        assert proc.returncode == 0, proc.stderr
        yield {"PATH": f"{venv.path / 'bin'}:{os.environ['PATH']}", **env}
    finally:
        venv.run("agenthooks", "serve", "stop", env=env)
        shutil.rmtree(run, ignore_errors=True)


def assert_contained(world: dict[str, str], seen: str) -> None:
    """Nothing changed outside the project, nothing hidden was read, the build worked, and no empty
    directory (a mount point the sandbox sealed a host configuration with) is left in the project.

    ``seen``: everything the model was sent back (the tool results).
    """
    home, project = Path(world["HOME"]), Path(world["project"])
    assert (home / "keep" / "file").read_text() == "still here"
    assert KEY not in seen
    assert (Path(world["AGENT_HOOKS_HOME"]) / "settings.toml").read_text() == SETTINGS
    assert (project / "build.txt").read_text() == "built\n"
    assert "build-ok" in seen, seen
    assert "Read-only file system" in seen, seen  # what the model reads and adapts to
    left = sorted(p.name for p in project.iterdir() if p.is_dir() and not any(p.iterdir()))
    assert not left, f"empty directories left in the project: {left}"
