"""Padding must not carry a dangerous command past the guard: whatever fills a command line (long
argument lists, many distinct commands, commands that each need the file system asked, pipelines),
the part that is not analysed makes the line ``too-large`` (blocked), and a dangerous command in
the part that is analysed is still named."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_hooks_guard.policy import Policy, resolve

DANGER = "rm -rf ~"
#: fillers an agent can put before or after a dangerous command; each alone is harmless
FILLERS = {
    "one command of 13,000 words": "echo " + "x " * 13_000,
    "one command of 30,000 words": "echo " + "x " * 30_000,
    "1,200 distinct commands": "; ".join(f"prog{i} --opt /tmp/p{i}" for i in range(1_200)),
    "1,200 distinct writes": "; ".join(f"echo x > /tmp/d{i}/o{i}" for i in range(1_200)),
    "a pipeline of 16,000": "a" + " | b" * 16_000,
    "10,000 paths to one chmod": "chmod 644 " + " ".join(f"f{i}" for i in range(10_000)),
    "8,000 paths in as many directories": "rm -f " + " ".join(f"/tmp/d{i}/f{i}" for i in range(6_000)),
}


def _rules(tmp_path: Path, text: str) -> set[str]:
    pol = Policy(resolve(None), str(tmp_path))
    return {f.rule for f in pol.check_command(text).findings}


@pytest.mark.parametrize("filler", FILLERS, ids=list(FILLERS))
def test_a_dangerous_command_after_padding_is_blocked(tmp_path: Path, filler: str) -> None:
    rules = _rules(tmp_path, FILLERS[filler] + "; " + DANGER)
    assert rules & {"too-large", "rm-broad"}, rules


@pytest.mark.parametrize("filler", FILLERS, ids=list(FILLERS))
def test_a_dangerous_command_before_padding_is_named(tmp_path: Path, filler: str) -> None:
    rules = _rules(tmp_path, DANGER + "; " + FILLERS[filler])
    assert {"rm-broad", "too-large"} <= rules, rules


@pytest.mark.parametrize("filler", FILLERS, ids=list(FILLERS))
def test_padding_alone_is_too_large_not_allowed(tmp_path: Path, filler: str) -> None:
    assert "too-large" in _rules(tmp_path, FILLERS[filler])
