"""Bounded input on the warm server's HTTP listener: another local process cannot pin its memory,
hold its connections, or make the owner's gated calls wait.

Each class: an unauthorised request's body is never read (the refusal comes before it is sent);
a request that trickles in is cut at the read deadline; connections past the per-peer cap are
closed at once and the owner is served again when they go; running out of descriptors sheds
connections instead of spinning.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from ..bridges.payloads import event
from ..serve.conftest import start_server

READ_TIMEOUT = "1"


@pytest.fixture
def srv(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    server = start_server(home, {"AGENT_HOOKS_SERVE_READ_TIMEOUT": READ_TIMEOUT, "AGENT_HOOKS_SERVE_WORKERS": "1"})
    try:
        yield server
    finally:
        server.stop()


def _connect(srv) -> socket.socket:
    host, port = srv.http.rsplit("/", 1)[1].rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=30)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _allowed(srv, tmp_path: Path) -> bool:
    raw = json.dumps(event("PreToolUse", str(tmp_path), tool_input={"command": "ls"})).encode()
    status, body = srv.tcp("POST", "/hosts/claude-code", raw)
    return status == 200 and json.loads(body) == {}


def test_an_unauthorised_body_is_never_read(srv):
    with _connect(srv) as sock:
        # a gigabyte announced, not one byte of it sent: the refusal must not wait for it
        sock.sendall(b"POST /hosts/claude-code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\n\r\n")
        reply = _read_all(sock)  # and the connection is closed after it
    assert reply.startswith(b"HTTP/1.1 403") and b"X-Agent-Hooks-Token" in reply


@pytest.mark.parametrize("partial", [b"", b"POST /hosts/claude-code HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                                     b"POST /hosts/claude-code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n"
                                     b"X-Agent-Hooks-Token: TOKEN\r\n\r\n{"])
def test_a_request_that_trickles_in_is_cut_at_the_read_deadline(srv, tmp_path, partial):
    with _connect(srv) as sock:
        sock.sendall(partial.replace(b"TOKEN", srv.token.encode()))  # authorised, its body never complete
        assert _read_all(sock) == b""  # cut by the server at the deadline: EOF, no answer
    assert _allowed(srv, tmp_path)


def test_connections_past_the_per_peer_cap_are_closed_and_the_owner_is_served_again(srv, tmp_path):
    from agent_hooks_core.serve.peers import MAX_PER_PEER

    held = [_connect(srv) for _ in range(MAX_PER_PEER)]
    try:
        for s in held:
            s.sendall(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # incomplete: each holds a slot
        with _connect(srv) as extra:
            extra.sendall(b"GET /status HTTP/1.1\r\n\r\n")
            assert _read_all(extra) == b""  # closed before anything was read
    finally:
        for s in held:
            s.close()
    assert _allowed(srv, tmp_path)


def test_running_out_of_descriptors_sheds_connections_and_recovers(tmp_path):
    import sys

    home = tmp_path / "home"
    home.mkdir()
    code = ("import resource, sys; from agent_hooks_core.__main__ import main; "
            "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE); "
            "resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard)); sys.exit(main(['serve', 'run']))")
    srv = start_server(home, {"AGENT_HOOKS_SERVE_WORKERS": "1", "AGENT_HOOKS_SERVE_READ_TIMEOUT": "30"},
                       argv=[sys.executable, "-c", code])
    try:
        held = []
        for _ in range(80):  # more than the server has descriptors for
            try:
                s = _connect(srv)
                s.sendall(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                held.append(s)
            except OSError:
                break
        before, start = _cpu_seconds(srv.proc.pid), time.monotonic()
        shed = sum(1 for s in held if _closed(s))
        spent, wall = _cpu_seconds(srv.proc.pid) - before, time.monotonic() - start
        for s in held:
            s.close()
        assert shed > 0  # some were shed (closed) rather than left pending
        assert spent < 0.3 * wall  # while they waited, the server did not spin on the listener
        until = time.monotonic() + 30
        while True:  # the server closes its ends as it notices ours closed: then it serves again
            try:
                if _allowed(srv, tmp_path):
                    break
            except OSError:
                pass
            assert time.monotonic() < until, "the server did not recover"
    finally:
        srv.stop()


def _closed(sock: socket.socket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def _cpu_seconds(pid: int) -> float:
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
