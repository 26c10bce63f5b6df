"""A directory on the way to a host's hook configuration (``.claude``, ``.codex``, ``~/.claude``)
cannot be replaced: a link or a moved directory put in its place, a copy or link landing in it
under the protected name, or the removal of a link standing there changes what the host loads, and
is denied whatever is at that name when the guard decides (the line, or something already
running, can remove or make it before the command runs).

Removing it with ``rmdir`` (only ever an empty directory: nothing below it changes) or making it
is no such change and passes; what a later command puts there is judged on its own, in the same
line too. Each case is decided with the name absent, an empty directory, and a link to a
directory holding the configuration. A real directory that holds the configuration cannot be
removed without removing that first, so a link or a move onto it lands inside it and is judged
by the name it lands as.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import agent_hooks_guard
import pytest
from agent_hooks_core import Runtime, controlplane

#: {h} is $HOME, quoted for the shell
REPLACES = [
    "ln -s /tmp/evil .claude",
    "ln -sfn /tmp/evil .codex",
    "ln -s /tmp/evil/.claude",
    "ln -s /tmp/evil {h}/.claude",
    "rmdir .claude && ln -s /tmp/evil .claude",
    "rmdir .claude; mv /tmp/evil .claude",
    "mv /tmp/evil .claude",
    "mv -T /tmp/evil .codex",
    "mv /tmp/.claude .",
    "cp /tmp/x/settings.json .claude",
    "cp -t .claude /tmp/x/settings.json",
    "mv -t .codex /tmp/x/hooks.json",
    "rsync /tmp/x/settings.json .claude/",
    "install -m 644 /tmp/x/hooks.json .codex",
    "unlink .claude",
    "rm -f .codex",
    "python3 -c \"import os; os.symlink('/tmp/evil', '.claude')\"",
    "python3 -c \"from pathlib import Path; Path('.codex').symlink_to('/tmp/evil')\"",
    "python3 -c \"from pathlib import Path; p = Path('.claude'); p.symlink_to('/tmp/evil')\"",
    "python3 -c \"import os; os.link('/tmp/x/settings.json', '.claude/settings.json')\"",
    "python3 -c \"from pathlib import Path; p = Path('.claude/settings.json'); p.write_text('{{}}')\"",
    "node -e \"require('fs').symlinkSync('/tmp/evil', '.claude')\"",
    "node -e \"require('fs').renameSync('/tmp/x/settings.json', '.claude/settings.json')\"",
    "ruby -e \"FileUtils.mv('/tmp/evil', '.codex')\"",
    "perl -e \"rename '/tmp/evil', '.claude'\"",
    "php -r \"copy('/tmp/x/hooks.json', '.codex/hooks.json');\"",
]
HARMLESS = [
    "rmdir .claude",
    "rmdir .claude .codex",
    "rmdir -- .codex",
    "rmdir {h}/.claude",
    "rmdir sub/.codex",
    "python3 -c \"import os; os.rmdir('.claude')\"",
    "mkdir -p .claude/commands",
    "mkdir -p .claude/agents && cp reviewer.md .claude/agents/",
    "ln -s ../CLAUDE.md .claude/",
    "cp notes.md .claude/",
    "ln -s /tmp/foo .",
    "mv build/out.txt .",
    "rm -f build/a.o build/b.o",
    "node -e \"require('fs').renameSync('a.txt', 'b.txt')\"",
    "node -e \"console.log('x'.replace('x', '.claude'))\"",
]
STATES = ["absent", "empty", "link"]
#: with the configuration in a real directory: what lands inside it, and whether that is allowed
INTO_A_FULL_ONE = [
    ("ln -s /tmp/evil .claude", "allowed"),
    ("mv /tmp/evil .codex", "allowed"),
    ("mv notes.md .claude/", "allowed"),
    ("rmdir .claude && ln -s /tmp/evil .claude", "allowed"),
    ("ln -s /tmp/x/settings.json .claude", "blocked"),
    ("mv /tmp/x/hooks.json .codex", "blocked"),
    ("unlink .claude", "blocked"),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _isolated_home: Path) -> Path:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    for d in (home, project / ".git", project / "sub" / ".codex", tmp_path / "elsewhere"):
        d.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    controlplane.clear_cache()
    yield project
    controlplane.clear_cache()


def _arrange(project: Path, state: str) -> None:
    for name in (".claude", ".codex"):
        if state == "empty":
            (project / name).mkdir()
        elif state in ("link", "full"):
            real = project.parent / "elsewhere" / name if state == "link" else project / name
            real.mkdir()
            (real / ("settings.json" if name == ".claude" else "hooks.json")).write_text("{}")
            if state == "link":
                (project / name).symlink_to(real)


def _decide(project: Path, template: str) -> tuple[str, str | None]:
    command = template.format(h=shlex.quote(str(Path.home())))
    out = Runtime(plugins=[("guard", agent_hooks_guard)], cwd=str(project)).fire(
        "pre_tool", {"tool_name": "bash", "arguments": {"command": command}})
    return out.decision, out.reason


def test_the_directories_lead_to_protected_configuration(project: Path) -> None:
    for path in (".claude/settings.json", ".codex/hooks.json", f"{Path.home()}/.claude/settings.json"):
        assert controlplane.covering(path, cwd=str(project)) is not None, path


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("template", REPLACES)
def test_replacing_what_leads_to_a_host_configuration_is_denied(project: Path, template: str, state: str) -> None:
    _arrange(project, state)
    decision, reason = _decide(project, template)
    assert decision == "blocked", (template, state)
    assert "[guard:control-plane]" in (reason or ""), (template, state, reason)


@pytest.mark.parametrize("state", ["absent", "empty"])
@pytest.mark.parametrize("template", HARMLESS)
def test_removing_an_empty_one_or_working_inside_it_passes(project: Path, template: str, state: str) -> None:
    _arrange(project, state)
    decision, reason = _decide(project, template)
    assert decision == "allowed", (template, state, reason)


@pytest.mark.parametrize(("template", "decision"), INTO_A_FULL_ONE)
def test_onto_a_directory_holding_the_configuration_what_lands_inside_is_judged(
        project: Path, template: str, decision: str) -> None:
    _arrange(project, "full")
    got, reason = _decide(project, template)
    assert got == decision, (template, reason)
