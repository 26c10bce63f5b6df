"""Every host's installer, through ``agenthooks install|uninstall``, behaves the same way: a dry run
shows a diff and writes nothing; install then uninstall leaves the user's files as they were, byte
for byte (and no backup behind); installing twice changes nothing the second time.

Driven by the first-party host records, so a new host is covered without an edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from agent_hooks_core.bridges import registry
from typer.testing import CliRunner

#: variables that move a host's files away from HOME
MOVERS = ("XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "KIMI_SHARE_DIR", "VIBE_HOME",
          "PI_CODING_AGENT_DIR", "CLAUDE_PROJECT_DIR")

#: a file of the user's own where install writes, by file type (JSON in the layout install writes:
#: its indent is kept, other layout is not)
USER_TEXT = {
    ".json": json.dumps({"theme": "dark", "note": "the user's own, indented by four"}, indent=4) + "\n",
    ".toml": '# the user\'s own\ntheme = "dark"\n\n[tools]\nshell = "bash"  # keep me\n',
}
#: hosts whose file holds nothing but events: the user's own hook
USER_HOOKS = {
    "openhands": json.dumps({"SessionStart": [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}]},
                            indent=4) + "\n",
}

CASES = [(h.name, scope) for h in registry.first_party() for scope in h.config.scopes]


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in MOVERS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return home, project


def tree(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file()}


def run(app: typer.Typer, *args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def seed(host: str, scope: str, project: Path) -> None:
    """The user's own files where ``install --SCOPE`` writes (none where the file is wholly ours)."""
    if registry.get(host).config.format == "extension":
        return
    for target in registry.installer(host).config_targets(str(project)):
        if (scope == "project") == target.is_relative_to(project) or target.suffix == ".toml":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(USER_HOOKS.get(host) or USER_TEXT[target.suffix])


@pytest.mark.parametrize(("host", "scope"), CASES)
@pytest.mark.parametrize("users_file", [False, True], ids=["new", "users-file"])
def test_dry_run_diffs_and_install_uninstall_restores(cli, places, host, scope, users_file):
    home, project = places
    if users_file:
        seed(host, scope, project)
    before = tree(home, project)

    out = run(cli, "install", host, f"--{scope}", "--dry-run")
    assert "+++ " in out and "\n+" in out, out  # a unified diff of what would be written
    assert tree(home, project) == before  # and nothing was

    first = run(cli, "install", host, f"--{scope}")
    installed = tree(home, project)
    assert installed != before, first
    backups = [p for p in installed if p.endswith(".agenthooks.bak")]
    assert all(installed[b] == before[b.removesuffix(".agenthooks.bak")] for b in backups)
    assert registry.installer(host).wired(str(project)) == [scope]

    run(cli, "install", host, f"--{scope}")
    assert tree(home, project) == installed  # twice is once

    out = run(cli, "uninstall", host, f"--{scope}", "--dry-run")
    assert "--- " in out and tree(home, project) == installed

    run(cli, "uninstall", host, f"--{scope}")
    assert tree(home, project) == before  # byte for byte, backups gone
    assert registry.installer(host).wired(str(project)) == []
