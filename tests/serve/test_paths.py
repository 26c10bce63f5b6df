"""Where the server lives: the port from the environment, the settings or derived; private dirs."""

from __future__ import annotations

import os
import tempfile

from agent_hooks_core import runpaths
from agent_hooks_core.serve import paths
from agent_hooks_core.settings import load_settings


def test_port_from_env_then_settings_then_derived(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path))
    monkeypatch.delenv("AGENT_HOOKS_SERVE_PORT", raising=False)
    derived = paths.port()
    assert paths.BASE_PORT <= derived < paths.BASE_PORT + 500
    (tmp_path / "settings.toml").write_text("[serve]\nport = 48123\n")
    assert paths.port() == 48123
    assert not load_settings(str(tmp_path)).warnings  # a known key, not "unknown key 'serve'"
    monkeypatch.setenv("AGENT_HOOKS_SERVE_PORT", "0")
    assert paths.port() == 0


def test_a_long_home_gets_a_short_private_socket_directory(tmp_path, monkeypatch):
    home = tmp_path / ("x" * 120)
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(home))
    sock = paths.socket_path()
    assert len(str(sock)) <= paths.MAX_SOCKET_PATH
    assert os.stat(sock.parent).st_mode & 0o777 == 0o700
    assert paths.socket_path() == sock  # stable


def test_the_token_is_private_and_stable(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path))
    assert paths.token(create=False) is None
    first = paths.token()
    assert first and paths.token() == first and len(first) >= 40
    assert paths.token_path().stat().st_mode & 0o777 == 0o600


def _no_runtime_env(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENT_HOOKS_HOME", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user" / ".config"))
    monkeypatch.setattr(runpaths, "_own_dir", lambda p: False)  # no /run/user/<uid> either (as in containers)
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()


def test_without_a_runtime_dir_the_tmp_name_carries_a_per_user_secret(tmp_path, monkeypatch):
    _no_runtime_env(tmp_path, monkeypatch)
    sock = paths.socket_path()
    assert sock.parent.parent == tmp_path / "tmp"
    assert os.stat(sock.parent).st_mode & 0o777 == 0o700
    key = next((tmp_path / "user").rglob("run-key"))
    assert key.stat().st_mode & 0o777 == 0o600
    assert paths.socket_path() == sock  # stable while the key is
    key.write_text("another-secret\n")
    assert paths.socket_path().parent != sock.parent  # the name follows the secret: not guessable


def test_a_run_dir_that_is_a_symlink_or_not_ours_is_refused_in_one_line(tmp_path, monkeypatch):
    import pytest

    _no_runtime_env(tmp_path, monkeypatch)
    target = paths.runtime_dir()
    target.rmdir()
    (tmp_path / "elsewhere").mkdir()
    target.symlink_to(tmp_path / "elsewhere")  # a pre-created trap
    with pytest.raises(paths.RunDirError, match="not a directory"):
        paths.runtime_dir()


def test_no_runtime_dir_warning_from_platformdirs_ever(tmp_path):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "AGENT_HOOKS_HOME")}
    env.update({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"),
                "XDG_CACHE_HOME": str(tmp_path / ".cache"), "XDG_STATE_HOME": str(tmp_path / ".state"),
                "PYTHONWARNINGS": "always"})
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "status"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout.startswith("not running")
    assert "Warning" not in proc.stderr, proc.stderr
