"""Fixtures for the ecosystem tests: fake installed distributions, projects, the CLI in-process."""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_hooks_core import discovery


class FakeSite:
    """A directory on sys.path holding ``*.dist-info`` distributions with ``agent_hooks`` entry points.

    Module names get a per-test prefix so tests never share ``sys.modules`` entries.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.prefix = f"ahtest_{uuid.uuid4().hex[:8]}_"
        self.modules: list[str] = []

    def module(self, name: str) -> str:
        return self.prefix + name.replace("-", "_")

    def add(self, ep_name: str, source: str = "", *, dist: str | None = None, version: str = "1.0",
            attr: str | None = None, extra_eps: dict[str, str] | None = None) -> str:
        """Install a distribution whose module (``source``) is entry point ``ep_name``; returns the module name."""
        module = self.module(ep_name)
        (self.path / f"{module}.py").write_text(textwrap.dedent(source))
        self.modules.append(module)
        dist = dist or f"agent-hooks-{ep_name}"
        info = self.path / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        value = module + (f":{attr}" if attr else "")
        eps = {ep_name: value, **(extra_eps or {})}
        (info / "entry_points.txt").write_text("[agent_hooks]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
        importlib.invalidate_caches()
        return module

    def imported(self, ep_name: str) -> bool:
        return self.module(ep_name) in sys.modules


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSite]:
    path = tmp_path / "site"
    path.mkdir()
    fake = FakeSite(path)
    monkeypatch.syspath_prepend(str(path))
    monkeypatch.setattr(discovery.entrypoints, "_MEMO", None)
    yield fake
    for name in fake.modules:
        sys.modules.pop(name, None)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> object:
        import json

        return json.loads(self.out)


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """``cli("plugins", "list", input=None)`` runs agenthooks in-process -> Result(code, out, err)."""
    from agent_hooks_core.cli.app import run

    def invoke(*args: str | os.PathLike[str], input: str | None = None) -> Result:
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdin", TTY() if input is None else io.StringIO(input))
        code = run([os.fspath(a) for a in args])
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return invoke


PLAIN_PLUGIN = """
    from agent_hooks_core import hookimpl

    @hookimpl
    def pre_tool(event):
        if "danger" in event.arguments.get("command", ""):
            return {"block": True, "reason": "NAME says no"}
"""


def plain(name: str) -> str:
    """A plugin module's source: its pre_tool blocks commands containing "danger"."""
    return textwrap.dedent(PLAIN_PLUGIN).lstrip().replace("NAME", name)


# -- the real command line in a subprocess, with its own HOME ----------------------------------


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    """The environment of a user with nothing installed: a fresh HOME, no host's variables."""
    mine = ("AGENT_HOOKS", "XDG_", "PI_CODING", "CODEX", "CLAUDE_", "GEMINI_", "OPENCODE")
    keep = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
    return {**keep, "HOME": str(home), "AGENT_HOOKS_HOME": str(tmp_path / "ah"), "COLUMNS": "80",
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_RUNTIME_DIR": str(tmp_path / "run"),
            "AGENT_HOOKS_SERVE_PORT": "0"}


def agenthooks(env: dict[str, str], *args: str | os.PathLike[str], cwd: Path | None = None,
               stdin: str = "", **extra: str) -> Run:
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", *map(os.fspath, args)], env={**env, **extra},
                          cwd=cwd, capture_output=True, text=True, timeout=120, input=stdin)
    return Run(proc.returncode, proc.stdout, proc.stderr)
