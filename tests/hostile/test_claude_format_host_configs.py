"""The agent cannot unwire Qwen Code, GitHub Copilot CLI or Factory Droid, nor make them load hooks
they would otherwise skip: every file that decides whether our hooks run there (the hook files
install writes, Copilot's trusted folders, Droid's settings.json fallback) is in the protected set,
and the guard denies a shell command that writes one, through each host's own PreToolUse."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from agent_hooks_core import controlplane
from agent_hooks_core.bridges import adapter

from ..bridges.hostkit_support import guard_runtime, payloads

#: host -> (the shell tool's name, files under HOME / the project that decide what runs)
HOSTS = {
    "qwen": ("run_shell_command", ["~/.qwen/settings.json", "{project}/.qwen/settings.json"]),
    "copilot": ("Bash", ["~/.copilot/hooks/agent-hooks.json", "~/.copilot/config.json",
                         "{project}/.github/hooks/agent-hooks.json"]),
    "droid": ("Execute", ["~/.factory/hooks.json", "~/.factory/settings.json", "{project}/.factory/hooks.json",
                          "{project}/.factory/settings.json"]),
}

CASES = [(host, target) for host, (_, targets) in HOSTS.items() for target in targets]


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    controlplane.clear_cache()
    yield home, project
    controlplane.clear_cache()


@pytest.mark.parametrize(("host", "target"), CASES)
def test_the_agent_cannot_rewrite_what_decides_our_hooks(world: tuple[Path, Path], host: str, target: str) -> None:
    home, project = world
    path = target.replace("~", str(home)).format(project=project)
    assert controlplane.covering(path, cwd=str(project)) is not None, path
    tool, _ = HOSTS[host]
    event = copy.deepcopy(payloads(host)["PreToolUse"])
    event["cwd"] = str(project)
    event["tool_name"] = tool
    event["tool_input"] = {"command": f"echo '{json.dumps({})}' > {path}"}
    answer = adapter(host).handle(guard_runtime(str(project)), event)
    assert answer.blocked, (path, answer)
    assert answer.body["hookSpecificOutput"]["permissionDecision"] == "deny"
