"""The native fast client (``clients/native``, the ``agent-hooks-client`` wheel) and the Python one
(``fastclient.py``) run one table of scenarios and must answer alike: exit code, stdout and the
client's own stderr line, with every failure of ours on a gating event a block (exit 2).

The wheel is built by the project's own build (``pip wheel clients/native``), installed into a
fresh virtual environment, and its executable found the way ``agenthooks install`` finds it.
Real processes throughout: a real ``agenthooks serve``, real per-event processes, a real wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core.transports import client

from ..bridges.payloads import event
from ..serve.conftest import start_server

pytestmark = pytest.mark.slow  # builds a wheel and a virtual environment

ROOT = Path(__file__).resolve().parents[2]
#: the event's budget (--timeout); what a loaded machine may add before the client has exited
BUDGET, SLACK = 4.0, 3.0

HOOK = """from agent_hooks_core import hookimpl
import os, signal, time

@hookimpl
def pre_tool(event):
    command = event.arguments.get("command")
    if command == "kill":
        os.kill(os.getppid(), signal.SIGKILL)  # the per-event process that would answer
    if command == "stop":
        os.kill(os.getppid(), signal.SIGSTOP)  # it neither answers nor exits
    if command == "rm -rf ~":
        return {"block": True, "reason": "no rm"}
