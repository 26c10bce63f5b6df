"""Run the Claude Code bridge on an event and see what Claude Code would see.

``cc`` runs ``python -m agent_hooks_core claude-code --hook scripted_plugin.py`` in a subprocess
(the real command, as Claude Code starts it) or, for the ``inproc`` variant, calls
``claude_code.main`` with an injected runtime factory holding the same plugin. Either way the
result is the exit code, the parsed stdout, stderr and the plugin's log of hook calls.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.bridges import claude_code

PLUGIN = Path(__file__).with_name("scripted_plugin.py")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    calls: list[dict[str, Any]]

    @property
    def json(self) -> Any:
        return json.loads(self.stdout) if self.stdout.strip() else None

    def hooks(self) -> list[str]:
        return [c["hook"] for c in self.calls]

    def call(self, hook: str) -> dict[str, Any]:
        found = [c for c in self.calls if c["hook"] == hook]
        assert len(found) == 1, f"{hook} called {len(found)} times: {self.hooks()}"
        return found[0]


def _load_plugin() -> Any:
    spec = importlib.util.spec_from_file_location("scripted_plugin", PLUGIN)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Runner:
    def __init__(self, mode: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.mode = mode
        self.tmp = tmp
        self.cwd = str(tmp)
        self.log = tmp / "calls.jsonl"
        self.monkeypatch = monkeypatch

    def __call__(self, event: dict[str, Any] | bytes | str, script: dict[str, Any] | None = None,
                 args: tuple[str, ...] = (), plugin: bool = True) -> Result:
        raw = event if isinstance(event, bytes) else (event.encode() if isinstance(event, str)
                                                      else json.dumps(event).encode())
        if self.log.exists():
            self.log.unlink()
        env = {"CC_TEST_LOG": str(self.log), "CC_TEST_SCRIPT": json.dumps(script or {}),
               "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
        argv = [*(("--hook", str(PLUGIN)) if plugin else ()), *args]
        if self.mode == "subprocess":
            full_env = {**os.environ, **env}
            proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", *argv], input=raw,
                                  capture_output=True, cwd=self.cwd, env=full_env, timeout=60)
            code, out, err = proc.returncode, proc.stdout.decode(), proc.stderr.decode()
        else:
            for k, v in env.items():
                self.monkeypatch.setenv(k, v)
            stdout, stderr = io.StringIO(), io.StringIO()

            def factory(*, hooks: list[str], settings: str | None, **options: Any) -> Runtime:
                return Runtime(plugins=[("scripted_plugin", _load_plugin())] if hooks else [], **options)

            code = claude_code.main(argv, stdin=io.BytesIO(raw), stdout=stdout, stderr=stderr,
                                    runtime_factory=factory)
            out, err = stdout.getvalue(), stderr.getvalue()
        calls = [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []
        return Result(code, out, err, calls)


@pytest.fixture(params=["subprocess", "inproc"])
def cc(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runner]:
    yield Runner(request.param, tmp_path, monkeypatch)


@pytest.fixture
def cc_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runner:
    """Only the real command (for what discovery does: loading plugins, settings files)."""
    return Runner("subprocess", tmp_path, monkeypatch)


@pytest.fixture
def cli() -> Any:
    """A typer app with ``agenthooks install|uninstall <host>`` (and nothing else) to invoke."""
    import typer
    from agent_hooks_core.cli import hosts

    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """agenthooks"""

    hosts.register(app)
    return app
