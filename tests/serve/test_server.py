"""A real ``agenthooks serve`` answering over every transport, under load and abuse.

The server is a subprocess started per test (conftest.py); hook files in the test's directory are
passed with ``--hook`` like an installed entry would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core.transports import client

from ..bridges.payloads import event
from .conftest import start_server

HOOK = textwrap.dedent("""\
    import os, time
    from agent_hooks_core import hookimpl

    @hookimpl
    def pre_tool(event):
        cmd = event.arguments.get("command")
        if cmd == "hang" or (cmd == "hang-in-server" and os.environ.get("IN_SERVER")):
            open(os.environ.get("HANG_MARK", os.devnull), "w").close()
            time.sleep(3600)
        if cmd == "raise":
            raise RuntimeError("boom")
        if isinstance(cmd, str) and (cmd.startswith("rm -rf") or cmd == "hang-in-server"):
            return {"block": True, "reason": "no rm"}
        if cmd == "echo hi":
            return {"arguments": {**event.arguments, "command": "echo bye"}}

    @hookimpl
    def pre_message(event):
        if event.prompt == "shout":
            return {"prompt": "SHOUT"}
""")


@pytest.fixture
def hook(tmp_path: Path) -> Path:
    path = tmp_path / "hook.py"
    path.write_text(HOOK)
    return path


def cc(name: str, cwd: Path, **fields: Any) -> bytes:
    return json.dumps(event(name, str(cwd), **fields)).encode()


def bash(cwd: Path, command: Any) -> bytes:
    return cc("PreToolUse", cwd, tool_input={"command": command})


PAYLOADS = {
    "deny": lambda d: bash(d, "rm -rf ~"),
    "allow": lambda d: bash(d, "ls"),
    "rewrite": lambda d: bash(d, "echo hi"),
    "raise": lambda d: bash(d, "raise"),
    "no tool_name": lambda d: json.dumps({k: v for k, v in event("PreToolUse", str(d)).items()
                                          if k != "tool_name"}).encode(),
    "not json": lambda d: b'{"hook_event_name": "PreToolUse", oops',
    "deep": lambda d: b'{"hook_event_name": "PreToolUse", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "prompt": lambda d: cc("UserPromptSubmit", d, prompt="shout"),
    "stop": lambda d: cc("Stop", d),
    "stop broken": lambda d: b'{"hook_event_name": "Stop", oops',
}


def _norm(code: int, stdout: bytes) -> tuple[int, Any]:
    text = stdout.decode().strip()
    body = json.loads(text) if text else None
    if isinstance(body, dict):  # reasons may say which transport failed; the decision may not differ
        body.get("hookSpecificOutput", {}).pop("permissionDecisionReason", None)
    return code, body


def _process(raw: bytes, hook: Path, cwd: Path, env: dict[str, str]) -> tuple[int, Any]:
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "claude-code", "--hook", str(hook)],
                          input=raw, capture_output=True, cwd=cwd, env=env, timeout=60)
    return _norm(proc.returncode, proc.stdout)


def _fastclient(raw: bytes, hook: Path, cwd: Path, env: dict[str, str], sock: str, gating: bool = True) -> tuple[int, Any]:
    # as installers write it: --gating only on the events that decide whether a tool runs
    argv = client.command_for("claude-code", ["--hook", str(hook)], gating=gating, autostart=False, socket=sock)
    proc = subprocess.run(argv, input=raw, capture_output=True, cwd=cwd, env=env, timeout=60)
    return _norm(proc.returncode, proc.stdout)


def test_the_same_payloads_give_the_same_answers_through_every_transport(server, hook, tmp_path):
    env = server.run_env()
    for name, make in PAYLOADS.items():
        raw = make(tmp_path)
        expected = _process(raw, hook, tmp_path, env)
        via_client = _fastclient(raw, hook, tmp_path, env, server.sock, gating=not name.startswith(("prompt", "stop")))
        code, headers, body = server.unix("POST", f"/hosts/claude-code/command?arg=--hook&arg={hook}", raw)
        out_len = int(headers["x-agent-hooks-stdout-length"])
        via_unix = _norm(int(headers["x-agent-hooks-exit-code"]), body[:out_len])
        status, http_body = server.tcp("POST", f"/hosts/claude-code?arg=--hook&arg={hook}", raw)
        via_http = (0, _norm(0, http_body)[1] or None) if status == 200 else (1, None)
        assert code == 200
        assert via_client == expected, name
        assert via_unix == expected, name
        assert via_http == expected, name
    # and the table is not trivial: it holds denies, a rewrite, context and non-blocking errors
    assert _process(PAYLOADS["rewrite"](tmp_path), hook, tmp_path, env)[1]["hookSpecificOutput"][
        "updatedInput"]["command"] == "echo bye"
    assert _process(PAYLOADS["stop broken"](tmp_path), hook, tmp_path, env) == (1, None)
    assert server.status()["events"] >= 3 * len(PAYLOADS)


def test_fire_returns_the_outcome(server, hook, tmp_path):
    request = {"hook": "pre_tool", "payload": {"tool_name": "Bash", "arguments": {"command": "rm -rf /"}},
               "cwd": str(tmp_path), "hooks": [str(hook)]}
    status, body = server.tcp("POST", "/fire", json.dumps(request).encode())
    out = json.loads(body)
    assert status == 200 and (out["decision"], out["result"]["reason"]) == ("blocked", "no rm")


@pytest.mark.parametrize(("method", "path", "body", "status", "message"), [
    ("POST", "/fire", b"{oops", 400, "not valid JSON"),
    ("POST", "/fire", b"[1]", 400, 'expected a JSON object with "hook"'),
    ("POST", "/fire", b'{"hook": "pre_tol", "payload": {}}', 400, "pre_tol"),
    ("POST", "/fire", b'{"hook": "pre_tool", "payload": ' + b"[" * 3000 + b"]" * 3000 + b"}", 400, "nested"),
    ("POST", "/hosts/nosuchhost", b"{}", 404, "unknown host 'nosuchhost'"),
    ("GET", "/hosts/claude-code", b"", 405, "not served"),
    ("POST", "/nope", b"", 404, "no endpoint /nope"),
    ("POST", "/shutdown", b"", 403, "only served on the unix socket"),
])
def test_malformed_requests_get_one_line_and_the_server_keeps_serving(server, method, path, body, status, message):
    got, text = server.tcp(method, path, body)
    assert got == status and text.count(b"\n") == 1 and message in json.loads(text)["error"]
    assert server.tcp("GET", "/status")[0] == 200


@pytest.mark.parametrize(("headers", "token", "message"), [
    ({}, False, "missing or wrong X-Agent-Hooks-Token"),
    ({"X-Agent-Hooks-Token": "guess"}, False, "missing or wrong X-Agent-Hooks-Token"),
    ({"Host": "evil.example:80"}, True, "is not a loopback address"),
    ({"Host": "127.0.0.1.evil.example"}, True, "is not a loopback address"),
])
def test_http_refuses_without_the_token_or_with_a_foreign_host_header(server, tmp_path, headers, token, message):
    status, text = server.tcp("POST", "/hosts/claude-code", bash(tmp_path, "ls"), headers=headers, token=token)
    assert status == 403 and message in json.loads(text)["error"]


def test_http_accepts_the_bearer_form_of_the_token(server, tmp_path):
    status, _ = server.tcp("POST", "/hosts/claude-code", bash(tmp_path, "ls"), token=False,
                           headers={"Authorization": f"Bearer {server.token}"})
    assert status == 200


def test_socket_and_directory_are_private(server):
    assert os.stat(server.sock).st_mode & 0o777 == 0o600
    assert os.stat(os.path.dirname(server.sock)).st_mode & 0o777 == 0o700
    assert (server.home / "serve-token").stat().st_mode & 0o777 == 0o600


def test_parallel_requests_and_a_hung_handler_delays_nobody_else(serve_home, hook, tmp_path):
    srv = start_server(serve_home, {"AGENT_HOOKS_ANSWER_DEADLINE": "3"})
    try:
        path = f"/hosts/claude-code?arg=--hook&arg={hook}"
        with ThreadPoolExecutor(24) as pool:
            hung = pool.submit(srv.tcp, "POST", path, bash(tmp_path, "hang"))
            quick = [pool.submit(srv.tcp, "POST", path, bash(tmp_path, "rm -rf /" if i % 2 else "ls"))
                     for i in range(20)]
            results = [f.result() for f in quick]
            assert not hung.done()  # every quick request was answered while the hung one still waits
            status, body = hung.result()
        assert [s for s, _ in results] == [200] * 20
        assert [json.loads(b).get("hookSpecificOutput", {}).get("permissionDecision") for _, b in results] == [
            "deny" if i % 2 else None for i in range(20)]
        out = json.loads(body)["hookSpecificOutput"]
        assert status == 200 and out["permissionDecision"] == "deny" and "no answer within 3 s" in out[
            "permissionDecisionReason"]
        assert srv.tcp("POST", path, bash(tmp_path, "ls"))[0] == 200  # still serving
    finally:
        srv.stop()


def test_a_raising_plugin_inside_the_server_denies_and_the_server_keeps_serving(server, hook, tmp_path):
    path = f"/hosts/claude-code?arg=--hook&arg={hook}"
    status, body = server.tcp("POST", path, bash(tmp_path, "raise"))
    assert status == 200 and json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "boom" in json.loads(body)["hookSpecificOutput"]["permissionDecisionReason"]
    assert server.tcp("POST", path, bash(tmp_path, "ls")) == (200, b"{}\n")


def test_per_request_state_does_not_leak_between_sessions(server, tmp_path):
    hook = tmp_path / "sessions.py"
    hook.write_text("from agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event, ctx):\n"
                    "    ctx.send_message('session ' + str(ctx.session_id))\n")
    path = f"/hosts/claude-code?arg=--hook&arg={hook}"

    def one(i: int) -> str:
        _, body = server.tcp("POST", path, cc("PreToolUse", tmp_path, session_id=f"s{i}"))
        return str(json.loads(body)["hookSpecificOutput"]["additionalContext"])

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(one, range(16))) == [f"session s{i}" for i in range(16)]


def test_kill_9_mid_request_the_client_falls_back_and_gating_stays_closed(serve_home, hook, tmp_path):
    mark = tmp_path / "in-server"
    srv = start_server(serve_home, {"IN_SERVER": "1", "HANG_MARK": str(mark)})
    try:
        env = {k: v for k, v in srv.run_env().items() if k not in ("IN_SERVER", "HANG_MARK")}
        argv = client.command_for("claude-code", ["--event", "PreToolUse", "--hook", str(hook)], gating=True,
                                  autostart=False, socket=srv.sock)
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=tmp_path, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(bash(tmp_path, "hang-in-server"))
        proc.stdin.close()
        proc.stdin = None  # written: communicate() only reads
        deadline = time.monotonic() + 30
        while not mark.exists():  # the request is inside the server's plugin
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        os.kill(srv.proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
        answer = json.loads(out)["hookSpecificOutput"]
        assert proc.returncode == 0 and answer["permissionDecision"] == "deny", err
        assert answer["permissionDecisionReason"] == "no rm"  # answered by the per-event process
        # with the server gone for good, the next event is answered the same way
        again = subprocess.run(argv, input=bash(tmp_path, "rm -rf ~"), capture_output=True, env=env, timeout=60)
        assert json.loads(again.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    finally:
        srv.stop()


def test_a_plugin_that_ends_its_process_denies_and_the_server_keeps_serving(serve_home, tmp_path):
    hook = tmp_path / "exit.py"
    hook.write_text("import os\nfrom agent_hooks_core import hookimpl\n\n@hookimpl\ndef pre_tool(event):\n"
                    "    if event.arguments.get('command') == 'exit':\n        os._exit(0)\n"
                    "    return {'block': True, 'reason': 'answered'}\n")
    srv = start_server(serve_home, {"AGENT_HOOKS_SERVE_WORKERS": "1"})
    try:
        argv = client.command_for("claude-code", ["--event", "PreToolUse", "--hook", str(hook)], gating=True,
                                  autostart=False, socket=srv.sock)
        before = srv.status()["workers"]
        proc = subprocess.run(argv, input=bash(tmp_path, "exit"), capture_output=True, env=srv.run_env(), timeout=60)
        answer = json.loads(proc.stdout)["hookSpecificOutput"]
        assert (proc.returncode, answer["permissionDecision"]) == (0, "deny")
        assert "the worker exited" in answer["permissionDecisionReason"]
        assert srv.proc.poll() is None  # the plugin ended a worker, not the server
        again = subprocess.run(argv, input=bash(tmp_path, "ls"), capture_output=True, env=srv.run_env(), timeout=60)
        assert json.loads(again.stdout)["hookSpecificOutput"]["permissionDecisionReason"] == "answered"
        st = srv.status()
        assert st["workers"] != before and len(st["workers"]) == 1 and st["workers_replaced"] == 1
    finally:
        srv.stop()


def test_a_second_server_refuses_and_start_is_idempotent(server):
    env = server.run_env()
    second = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "run"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == 2 and second.stderr.startswith("agenthooks: error: a server is already running")
    assert second.stderr.count("\n") == 1
    start = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "start"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert start.returncode == 0 and start.stdout.startswith(f"already running: pid {server.proc.pid}")


def test_status_stop_and_status_again(serve_home):
    srv = start_server(serve_home)
    env = srv.run_env()
    st = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "status", "--json"], env=env,
                        capture_output=True, text=True, timeout=60)
    assert st.returncode == 0 and json.loads(st.stdout)["pid"] == srv.proc.pid
    stop = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "stop"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert stop.stdout.strip() == f"stopped (pid {srv.proc.pid})"
    assert srv.proc.wait(timeout=30) == 0
    assert not os.path.exists(srv.sock)
    st = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "status"], env=env,
                        capture_output=True, text=True, timeout=60)
    assert st.returncode == 1 and st.stdout.startswith("not running")


def test_threads_are_not_left_behind(server, hook, tmp_path):
    """Keep-alive connections and finished requests do not pile up threads in the server."""
    path = f"/hosts/claude-code?arg=--hook&arg={hook}"
    for _ in range(30):
        server.tcp("POST", path, bash(tmp_path, "ls"))
    assert threading.active_count() >= 1  # (the client side); the server's count is in its status
    assert server.status()["events"] == 30


def test_quiet_start_of_a_running_server_is_quick_and_silent(server):
    code = ("import sys, time; from agent_hooks_core.__main__ import main; t = time.perf_counter(); "
            "c = main(['serve', 'start', '--quiet']); "
            "print(c, 'typer' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], env=server.run_env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout == "" and proc.stderr.split() == ["0", "False"]  # answered without the typer app
