"""A real ``agenthooks serve run`` per test, on a private AGENT_HOOKS_HOME, and clients for it."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

READY_TIMEOUT = 60


class Server:
    def __init__(self, proc: subprocess.Popen[bytes], home: Path, env: dict[str, str]) -> None:
        self.proc = proc
        self.home = home
        self.env = env
        self.lines: list[str] = []
        self.ready = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace")
            self.lines.append(line)
            if line.startswith("agenthooks serve: pid"):
                self.ready.set()
        self.ready.set()  # it exited: the waiter sees no socket and reports the output

    def wait_ready(self) -> None:
        assert self.ready.wait(READY_TIMEOUT), "the server did not come up"
        assert self.proc.poll() is None, "".join(self.lines)
        self.status_data = self.status()
        self.sock = self.status_data["socket"]
        self.http = self.status_data["http"]
        self.token = (self.home / "serve-token").read_text().strip()

    # -- clients ----------------------------------------------------------------------------

    def unix(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
             timeout: float = 60) -> tuple[int, dict[str, str], bytes]:
        from agent_hooks_core.serve.server import request

        return request(method, path, body, headers, timeout=timeout, sock=self.home_sock())

    def home_sock(self) -> str:
        return getattr(self, "sock", None) or self._sock_path()

    def _sock_path(self) -> str:
        env = {**os.environ, **self.env}
        code = "from agent_hooks_core.serve import paths; print(paths.socket_path())"
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    def status(self) -> dict[str, Any]:
        code, _, body = self.unix("GET", "/status", timeout=10)
        assert code == 200
        return dict(json.loads(body))

    def tcp(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
            token: bool = True, timeout: float = 60) -> tuple[int, bytes]:
        host, port = self.http.rsplit("/", 1)[1].rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        try:
            hdrs = {"X-Agent-Hooks-Token": self.token} if token else {}
            hdrs.update(headers or {})
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def run_env(self) -> dict[str, str]:
        return {**os.environ, **self.env}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_server(home: Path, extra_env: dict[str, str] | None = None, args: tuple[str, ...] = (),
                 argv: list[str] | None = None) -> Server:
    env = {"AGENT_HOOKS_HOME": str(home), "AGENT_HOOKS_SERVE_PORT": "0",
           "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1", **(extra_env or {})}
    full = {**os.environ, **env}
    proc = subprocess.Popen(argv or [sys.executable, "-m", "agent_hooks_core", "serve", "run", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=full, cwd=str(home))
    server = Server(proc, home, env)
    server.wait_ready()
    return server


@pytest.fixture
def serve_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def server(serve_home: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    extra = getattr(request, "param", None) or {}
    srv = start_server(serve_home, extra)
    try:
        yield srv
    finally:
        srv.stop()
