"""`agenthooks uninstall HOST` leaves what the user had, and nothing of ours: no configuration file
that holds nothing, no `*.agenthooks.bak` (the real command line, a fresh HOME per case)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_hooks_core.bridges import registry

from .conftest import agenthooks

THEIRS = {  # a file the user had before installing, relative to HOME (or the project for --project)
    "claude-code": (".claude/settings.json", '{\n  "theme": "dark"\n}\n'),
    "gemini": (".gemini/settings.json", '{\n  "theme": "Dracula"\n}\n'),
    "codex": (".codex/config.toml", 'model = "o4-mini"\n'),
}

CASES = [(host, scope, mine) for host in registry.names() for scope in ("user", "project")
         for mine in (False, True) if not (mine and host not in THEIRS)]


def files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("host", "scope", "theirs"), CASES,
                         ids=[f"{h}-{s}" + ("-with-their-file" if t else "") for h, s, t in CASES])
def test_uninstall_leaves_nothing_of_ours(env: dict[str, str], tmp_path: Path, host: str, scope: str,
                                          theirs: bool) -> None:
    home, project = Path(env["HOME"]), tmp_path / "project"
    project.mkdir()
    root = home if scope == "user" else project
    if theirs:
        rel, text = THEIRS[host]
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    before = {**files(home), **{f"project/{k}": v for k, v in files(project).items()}}
    r = agenthooks(env, "install", host, f"--{scope}", cwd=project)
    if r.code == 2 and scope == "project":  # a host without a project scope says so
        assert "--project" in r.err or "No such option" in r.err, r.err
        return
    assert r.code == 0, r.err
    assert {**files(home), **{f"project/{k}": v for k, v in files(project).items()}} != before
    r = agenthooks(env, "uninstall", host, f"--{scope}", cwd=project)
    assert r.code == 0, r.err
    after = {**files(home), **{f"project/{k}": v for k, v in files(project).items()}}
    assert not [name for name in after if name.endswith(".agenthooks.bak")], after
    if theirs:  # the user's file is theirs again, in content
        rel, text = THEIRS[host]
        got = after[rel if scope == "user" else f"project/{rel}"]
        assert (json.loads(got) == json.loads(text)) if rel.endswith(".json") else got.strip() == text.strip()
    assert set(after) == set(before), f"left behind: {set(after) - set(before)}"
