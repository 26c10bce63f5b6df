"""What the real-agent tests of the command hosts share: a HOME of the test's own (with a file the
guard must keep and a project to run in) and a private warm server, the two ways of installing
(the command users run, or a plan naming a command of the test's), the plugins the tests install
(one that crashes at import, a stop gate), and running an agent against the fake model.

A host's test file keeps only what is its own: where the agent is, how it is started, its
configuration, and the assertions about what it does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .serve_support import private_server

#: what the guard must leave alone when the model asks for ``rm -rf ~``
KEPT = ("keep", "file")
KEPT_TEXT = "still here"

#: a stop gate: keeps the agent working until the project's RUNS holds WANTED runs
GATE = """
from pathlib import Path
from agent_hooks_core import hookimpl

@hookimpl
def stop_gate(event, ctx):
    runs = Path(ctx.cwd, "RUNS").read_text().count("ran") if Path(ctx.cwd, "RUNS").exists() else 0
    if runs < WANTED:
        return {"continue": True, "reason": f"not done: only {runs} run(s), run it again"}
"""


@contextmanager
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *dirs: str, unset: Sequence[str] = ()
               ) -> Iterator[Path]:
    """HOME for one test: ``keep/file``, ``project/`` and the agent's own ``dirs``; the variables
    in ``unset`` (which would move the agent's files elsewhere) removed; a private warm server,
    since the fast client starts one."""
    home = tmp_path / "home"
    (home / KEPT[0]).mkdir(parents=True)
    home.joinpath(*KEPT).write_text(KEPT_TEXT)
    for name in ("project", *dirs):
        (home / name).mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in unset:
        monkeypatch.delenv(name, raising=False)
    with private_server(monkeypatch):
        yield home


def kept(home: Path) -> bool:
    return home.joinpath(*KEPT).read_text() == KEPT_TEXT


def install(host: str, *flags: str) -> None:
    """``agenthooks install HOST FLAGS``, the command users run (in this test's HOME)."""
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "install", host, *flags], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def hook_argv(host: str, plugin: Path) -> list[str]:
    """The per-event command of ``host`` with one more local plugin file (``--hook``)."""
    return [sys.executable, "-m", "agent_hooks_core", host, "--hook", str(plugin)]


def broken_plugin(tmp_path: Path) -> Path:
    """A local plugin that raises at import: every gating event must then fail closed."""
    path = tmp_path / "broken_plugin.py"
    path.write_text("raise RuntimeError('plugin exploded at import')\n")
    return path


def stop_gate(tmp_path: Path, wanted: int, limit: int) -> Path:
    """The :data:`GATE` plugin wanting ``wanted`` runs, with the user's ``stop_gate_limit``."""
    path = tmp_path / "gate.py"
    path.write_text(GATE.replace("WANTED", str(wanted)))
    (Path(os.environ["AGENT_HOOKS_HOME"]) / "settings.toml").write_text(f"stop_gate_limit = {limit}\n")
    return path


#: a permission decider: allows ``echo ran`` (with a rewrite where the host takes one), denies
#: ``touch DENIED`` with a reason, raises on ``touch CRASH`` and has no opinion on the rest
DECIDER = """
from pathlib import Path
from agent_hooks_core import hookimpl

agent_hooks_approver = APPROVER

@hookimpl
def permission_request(event, ctx):
    if ASKED:
        Path(ctx.cwd, "ASKED").write_text(repr(event.tool_name))
    command = event.arguments.get("command", "")
    command = command if isinstance(command, str) else " ".join(command)
    if "touch CRASH" in command:
        raise RuntimeError("approver exploded")
    if "echo ran" in command:
        if REWRITE:
            return {"decision": "allow", "arguments": {**event.arguments, "command": command + " && touch REWRITTEN"}}
        return {"decision": "allow"}
    if "touch DENIED" in command:
        return {"decision": "deny", "reason": "no DENIED files here [decider]"}
"""


def decider(approver: bool, *, rewrite: bool = False, asked: bool = False) -> str:
    """The :data:`DECIDER` plugin's source: an approver or not, rewriting the allowed command or not,
    leaving an ``ASKED`` file in the project when it is asked or not."""
    return DECIDER.replace("APPROVER", str(approver)).replace("REWRITE", str(rewrite)).replace("ASKED:", f"{asked}:")


def run_agent(argv: list[str], home: Path, env: dict[str, str], model: Any,
              results: Callable[[], list[str]] | None = None) -> list[str]:
    """Run the agent in ``home/project`` (no stdin, five minutes at most) while ``model`` (a fake
    model server, already started) answers it; it must exit 0 and the model see no bad request.
    The tool results the agent sent back to the model."""
    proc = subprocess.run(argv, cwd=home / "project", env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert not getattr(model, "errors", None), model.errors
    return (results or model.tool_results)()


def local_env(**extra: str) -> dict[str, str]:
    """This environment for an agent talking to the fake model on 127.0.0.1, the guard on."""
    return {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "AGENT_HOOKS_PLUGINS": "guard", **extra}