"""


def _built_client(tmp: Path) -> str:
    wheels, venv, source = tmp / "wheels", tmp / "venv", tmp / "source"
    # built from a copy: parallel test workers never share a build directory, the checkout stays clean
    shutil.copytree(ROOT / "clients" / "native", source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                    str(source)], check=True, timeout=600)
    (wheel,) = wheels.glob("agent_hooks_client-*.whl")
    assert not wheel.name.endswith("-none-any.whl"), wheel.name  # a platform wheel: it holds an executable
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-index", "--no-deps", str(wheel)], check=True, timeout=300)
    found = subprocess.run([str(venv / "bin" / "python"), "-c", "import agent_hooks_client as c; print(c.executable())"],
                           capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    assert found != "None" and os.access(found, os.X_OK), found
    return found


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler (cc): the native client cannot be built here")
    return _built_client(tmp_path_factory.mktemp("native"))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A real server with the hook above, a dead socket, a mute one, an interpreter without us."""
    tmp = tmp_path_factory.mktemp("world")
    home = tmp / "home"
    home.mkdir()
    hook = tmp / "hook.py"
    hook.write_text(HOOK)
    dead = str(tmp / "dead.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(dead)
    s.close()
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(str(tmp / "mute.sock"))
    mute.listen(64)
    bare = tmp / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    canned = _Canned(str(tmp / "canned.sock"))
    server = start_server(home)
    try:
        yield {"server": server.sock, "server process": server, "hook": hook, "dead": dead, "mute": str(tmp / "mute.sock"), "missing":
               str(tmp / "missing.sock"), "bare": str(bare / "bin" / "python"), "canned": canned.path, "canned server": canned, "cwd": tmp}
    finally:
        server.stop()
        mute.close()
        canned.close()


class _Canned:
    """A unix socket server that answers every request with ``reply`` (a server of another version,
    or a broken one)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.reply = b""
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(10)
                data = b""
                while b"\r\n\r\n" not in data or len(data) < self._size(data):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(self.reply)

    @staticmethod
    def _size(data: bytes) -> int:
        """The whole request's length, once its head is in ``data`` (the body is read before the
        answer: a unix socket closed with unread data resets the connection)."""
        head, _, _ = data.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                return len(head) + 4 + int(value)
        return len(head) + 4

    def close(self) -> None:
        self.sock.close()


@dataclass
class Case:
    socket: str  # a key of world, or "" for no --socket
    command: Any = "rm -rf ~"  # the PreToolUse's tool_input.command
    gating: bool = True
    python: str | None = None  # "bare": an interpreter that cannot import us
    code: int = 0
    decision: str | None = None  # the permissionDecision on stdout, when one is expected
    reason: str = "no rm"  # in its reason: "no rm" is the hook's (the real server or the per-event process)
    says: str | None = None  # the client's own stderr line contains this
    canned: bytes = b""
    raw: Callable[[Path], bytes] | None = None
    extra: list[str] = field(default_factory=list)
    host_args: list[str] = field(default_factory=list)  # after the event's own
    served: bool = True  # with the server up and exit 0: the server answered (not the per-event process)


def _http(code: int, out: bytes, err: bytes = b"", status: bytes = b"200 OK") -> bytes:
    return (b"HTTP/1.0 " + status + b"\r\nX-Agent-Hooks-Exit-Code: " + str(code).encode() +
            b"\r\nX-Agent-Hooks-Stdout-Length: " + str(len(out)).encode() + b"\r\n\r\n" + out + err)


DENY = (b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", '
        b'"permissionDecisionReason": "canned"}}\n')

CASES: dict[str, Case] = {
    "server up, denies": Case("server", decision="deny"),
    "server up, allows": Case("server", command="ls"),
    "server up, not gating": Case("server", command="ls", gating=False),
    "server dead: the per-event process denies": Case("dead", decision="deny"),
    "socket missing: the per-event process denies": Case("missing", decision="deny"),
    "no --socket: the per-event process answers": Case("", decision="deny"),
    "fallback crashes": Case("dead", python="bare", code=2, says="exited with status 1: blocked"),
    # not gating: the per-event process's own exit 1 (a non-blocking error) is the answer
    "fallback crashes, not gating": Case("dead", python="bare", gating=False, code=1),
    "fallback killed by a signal": Case("dead", command="kill", code=2, says="killed by signal 9: blocked"),
    "fallback hangs": Case("dead", command="stop", code=2, says="gave no answer within 4 s: it was stopped"),
    "server never answers": Case("mute", code=2, says="the server gave no answer within 4 s"),
    "server answers exit 3": Case("canned", canned=_http(3, b"", b"boom\n"), code=2,
                                  says="the server answered with exit status 3: blocked"),
    "server answers exit 3, not gating": Case("canned", gating=False, canned=_http(3, b"x\n"), code=3),
    "server answers its deny": Case("canned", canned=_http(0, DENY), decision="deny", reason="canned"),
    "server answers 500: fallback": Case("canned", canned=_http(0, b"", status=b"500 Oops"), decision="deny"),
    "server's answer is cut: fallback": Case("canned", canned=b"HTTP/1.0 200 OK\r\nX-Agent-Hooks-Exit-Code: 0",
                                             decision="deny"),
    "server's lengths lie: fallback": Case("canned", canned=_http(0, b"{}")[:-2], decision="deny"),
    "server's length is negative: fallback": Case("canned", canned=_http(0, b"{}").replace(
        b"Stdout-Length: 2", b"Stdout-Length: -1"), decision="deny"),
    "oversize input": Case("server", code=2, says="the event is larger than 67,108,864 bytes",
                           raw=lambda d: b" " * ((64 << 20) + 1)),
    "oversize input, not gating": Case("server", gating=False, code=1, says="the event is larger than",
                                       raw=lambda d: b" " * ((64 << 20) + 1)),
    # the argument cannot be a header (not UTF-8 / a control character): the per-event process
    # answers, whose hook list then names a file that does not exist: a deny
    "an argument that is not UTF-8: fallback": Case("server", code=0, host_args=["--hook", "/nonexistent/h\udcff.py"],
                                                    decision="deny", reason="a plugin failed to load", served=False),
    "an argument with a control character: fallback": Case("server", code=0, decision="deny", reason="a plugin failed to load", served=False,
                                                           host_args=["--hook", "/nonexistent/h\x01.py"]),
    "bad command line": Case("server", code=2, says="bad command line: unknown option '--bogus'",
                             extra=["--bogus"]),
}


def _argv(case: Case, world: dict[str, Any], native: str | bool) -> list[str]:
    sock = world[case.socket] if case.socket else None
    argv = client.command_for("claude-code", ["--event", "PreToolUse", "--hook", str(world["hook"]), *case.host_args],
                              gating=case.gating, autostart=False, socket=sock or "unused", native=native)
    if sock is None:
        i = argv.index("--socket")
        del argv[i:i + 2]
    cut = argv.index("--")
    argv[cut:cut] = ["--timeout", str(BUDGET), *case.extra]
    if case.python == "bare":
        if native is False:
            argv[0] = world["bare"]
        else:
            argv[argv.index("--python") + 1] = world["bare"]
    return argv


def _run(case: Case, world: dict[str, Any], native: str | bool) -> tuple[int, bytes, list[str], float]:
    if case.canned:
        world["canned server"].reply = case.canned
    raw = case.raw(world["cwd"]) if case.raw else json.dumps(
        event("PreToolUse", str(world["cwd"]), tool_input={"command": case.command})).encode()
    start = time.monotonic()
    proc = subprocess.run(_argv(case, world, native), input=raw, capture_output=True, cwd=world["cwd"],
                          env=world["server process"].run_env(), timeout=BUDGET + 60)
    took = time.monotonic() - start
    ours = [line for line in proc.stderr.decode().splitlines() if line.startswith("agent-hooks fast client:")]
    return proc.returncode, proc.stdout, ours, took


@pytest.mark.parametrize("name", list(CASES))
def test_both_clients_answer_alike(name: str, world: dict[str, Any], native: str) -> None:
    case = CASES[name]
    server = world["server process"]
    before = server.status()["events"]
    py = _run(case, world, False)
    nat = _run(case, world, native)
    if case.socket == "server" and case.code == 0:
        assert server.status()["events"] == before + (2 if case.served else 0)
    for code, out, ours, took in (py, nat):
        assert code == case.code, (name, code, out, ours)
        assert took < BUDGET + SLACK
        if case.decision is not None:
            answer = json.loads(out)["hookSpecificOutput"]
            assert answer["permissionDecision"] == case.decision and case.reason in answer["permissionDecisionReason"]
        if case.says is not None:
            assert len(ours) == 1 and case.says in ours[0], ours
        else:
            assert ours == []
    assert nat[:3] == py[:3], (name, py, nat)


def test_a_host_that_never_closes_stdin_is_blocked_at_the_deadline(world: dict[str, Any], native: str) -> None:
    for which in (False, native):
        argv = _argv(Case("server"), world, which)
        start = time.monotonic()
        r, w = os.pipe()  # the write end stays open in this process: stdin never ends
        try:
            proc = subprocess.Popen(argv, stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            os.close(r)
            out, err = proc.communicate(timeout=BUDGET + 60)
        finally:
            os.close(w)
        assert proc.returncode == 2 and out == b"", err
        assert err.decode().strip() == "agent-hooks fast client: stdin was not closed within the deadline"
        assert time.monotonic() - start < BUDGET + SLACK


@pytest.fixture
def on_path(native: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The installed package on sys.path, found as `agenthooks install` finds it; forgotten after."""
    monkeypatch.syspath_prepend(str(Path(native).parent.parent))
    try:
        yield native
    finally:
        sys.modules.pop("agent_hooks_client", None)


