"""The per-event command's relay goes only to the server socket of this user and environment: no
variable that places nothing else (an ``XDG_RUNTIME_DIR`` of the agent's choosing, a ``TMPDIR``)
can send events to a listener of an agent's making, and a socket that is not ours is not used."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from agent_hooks_core import runpaths

from ..bridges.payloads import event

#: what a listener of the agent's making would answer: an allow
ALLOW = (b"HTTP/1.0 200 OK\r\nX-Agent-Hooks-Exit-Code: 0\r\nX-Agent-Hooks-Stdout-Length: 3\r\n"
         b"Content-Length: 3\r\n\r\n{}\n")


class Listener:
    """A unix socket that answers every connection with :data:`ALLOW` and counts them."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path.parent, 0o700)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(8)
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.recv(1 << 16)
                conn.sendall(ALLOW)

    def close(self) -> None:
        self.sock.close()


def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("AGENT_HOOKS_HOME", "XDG_RUNTIME_DIR", "TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _sock_name() -> str:
    return f"serve-{runpaths.identity()}.sock"


def test_the_server_of_agent_hooks_home_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _clean_env(monkeypatch, tmp_path)
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / "ah"))
    path = tmp_path / "ah" / "run" / _sock_name()
    listener = Listener(path)
    try:
        assert runpaths.server_socket() == str(path)
        os.chmod(path.parent, 0o755)  # a run directory others can enter is not the server's
        assert runpaths.server_socket() is None
    finally:
        listener.close()


def test_a_regular_file_is_no_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _clean_env(monkeypatch, tmp_path)
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / "ah"))
    run = tmp_path / "ah" / "run"
    run.mkdir(parents=True, mode=0o700)
    (run / _sock_name()).write_text("")
    assert runpaths.server_socket() is None


def test_an_xdg_runtime_dir_of_the_agents_choosing_is_not_followed(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _clean_env(monkeypatch, tmp_path)
    xdg = tmp_path / "xdg"
    xdg.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(xdg))
    # where runtime_dir() (what `serve run` binds) would put it with this variable
    listener = Listener(runpaths.runtime_dir() / _sock_name())
    try:
        assert runpaths.server_socket() is None
    finally:
        listener.close()


def test_a_tmpdir_of_the_agents_choosing_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="ah-")  # short: the socket's path must fit AF_UNIX
    _clean_env(monkeypatch, tmp_path)
    monkeypatch.setattr(runpaths, "_own_dir", lambda p: False)  # no /run/user/<uid> (as in containers)
    monkeypatch.setenv("TMPDIR", tmp)
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    try:
        listener = Listener(runpaths.runtime_dir() / _sock_name())
        try:
            assert str(runpaths.runtime_dir()).startswith(tmp)
            assert runpaths.server_socket() is None
        finally:
            listener.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_nested_agents_listener_gets_no_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: the per-event command under an XDG_RUNTIME_DIR that holds a listener answering
    allow answers in-process (the hook's deny), and the listener is never contacted."""
    _clean_env(monkeypatch, tmp_path)
    xdg = tmp_path / "xdg"
    xdg.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(xdg))
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    listener = Listener(runpaths.runtime_dir() / _sock_name())
    hook = tmp_path / "deny.py"
    hook.write_text("from agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event):\n"
                    "    return {'block': True, 'reason': 'denied in-process'}\n")
    project = tmp_path / "project"
    project.mkdir()
    try:
        proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", "--event", "PreToolUse",
                               "--hook", str(hook)], input=json.dumps(event("PreToolUse", str(project))).encode(),
                              capture_output=True, cwd=project, env=dict(os.environ), timeout=120)
    finally:
        listener.close()
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert listener.connections == 0
