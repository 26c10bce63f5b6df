"""The answering loop (core/serve/loop.py) with real servers and real worker processes: a keep-alive
connection is not tied to a worker, a worker that overruns or dies mid-request costs its request a
deny written by the answering process, a slow client never holds a worker, and pipelined requests
are all answered."""

from __future__ import annotations

import json
import os
import signal
import socket
import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ..bridges.payloads import event
from .conftest import Server, start_server

#: a hook file: "pid" denies naming its worker; "block:<dir>" tells the test its worker's pid through
#: the fifo <dir>/ready, then waits until the test writes to <dir>/go (forever if it never does)
HOOK = textwrap.dedent("""\
    import os
    from agent_hooks_core import hookimpl

    @hookimpl
    def pre_tool(event):
        cmd = event.arguments.get("command")
        if cmd.startswith("block:"):
            where = cmd.split(":", 1)[1]
            with open(os.path.join(where, "ready"), "w") as fh:
                fh.write(str(os.getpid()))
            with open(os.path.join(where, "go")) as fh:
                fh.read()
        if cmd == "pid" or cmd.startswith("block:"):
            return {"block": True, "reason": f"pid {os.getpid()}"}
""")


@pytest.fixture
def hook(tmp_path: Path) -> Path:
    path = tmp_path / "pids.py"
    path.write_text(HOOK)
    return path


@pytest.fixture
def fifos(tmp_path: Path) -> Path:
    where = tmp_path / "fifos"
    where.mkdir()
    os.mkfifo(where / "ready")
    os.mkfifo(where / "go")
    return where


def _start(home: Path, **env: str) -> Iterator[Server]:
    srv = start_server(home, env)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def two(serve_home: Path) -> Iterator[Server]:
    yield from _start(serve_home, AGENT_HOOKS_SERVE_WORKERS="2", AGENT_HOOKS_ANSWER_DEADLINE="30")