def test_install_writes_the_native_client_when_its_wheel_is_installed(on_path: str, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    native = on_path
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / "home"))
    assert client.native_client() == native
    argv = client.command_for("codex", ["--event", "PreToolUse"], gating=True)
    assert argv[0] == native and argv[argv.index("--python") + 1] == client.python() and client.is_fast_client(argv)
    from agent_hooks_core.transports import launcher

    wrapped = launcher.wrap(argv, True)
    assert wrapped[0] == str(launcher.path(native=True)) and wrapped[1] == launcher.GATING
    launcher.write_if_referenced(" ".join(wrapped))
    assert launcher.recorded(wrapped[0]) == {"python": native, "needs": native}
    assert client.is_fast_client(wrapped)
    # through the launcher, the native client answers like the Python one (no server: per-event process)
    raw = json.dumps(event("PreToolUse", str(tmp_path), tool_input={"command": "ls"})).encode()
    env = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    wrapped[wrapped.index("--socket") + 1] = str(tmp_path / "none.sock")
    proc = subprocess.run(wrapped, input=raw, capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("where", ["server", "missing"])
def test_the_session_start_starter_answers_alike(where: str, world: dict[str, Any], native: str) -> None:
    """``--ensure-server``: 0 when the server answers its status; else ``serve start`` by the
    interpreter given (here one without agent-hooks: it fails, and the client says so, exit 1)."""
    results = []
    for which in (False, native):
        sock = world[where]
        argv = client.ensure_server_command(BUDGET, socket=sock, native=which)
        if which is False:
            argv[0] = world["bare"]
        else:
            argv[argv.index("--python") + 1] = world["bare"]
        proc = subprocess.run(argv, capture_output=True, env=world["server process"].run_env(), timeout=BUDGET + 60)
        ours = [line for line in proc.stderr.decode().splitlines() if line.startswith("agent-hooks fast client:")]
        results.append((proc.returncode, proc.stdout, ours))
    expected = (0, b"", []) if where == "server" else (
        1, b"", ["agent-hooks fast client: could not start the warm server: `agenthooks serve start` exited with "
                 "status 1"])
    assert results == [expected, expected]
