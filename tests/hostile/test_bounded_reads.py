"""Settings, organisation policy, trust and hook files are read only as regular files under a cap.

A project whose `.agent-hooks/settings.toml` is a symlink to /dev/zero, a FIFO, a directory or a
2 GB file gets one error line (exit 2 on the CLI) and a deny from the bridges, at once: nothing
is read past the cap and nothing blocks. The subprocess timeouts are a safety net, not the
assertion: before `fileio.read_bounded` the /dev/zero and FIFO cases never finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from agent_hooks_core import trust
from agent_hooks_core.fileio import HOOK_FILE_MAX, SETTINGS_MAX, UnreadableFile, read_bounded
from agent_hooks_core.settings import load_settings

from .loading_support import RM_ROOT, agenthooks, one_line, write


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _huge(path: Path) -> None:
    with open(path, "wb") as fh:  # sparse: 2 GB that cost no disk
        fh.truncate(2 << 30)


MAKERS: dict[str, tuple[Callable[[Path], None], str]] = {
    "symlink to /dev/zero": (_dev_zero, "a character device, not a regular file"),
    "FIFO": (_fifo, "a FIFO, not a regular file"),
    "directory": (_directory, "a directory, not a regular file"),
    "2 GB file": (_huge, "over the 1.0 MiB limit"),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".agent-hooks").mkdir(parents=True)
    return root


@pytest.mark.parametrize("kind", list(MAKERS))
def test_project_settings_that_are_not_a_small_regular_file(_isolated_home: Path, project: Path, kind: str) -> None:
    make, words = MAKERS[kind]
    make(project / ".agent-hooks" / "settings.toml")
    line = one_line(agenthooks("fire", "pre_tool", cwd=project, home=_isolated_home, data=RM_ROOT, timeout=30))
    assert "settings.toml" in line and words in line, line
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool_name": "Bash",
             "tool_input": {"command": "ls"}}
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code"], input=json.dumps(event),
                          capture_output=True, text=True, cwd=project, timeout=30,
                          env={**os.environ, "AGENT_HOOKS_HOME": str(_isolated_home)})
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and words in out["permissionDecisionReason"], proc


@pytest.mark.parametrize("kind", list(MAKERS))
def test_user_settings_too(_isolated_home: Path, tmp_path: Path, kind: str) -> None:
    make, words = MAKERS[kind]
    make(_isolated_home / "settings.toml")
    line = one_line(agenthooks("plugins", "list", cwd=tmp_path, home=_isolated_home, timeout=30))
    assert words in line, line


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "FIFO", "2 GB file"])
def test_an_organisation_policy_file(_isolated_home: Path, tmp_path: Path, kind: str) -> None:
    make, words = MAKERS[kind]
    org = tmp_path / "org.toml"
    make(org)
    write(_isolated_home / "settings.toml", f'organisation = {{ path = "{org}" }}\n')
    run = agenthooks("fire", "pre_tool", cwd=tmp_path, home=_isolated_home, data=RM_ROOT, timeout=30)
    assert run.json["block"] is True and words in run.json["reason"], run


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "FIFO", "2 GB file"])
def test_a_trust_store_that_is_not_a_file_trusts_nothing(_isolated_home: Path, project: Path, kind: str) -> None:
    write(project / ".agent-hooks" / "hooks" / "h.py", "from agent_hooks_core import hookimpl\n")
    trust.trust(load_settings(project))
    assert trust.state(load_settings(project)).trusted
    (_isolated_home / "trust.json").unlink()
    MAKERS[kind][0](_isolated_home / "trust.json")
    assert not trust.state(load_settings(project)).trusted


def test_a_hook_package_file_over_the_cap_does_not_load(_isolated_home: Path, tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    write(pkg / "__init__.py", "from agent_hooks_core import hookimpl\n")
    with open(pkg / "blob.py", "wb") as fh:
        fh.truncate(HOOK_FILE_MAX + 1)
    run = agenthooks("--hook", str(pkg), "plugins", "list", "--json", cwd=tmp_path, home=_isolated_home, timeout=30)
    row = {p["name"]: p for p in json.loads(run.out)}["pkg"]
    assert row["status"] == "failed" and "over the 4.0 MiB limit" in row["reason"], row


def test_read_bounded_reads_a_regular_file_and_nothing_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bounded(path, 10) == b"x" * 10
    with pytest.raises(UnreadableFile, match="11 bytes, over the 10 bytes limit"):
        path.write_bytes(b"x" * 11)
        read_bounded(path, 10)
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing", SETTINGS_MAX)


def test_the_warm_server_denies_and_keeps_serving(_isolated_home: Path, project: Path) -> None:
    from tests.serve.conftest import start_server

    _dev_zero(project / ".agent-hooks" / "settings.toml")
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool_name": "Bash",
             "tool_input": {"command": "ls"}}
    server = start_server(_isolated_home)
    try:
        status, body = server.tcp("POST", "/hosts/claude-code", json.dumps(event).encode(), timeout=30)
        out = json.loads(body)["hookSpecificOutput"]
        assert status == 200 and out["permissionDecision"] == "deny", body
        assert "a character device" in out["permissionDecisionReason"]
        assert server.status()["pid"] == server.proc.pid  # still serving
    finally:
        server.stop()