class Client:
    """One keep-alive connection on a bare socket: requests are written whole or in parts, and
    answers read by their Content-Length."""

    def __init__(self, srv: Server, hook: Path, cwd: Path) -> None:
        host, port = srv.http.rsplit("/", 1)[1].rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        self.srv, self.hook, self.cwd = srv, hook, cwd
        self.buf = b""

    def request(self, command: str) -> bytes:
        body = json.dumps(event("PreToolUse", str(self.cwd), tool_input={"command": command})).encode()
        return (f"POST /hosts/claude-code?arg=--hook&arg={self.hook} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"X-Agent-Hooks-Token: {self.srv.token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def answer(self) -> tuple[int, str | None, str]:
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self.buf += chunk
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(int(v) for k, _, v in (x.partition(":") for x in lines[1:]) if k.lower() == "content-length")
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            rest += chunk
        body, self.buf = rest[:length], rest[length:]
        out = json.loads(body).get("hookSpecificOutput", {})
        return int(lines[0].split()[1]), out.get("permissionDecision"), out.get("permissionDecisionReason", "")

    def ask(self, command: str) -> tuple[int, str | None, str]:
        self.send(self.request(command))
        return self.answer()

    def close(self) -> None:
        self.sock.close()


def _pid(answer: tuple[int, str | None, str]) -> int:
    status, decision, reason = answer
    assert status == 200 and decision == "deny", answer
    return int(reason.rsplit("pid ", 1)[1].split()[0])


def _blocked_pid(fifos: Path) -> int:
    with open(fifos / "ready") as fh:  # opens when the hook does: no timing involved
        return int(fh.read())


def test_requests_on_one_keep_alive_connection_go_to_whichever_worker_is_idle(two, hook, fifos, tmp_path):
    one, other = Client(two, hook, tmp_path), Client(two, hook, tmp_path)
    try:
        first = _pid(one.ask("pid"))
        other.send(other.request(f"block:{fifos}"))
        busy = _blocked_pid(fifos)
        assert busy == first  # the most recently idle worker takes the next request
        second = _pid(one.ask("pid"))  # the same connection, while that worker is busy
        assert second != first and {first, second} == set(two.status()["workers"])
        with open(fifos / "go", "w") as fh:
            fh.write("go")
        assert _pid(other.answer()) == busy
        st = two.status()
        assert st["events"] == 3 and st["workers_replaced"] == 0  # every request counted
    finally:
        one.close()
        other.close()


def test_a_worker_killed_mid_request_gets_the_request_a_deny_and_is_replaced(two, hook, fifos, tmp_path):
    client = Client(two, hook, tmp_path)
    try:
        client.send(client.request(f"block:{fifos}"))
        victim = _blocked_pid(fifos)
        os.kill(victim, signal.SIGKILL)
        status, decision, reason = client.answer()
        assert (status, decision) == (200, "deny")
        assert "killed by signal 9" in reason or "closed its answer pipe" in reason
        assert _pid(client.ask("pid")) != victim  # the same connection goes on
        st = two.status()
        assert victim not in st["workers"] and len(st["workers"]) == 2 and st["workers_replaced"] >= 1
    finally:
        client.close()


def test_a_worker_past_the_deadline_is_killed_and_the_answering_process_writes_the_deny(
        serve_home, hook, fifos, tmp_path):
    for srv in _start(serve_home, AGENT_HOOKS_SERVE_WORKERS="2", AGENT_HOOKS_ANSWER_DEADLINE="2"):
        client = Client(srv, hook, tmp_path)
        try:
            client.send(client.request(f"block:{fifos}"))
            stuck = _blocked_pid(fifos)  # nobody ever opens "go": the hook waits forever
            status, decision, reason = client.answer()
            assert (status, decision) == (200, "deny") and "no answer within 2 s" in reason
            assert _pid(client.ask("pid")) != stuck
            st = srv.status()
            assert stuck not in st["workers"] and st["workers_replaced"] >= 1
        finally:
            client.close()


def test_a_slow_client_holds_no_worker(serve_home, hook, tmp_path):
    for srv in _start(serve_home, AGENT_HOOKS_SERVE_WORKERS="1"):
        slow, quick = Client(srv, hook, tmp_path), Client(srv, hook, tmp_path)
        try:
            whole = slow.request("pid")
            cut = whole.index(b"\r\n\r\n") + 10
            slow.send(whole[:cut])  # the head and a few bytes of the body; the rest comes later
            worker = _pid(quick.ask("pid"))  # the only worker answers someone else meanwhile
            slow.send(whole[cut:])
            assert _pid(slow.answer()) == worker
        finally:
            slow.close()
            quick.close()


def test_pipelined_requests_are_answered_in_order(two, hook, tmp_path):
    client = Client(two, hook, tmp_path)
    try:
        client.send(client.request("pid") + client.request("ls") + client.request("pid"))
        answers = [client.answer() for _ in range(3)]
        assert [a[1] for a in answers] == ["deny", None, "deny"]
    finally:
        client.close()


@pytest.mark.parametrize(("change", "status"), [
    ((b"Content-Length", b"Transfer-Encoding: chunked\r\nContent-Length"), 411),
    ((b"X-Agent-Hooks-Token: ", b"X-Agent-Hooks-Token: x"), 403),
    ((b"/hosts/claude-code", b"/hosts/no-such-host"), 404),
    ((b"Host: 127.0.0.1", b"Host: evil.example"), 403),
])
def test_what_the_loop_does_not_take_is_refused_by_the_threaded_handler(two, hook, tmp_path, change, status):
    client = Client(two, hook, tmp_path)
    try:
        client.send(client.request("pid").replace(*change, 1))
        assert client.answer()[0] == status
    finally:
        client.close()
    assert two.status()["rejected"] == 1


def test_a_big_event_arriving_in_pieces_is_answered_through_the_loop(two, hook, tmp_path):
    client = Client(two, hook, tmp_path)
    try:
        whole = client.request("pid" + " " * (3 << 20))  # 3 MiB: many reads, a partial pipe write
        for start in range(0, len(whole), 1 << 20):
            client.send(whole[start:start + (1 << 20)])
        status, decision, _ = client.answer()
        assert (status, decision) == (200, None)  # "pid   ..." is not "pid": no deny, but an answer
        assert _pid(client.ask("pid")) in two.status()["workers"]
    finally:
        client.close()


def test_a_fire_request_past_the_deadline_gets_a_504_from_the_answering_process(serve_home, hook, fifos, tmp_path):
    for srv in _start(serve_home, AGENT_HOOKS_SERVE_WORKERS="2", AGENT_HOOKS_ANSWER_DEADLINE="2"):
        request = {"hook": "pre_tool", "payload": {"tool_name": "Bash", "arguments": {"command": f"block:{fifos}"}},
                   "cwd": str(tmp_path), "hooks": [str(hook)]}
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(srv.tcp, "POST", "/fire", json.dumps(request).encode())
            stuck = _blocked_pid(fifos)
            status, body = answer.result()
        assert status == 504 and "no answer within 2 s" in json.loads(body)["error"]
        st = srv.status()
        assert stuck not in st["workers"] and st["rejected"] == 1
