"""The server's life among other processes: a taken port is an error naming who holds it (``serve
run``, ``serve start`` and ``doctor`` agree); a deleted socket file comes back; a server killed with
-9 leaves nothing that stops the next one; ``status``, ``start`` and ``doctor`` agree throughout."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from .conftest import start_server


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent_hooks_core", *args], env=env, capture_output=True, text=True,
                          timeout=60)


def _env(home: Path, port: int | str = 0) -> dict[str, str]:
    return {**os.environ, "AGENT_HOOKS_HOME": str(home), "AGENT_HOOKS_SERVE_PORT": str(port),
            "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_a_taken_port_fails_loudly_naming_who_holds_it_and_doctor_agrees(serve_home):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    env = _env(serve_home, port)
    try:
        for args in (("serve", "run"), ("serve", "start")):
            proc = _cli(env, *args)
            assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
            line = proc.stderr.strip()
            assert "\n" not in line and line.startswith("agenthooks: error: HTTP port")
            assert f"127.0.0.1:{port} is taken by pid {os.getpid()}" in line, line
        doctor = json.loads(_cli(env, "doctor", "--json").stdout)
        serve = [f for f in doctor["findings"] if f["section"] == "serve"]
        assert any(f["level"] == "error" and f"is taken by pid {os.getpid()}" in f["message"] for f in serve), serve
        assert _cli(env, "serve", "status").returncode == 1  # nothing claims to run
        assert _cli(env, "serve", "start", "--no-http").returncode == 0  # the way out it names works
    finally:
        holder.close()
        _cli(env, "serve", "stop")


def test_a_deleted_socket_file_comes_back_and_everyone_agrees(serve_home):
    srv = start_server(serve_home)
    try:
        os.unlink(srv.sock)
        until = time.monotonic() + 10
        while not os.path.exists(srv.sock):  # the server makes it again (HEAL_SECONDS)
            assert time.monotonic() < until and srv.proc.poll() is None
            time.sleep(0.05)  # polling for the file: bounded by the deadline above
        env = srv.run_env()
        status = _cli(env, "serve", "status", "--json")
        assert status.returncode == 0 and json.loads(status.stdout)["pid"] == srv.proc.pid
        start = _cli(env, "serve", "start")
        assert start.returncode == 0 and start.stdout.startswith(f"already running: pid {srv.proc.pid}")
        doctor = json.loads(_cli(env, "doctor", "--json").stdout)
        assert any(f["section"] == "serve" and f["message"].startswith(f"running: pid {srv.proc.pid}")
                   for f in doctor["findings"])
    finally:
        srv.stop()


def test_after_kill_9_the_stale_socket_and_lock_do_not_stop_the_next_server(serve_home):
    srv = start_server(serve_home)
    sock = srv.sock
    os.kill(srv.proc.pid, signal.SIGKILL)
    srv.proc.wait(timeout=30)
    assert os.path.exists(sock)  # left behind
    env = srv.run_env()
    assert _cli(env, "serve", "status").returncode == 1
    doctor = json.loads(_cli(env, "doctor", "--json").stdout)
    assert any(f["section"] == "serve" and f["message"].startswith("not running") for f in doctor["findings"])
    start = _cli(env, "serve", "start")
    try:
        assert start.returncode == 0 and start.stdout.startswith("started: pid"), start.stderr
        assert json.loads(_cli(env, "serve", "status", "--json").stdout)["pid"] != srv.proc.pid
    finally:
        _cli(env, "serve", "stop")
