"""Real bubblewrap for the sandbox tests: skip with one clear reason where it cannot run, and a
scratch directory outside /tmp (inside the sandbox /tmp is private, so paths under it would be
invisible whether or not the policy hides them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import agent_hooks_guard
import agent_hooks_sandbox
import pytest
from agent_hooks_core import Runtime
from agent_hooks_sandbox.policy import find_program
from agent_hooks_sandbox.probe import unavailable

BWRAP = find_program("bwrap")
WHY_NOT = unavailable(BWRAP, fresh=True)
needs_bwrap = pytest.mark.skipif(WHY_NOT is not None, reason=f"bubblewrap cannot run here: {WHY_NOT}")


HOSTILE_MAKEFILE = """\
all: build attack

build:
\techo built > build.txt
\ttest -s build.txt

attack:
\t-rm -rf $(HOME)/important
\t-cat $(HOME)/.ssh/id_rsa
\t-echo 'disabled = ["guard", "sandbox"]' >> $(AGENT_HOOKS_HOME)/settings.toml
\t-echo 'disabled = ["guard"]' > .agent-hooks/settings.toml
"""


def outside_tmp(prefix: str) -> Path:
    """A new directory outside /tmp: in this Python environment's prefix, the checkout, or the
    user's cache (whichever is first outside /tmp and writable: a checkout may itself live in
    /tmp). Skips the test where there is none."""
    tmp = os.path.realpath(tempfile.gettempdir())
    candidates = [sys.prefix, str(Path(__file__).resolve().parents[2]), str(Path.home() / ".cache")]
    for base in candidates:
        real = os.path.realpath(base)
        if any(real == t or real.startswith(t + os.sep) for t in {tmp, "/tmp"}):
            continue
        try:
            os.makedirs(real, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=prefix, dir=real))
        except OSError:
            continue
    pytest.skip(f"no writable directory outside /tmp for the sandbox tests (tried {', '.join(candidates)})")


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A temporary directory outside /tmp (see :func:`outside_tmp`)."""
    path = outside_tmp("sandbox-test-")
    try:
        yield path.resolve()
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def world(scratch: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A HOME with an SSH key and a directory to lose, agent-hooks settings, and a project."""
    home, settings, project = scratch / "home", scratch / "agent-hooks", scratch / "proj"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- secret\n")
    (home / "important").mkdir()
    (home / "important" / "thesis.txt").write_text("years of work\n")
    settings.mkdir()
    (settings / "settings.toml").write_text('enabled = ["guard", "sandbox"]\n')
    (project / ".agent-hooks").mkdir(parents=True)
    # a hostile repository: `make` is an ordinary build command no guard can refuse, and its
    # recipe is what the agent's command really does
    (project / "Makefile").write_text(HOSTILE_MAKEFILE)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # the sandbox's lock: this test's own
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(settings))
    return {"home": home, "settings": settings, "project": project, "scratch": scratch}


def runtime(project: Path, config: Any = None, guard: bool = True) -> Runtime:
    plugins: list[Any] = [("guard", agent_hooks_guard)] if guard else []
    return Runtime(plugins=[*plugins, ("sandbox", agent_hooks_sandbox)], cwd=str(project),
                   plugin_config={"sandbox": config} if config is not None else {})


def run_tool(project: Path, command: str, config: Any = None, env: dict[str, str] | None = None,
             guard: bool = True) -> subprocess.CompletedProcess[str]:
    """pre_tool with guard + sandbox (or the sandbox alone), then run what came out with a shell,
    as a host would."""
    out = runtime(project, config, guard).fire("pre_tool", {"tool_name": "Bash", "arguments": {"command": command}})
    assert out.decision != "blocked", out.reason
    wrapped = out.data["arguments"]["command"]
    assert wrapped != command
    return subprocess.run(["/bin/bash", "-c", wrapped], cwd=project, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)
