"""``agenthooks install|uninstall pi|omp`` and their doctor lines."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges import registry
from agent_hooks_core.bridges.pi import install as pi_install

HOSTS = [
    # host, user dir under HOME, project dir
    ("pi", ".pi/agent", ".pi"),
    ("omp", ".omp/agent", ".omp"),
]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    return home


@pytest.mark.parametrize(("host", "user_dir", "project_dir"), HOSTS)
def test_install_writes_the_extension_with_this_interpreter_and_is_idempotent(home, tmp_path, host, user_dir,
                                                                                project_dir):
    inst = registry.installer(host)
    out = io.StringIO()
    assert inst.install("user", out=out) == 0
    path = home / user_dir / "extensions" / "agent-hooks.ts"
    text = path.read_text()
    assert pi_install.baked_config(text) == {"python": os.path.abspath(sys.executable), "host": host}
    packaged = pi_install.packaged_extension().splitlines()
    changed = [line for line, shipped in zip(text.splitlines(), packaged, strict=True) if line != shipped]
    assert len(changed) == 1 and pi_install.MARKER in changed[0]  # only the BAKED line
    assert f"Wired agent-hooks into {inst.label} (user): {path}" in out.getvalue()
    stat = path.stat()
    out = io.StringIO()
    assert inst.install("user", out=out) == 0
    assert "already wired" in out.getvalue() and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert inst.status(tmp_path) == [f"ok: {inst.label} user extension ({path}): current, runs {sys.executable}"]
    # project scope: beside the project
    project = tmp_path / "proj"
    project.mkdir()
    assert inst.install("project", project, out=io.StringIO()) == 0
    assert (project / project_dir / "extensions" / "agent-hooks.ts").exists()


def test_agent_dir_follows_pi_coding_agent_dir(home, tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert pi_install.PI.install("user", out=io.StringIO()) == 0
    assert (tmp_path / "agent" / "extensions" / "agent-hooks.ts").exists()


def test_dry_run_writes_nothing_and_shows_the_file(home):
    out = io.StringIO()
    assert pi_install.PI.install("user", dry_run=True, out=out) == 0
    assert out.getvalue().startswith("--- /dev/null\n+++ ")
    assert "@agent-hooks-config" in out.getvalue()
    assert not (home / ".pi").exists()


def test_a_foreign_file_is_never_overwritten_or_removed(home):
    path = home / ".pi/agent/extensions/agent-hooks.ts"
    path.parent.mkdir(parents=True)
    path.write_text("export default function () {}\n")
    with pytest.raises(pi_install.InstallError, match="is not agent-hooks' extension; move it away first"):
        pi_install.PI.install("user", out=io.StringIO())
    with pytest.raises(pi_install.InstallError, match="left alone"):
        pi_install.PI.uninstall("user", out=io.StringIO())
    assert path.read_text() == "export default function () {}\n"
    assert pi_install.PI.status(None) == [f"warning: pi user extension ({path}) is not agent-hooks' extension"]


def test_uninstall_removes_only_ours_and_is_idempotent(home):
    pi_install.PI.install("user", out=io.StringIO())
    other = home / ".pi/agent/extensions/mine.ts"
    other.write_text("// the user's own\n")
    out = io.StringIO()
    assert pi_install.PI.uninstall("user", dry_run=True, out=out) == 0
    assert out.getvalue().startswith("--- ") and "+++ /dev/null" in out.getvalue() and (home / ".pi/agent/extensions/agent-hooks.ts").exists()
    assert pi_install.PI.uninstall("user", out=io.StringIO()) == 0
    assert not (home / ".pi/agent/extensions/agent-hooks.ts").exists() and other.exists()
    out = io.StringIO()
    assert pi_install.PI.uninstall("user", out=out) == 0
    assert "is not wired" in out.getvalue()


@pytest.mark.parametrize(("baked", "expected"), [
    ({"python": "/nonexistent/bin/python", "host": "pi"}, "problem: pi user extension ({path}) runs "
                                                          "/nonexistent/bin/python, which does not exist"),
    ({"python": "/bin/sh", "host": "pi"}, "warning: pi user extension ({path}) runs another environment's "
                                          "agent-hooks (/bin/sh)"),
    ("stale", "warning: pi user extension ({path}) is outdated"),
])
def test_doctor_lines(home, baked, expected):
    pi_install.PI.install("user", out=io.StringIO())
    path = home / ".pi/agent/extensions/agent-hooks.ts"
    text = path.read_text()
    if baked == "stale":
        path.write_text(text.replace("agent-hooks for pi and oh-my-pi", "an older agent-hooks"))
    else:
        path.write_text(pi_install.render("pi", baked["python"]))
    (line,) = pi_install.PI.status(None)
    assert line.startswith(expected.format(path=path))


def test_not_wired(home, monkeypatch):
    monkeypatch.setenv("PATH", str(home))  # no pi binary there
    assert pi_install.PI.status(None) == ["ok: pi not found and not wired (nothing to check)"]


def test_cli_install_and_uninstall(home, tmp_path):
    env = {**os.environ, "HOME": str(home)}
    env.pop("PI_CODING_AGENT_DIR", None)
    cmd = [sys.executable, "-m", "agent_hooks_core"]
    r = subprocess.run([*cmd, "install", "omp", "--project", "--dir", str(tmp_path)], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / ".omp/extensions/agent-hooks.ts").exists()
    r = subprocess.run([*cmd, "install", "pi", "--user", "--project"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert (r.returncode, r.stderr) == (2, "agenthooks: error: choose one of --user, --project\n")
    r = subprocess.run([*cmd, "uninstall", "omp", "--project", "--dir", str(tmp_path)], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 0 and not (tmp_path / ".omp/extensions/agent-hooks.ts").exists()
