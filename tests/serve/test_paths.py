"""Where the server lives: the port from the environment, the settings or derived; private dirs."""

from __future__ import annotations

import os

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
