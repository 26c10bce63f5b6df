"""The capability matrix is what the adapters do: every hook a host declares is fired by some
recorded payload of that host, and nothing is fired that is not declared; docs/hosts/README.md
is current; `agenthooks hosts` prints it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core import hookimpl
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges import matrix
from agent_hooks_core.bridges.capabilities import of
from agent_hooks_core.hookspecs.catalogue import HOOKS

from .hostkit_support import payloads, runtime

HOSTS = ("codex", "gemini", "cursor", "opencode", "qwen", "copilot", "droid", "vibe", "kimi", "openhands")


class Everything:
    """Implements every canonical hook, answers nothing, logs what fired."""

    def __init__(self) -> None:
        self.fired: set[str] = set()
        for hd in HOOKS:
            setattr(self, hd.name, self._handler(hd.name))

    def _handler(self, hook: str):
        def handler(event):
            self.fired.add(hook)

        handler.__name__ = hook
        return hookimpl(handler)


@pytest.mark.parametrize("host", HOSTS)
def test_declared_hooks_are_exactly_the_fired_ones(host, tmp_path):
    plugin = Everything()
    rt = runtime(plugin, cwd=str(tmp_path))
    adapter = load_adapter(host)
    for event in payloads(host).values():
        adapter.handle(rt, event)
    declared = set(of(host)) - {"host_event"}
    assert plugin.fired == declared, (sorted(plugin.fired - declared), sorted(declared - plugin.fired))


def test_readme_is_current():
    target = Path(__file__).resolve().parents[2] / "docs" / "hosts" / "README.md"
    assert target.read_text(encoding="utf-8") == matrix.markdown(), "run: python -m agent_hooks_core.bridges.matrix"


def test_check_mode(tmp_path, capsys):
    out = tmp_path / "README.md"
    assert matrix.main(["--check", "-o", str(out)]) == 1
    assert matrix.main(["-o", str(out)]) == 0
    assert matrix.main(["--check", "-o", str(out)]) == 0


def test_hosts_command_json_shows_wiring(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / ".codex"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    from agent_hooks_core.bridges.codex import install as cx

    (tmp_path / "proj").mkdir()

    cx.plan_install("user", argv=[sys.executable, "-m", "agent_hooks_core", "codex"]).apply()
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "hosts", "--json", "--dir", str(tmp_path / "proj")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = {h["host"]: h for h in json.loads(proc.stdout)["hosts"]}
    assert set(HOSTS) <= set(data)
    assert data["codex"]["wired"] == ["user"] and data["gemini"]["wired"] == []
    codex = data["codex"]["capabilities"]
    assert codex["pre_tool"] == {**codex["pre_tool"], "fire": True, "block": True, "fail_closed": True}
    assert codex["pre_file_read"]["fire"] is False  # Codex has no read-tool hook: shown, not faked
    text = subprocess.run([sys.executable, "-m", "agent_hooks_core", "hosts"], capture_output=True, text=True,
                          timeout=60)
    assert text.returncode == 0 and "pre_shell_exec" in text.stdout and "FB-C" in text.stdout
