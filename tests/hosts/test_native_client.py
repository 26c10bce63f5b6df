"""The native fast client (the ``agent-hooks-client`` wheel) inside a real command-only host: Gemini
CLI 0.61.0 with ``agenthooks install gemini`` writing the native client, which blocks ``rm -rf ~``
through the per-event process while the warm server is down and through the server once it runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges.gemini import install as gm
from agent_hooks_core.transports import client, launcher

from ..transports.test_native_client import _built_client
from .serve_support import private_server
from .test_gemini import VERSION, run_gemini


@pytest.fixture(scope="module")
def gemini(npm_tool) -> Path:
    pytest.importorskip("agent_hooks_guard")
    return npm_tool("@google/gemini-cli", VERSION, "gemini")


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler (cc): the native client cannot be built here")
    return _built_client(tmp_path_factory.mktemp("native"))


@pytest.fixture
def home(tmp_path, monkeypatch, native):
    home = tmp_path / "home"
    (home / "keep").mkdir(parents=True)
    (home / "keep" / "file").write_text("still here")
    (home / "project").mkdir()
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(home / ".agent-hooks"))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    # the installed wheel, found the way `agenthooks install` finds it
    monkeypatch.syspath_prepend(str(Path(native).parent.parent))
    try:
        with private_server(monkeypatch) as run:
            yield home, run
    finally:
        sys.modules.pop("agent_hooks_client", None)  # the next tests get the Python client again


def test_rm_rf_home_is_denied_through_the_native_client(gemini, home, native):
    home, run = home
    assert client.native_client() == native
    gm.plan_install("user").apply()
    hooks = (home / ".gemini" / "settings.json").read_text()
    assert str(launcher.path(native=True)) in hooks and "fastclient.py" not in hooks
    env = {**os.environ, "XDG_RUNTIME_DIR": run}

    def served() -> int:
        proc = subprocess.run([client.python(), "-m", "agent_hooks_core", "serve", "status", "--json"],
                              capture_output=True, text=True, timeout=60, env=env)
        return int(json.loads(proc.stdout)["events"]) if proc.returncode == 0 else -1

    # the first session: the server is down (the per-event process answers, the client starts it);
    # the second: through the warm server, started and ready
    for session in ("no server", "warm server"):
        if session == "warm server":
            subprocess.run([client.python(), "-m", "agent_hooks_core", "serve", "start", "--quiet"], check=True,
                           timeout=120, env=env)
            before = served()
            assert before >= 0
        outputs = run_gemini(gemini, home, [("shell", "sudo rm -rf ~"), ("text", "ok")])
        assert (home / "keep" / "file").read_text() == "still here"
        assert "[guard:rm-broad]" in outputs[0], (session, outputs)
    assert served() > before  # the second session's events were answered by the server
