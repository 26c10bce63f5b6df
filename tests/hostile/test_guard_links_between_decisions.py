"""A symlink made after one decision must be seen by the next: a serving process keeps its
compiled policy for many decisions, so nothing it learnt about the file system may outlive one.
Each row: a path is judged while harmless, then becomes a link into a protected place, then the
same command (or tool call) must be blocked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from agent_hooks_guard.policy import Check, Policy, resolve

#: (what the link points into, relative to HOME; the check; the rule that must fire)
ROWS: list[tuple[str, Callable[[Policy], Check], str]] = [
    (".ssh", lambda pol: pol.check_command("cat x/notes"), "protected-read"),
    (".ssh", lambda pol: pol.check_tool("read", {"path": "x/notes"}), "protected-read"),
    (".ssh", lambda pol: pol.check_command("echo k > x/authorized_keys"), "protected-write"),
    (".config/agent-hooks", lambda pol: pol.check_command("echo '[x]' > x/settings.toml"), "control-plane"),
]


@pytest.mark.parametrize(("into", "check", "rule"), ROWS, ids=[f"{r[0]}-{r[2]}-{i}" for i, r in enumerate(ROWS)])
def test_a_link_made_after_a_decision_is_seen_by_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          into: str, check: Callable[[Policy], Check], rule: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / into).mkdir(parents=True)
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AGENT_HOOKS_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    pol = Policy(resolve(None), str(project))
    (project / "x").mkdir()
    before = check(pol)
    assert rule not in {f.rule for f in before.findings}
    (project / "x").rmdir()
    (project / "x").symlink_to(home / into)
    after = check(pol)
    assert rule in {f.rule for f in after.findings}, after.reason
