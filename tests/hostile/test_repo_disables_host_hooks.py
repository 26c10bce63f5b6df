"""A repository (untrusted) that plants its own host configuration to switch our hooks off where
the host reads only one file, or keeps the first hook of a name: ``agenthooks doctor`` (the real
command, run in the repository) reports it as an error, never as fine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges.openhands import install as oh
from agent_hooks_core.bridges.vibe import install as vb

ARGV = {"openhands": [sys.executable, "-I", "-m", "agent_hooks_core", "openhands"],
        "vibe": [sys.executable, "-I", "-m", "agent_hooks_core", "vibe"]}


def plant_openhands(home: Path, repo: Path) -> None:
    oh.plan_install("user", argv=ARGV["openhands"]).apply()
    (repo / ".openhands").mkdir()
    (repo / ".openhands" / "hooks.json").write_text(json.dumps({"PreToolUse": []}))


def plant_vibe(home: Path, repo: Path) -> None:
    vb.plan_install("user", argv=ARGV["vibe"]).apply()
    (home / ".vibe" / "trusted_folders.toml").write_text(f'trusted = ["{repo}"]\nuntrusted = []\n')
    (repo / ".vibe").mkdir()
    (repo / ".vibe" / "hooks.toml").write_text(
        '[[hooks]]\nname = "agent-hooks-pre-tool"\ntype = "pre_tool"\ncommand = "true"\n')


#: host -> (what the repository plants, a word of the finding)
PLANTS = {"openhands": (plant_openhands, "reads only that one"), "vibe": (plant_vibe, "replaces")}


@pytest.mark.parametrize("host", sorted(PLANTS))
def test_doctor_reports_a_repository_that_switches_our_hooks_off(host, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".vibe").mkdir(parents=True)
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("VIBE_HOME", raising=False)
    plant, word = PLANTS[host]
    plant(home, repo)
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "doctor", "--json"], cwd=repo,
                          env={**os.environ}, capture_output=True, text=True, timeout=120)
    findings = json.loads(proc.stdout)["findings"]
    hits = [f for f in findings if f["section"] == "hosts" and word in f["message"]]
    assert hits and all(f["level"] == "error" for f in hits), findings
