"""B7/B8: the warm server (``agenthooks serve``) and the fast client, for ``benchmarks/run.py``.

Rows (ratios against baselines measured in the same run; the plugins are whatever is installed in
this environment: ``tox -e bench`` installs agent-hooks-guard and agent-hooks-audit as wheels):

B7      a Claude Code PreToolUse over HTTP (keep-alive, as Claude Code's http hooks)  vs the same
        event answered in-process by the adapter on a kept runtime
B7u     the same over the unix socket, a new connection per event (as the fast client)
B7s     the same over ``serve --stdio`` (JSON-RPC lines)
B7c10   HTTP with 10 concurrent clients, median per request                       vs B7 (1 client)
B7c60   the same with 60 concurrent clients (the server holds at most 64 connections per user)
B7m     the server's RSS after N events in a row                                  vs its RSS before
B8      the fast client as a whole process                                        vs a bare
        ``python -c "import json,sys; json.load(sys.stdin)"``
B8l     the same through the stable launcher (``sh`` exec), as installers write it  vs B8
B8n     the native fast client (``clients/native``: the installed agent-hooks-client, vs B8's baseline
        else compiled from its source here with ``cc``) as a whole process
B8nl    the same through its stable launcher (``sh`` exec), as installers write it  vs B8's baseline
B9      the SessionStart starter of the http transport with the server up: the     vs the full
        fast client's ``--ensure-server`` (target: <= 30 ms)                           CLI's
                                                                                       ``serve start --quiet``
B9n     the same starter, native client                                             vs the same
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

PY = sys.executable
EVENT = {"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
         "hook_event_name": "PreToolUse", "tool_name": "Bash",
         "tool_input": {"command": "npm test", "description": "Run tests"}, "tool_use_id": "toolu_01"}
BODY = json.dumps(EVENT).encode()


class Server:
    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.env = env
        self.proc = subprocess.Popen([PY, "-m", "agent_hooks_core", "serve", "run"], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline().decode()
        if not line.startswith("agenthooks serve: pid"):
            raise RuntimeError(f"the server did not start: {line}{self.proc.stderr.read().decode()[:300]}")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        from agent_hooks_core.serve.server import request

        old = dict(os.environ)
        os.environ.update(env)
        try:
            from agent_hooks_core.serve import paths

            self.sock = str(paths.socket_path())
            self.token = paths.token(create=False) or ""
        finally:
            os.environ.clear()
            os.environ.update(old)
        _, _, body = request("GET", "/status", sock=self.sock)
        self.port = int(json.loads(body)["http"].rsplit(":", 1)[1])

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _http_client(srv: Server) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    headers = {"X-Agent-Hooks-Token": srv.token, "Content-Type": "application/json"}

    def call() -> None:
        conn.request("POST", "/hosts/claude-code", body=BODY, headers=headers)
        resp = conn.getresponse()
        resp.read()
        if resp.status != 200:
            raise RuntimeError(f"HTTP {resp.status}")

    return call


def _unix_call(srv: Server) -> Any:
    request = (b"POST /hosts/claude-code/command HTTP/1.0\r\nHost: localhost\r\nContent-Length: "
               + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)

    def call() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(srv.sock)
            s.sendall(request)
            while s.recv(65536):
                pass

    return call


def _stdio_client(env: dict[str, str]) -> tuple[Any, Any]:
    proc = subprocess.Popen([PY, "-m", "agent_hooks_core", "serve", "--stdio"], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    counter = [0]

    def rpc(method: str, params: dict[str, Any]) -> Any:
        counter[0] += 1
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": counter[0], "method": method, "params": params}).encode()
                         + b"\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == counter[0]:
                if "error" in reply:
                    raise RuntimeError(str(reply["error"])[:120])
                return reply.get("result")

    rpc("initialize", {"host": "claude-code", "cwd": "/tmp"})

    def call() -> None:
        rpc("event", {"host": "claude-code", "name": "PreToolUse", "payload": EVENT})

    def close() -> None:
        proc.kill()
        proc.wait()

    return call, close


def _median(fn: Any, number: int) -> float:
    fn()
    times = []
    for _ in range(number):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _concurrent(srv: Server, clients: int, per_client: int) -> float:
    """Median seconds per request with ``clients`` keep-alive clients firing at once."""
    calls = [_http_client(srv) for _ in range(clients)]
    for c in calls:
        c()
    times: list[float] = []
    lock = threading.Lock()

    def worker(call: Any) -> None:
        mine = []
        for _ in range(per_client):
            start = time.perf_counter()
            call()
            mine.append(time.perf_counter() - start)
        with lock:
            times.extend(mine)

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, calls))
    return statistics.median(times)


def _process(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=BODY, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def run(quick: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    tmp = Path(tempfile.mkdtemp(prefix="ah-b7-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
    env.update({"AGENT_HOOKS_HOME": str(tmp / "home"), "AGENT_HOOKS_SERVE_PORT": "0"})
    (tmp / "home").mkdir()
    number = 30 if quick else 500

    # the baseline: the adapter answering in this process, on a runtime kept between events
    old = dict(os.environ)
    os.environ.update(env)
    try:
        from agent_hooks_core.bridges.claude_code import ADAPTER
        from agent_hooks_core.runtime import Runtime

        rt = Runtime.from_settings(cwd="/tmp", host="claude-code", **{
            k: v for k, v in ADAPTER.runtime_options(EVENT).items() if k not in ("cwd", "host")})
        plugins = ", ".join(rt.plugins) or "no plugins"
        t_inproc = _median(lambda: ADAPTER.handle(rt, dict(EVENT)), number)
    finally:
        os.environ.clear()
        os.environ.update(old)

    srv = Server(tmp / "home", env)
    try:
        t_http = _median(_http_client(srv), number)
        rows.append({"name": "B7", "what": f"serve over HTTP, keep-alive, PreToolUse ({plugins})", "value_s": t_http,
                     "baseline": "the adapter in-process, runtime kept", "baseline_s": t_inproc,
                     "target": "median <= 1 ms"})
        rows.append({"name": "B7u", "what": "serve over the unix socket, a connection per event",
                     "value_s": _median(_unix_call(srv), number), "baseline": "the adapter in-process, runtime kept",
                     "baseline_s": t_inproc})
        try:
            call, close = _stdio_client(env)
            try:
                rows.append({"name": "B7s", "what": "serve --stdio (JSON-RPC lines)", "value_s": _median(call, number),
                             "baseline": "the adapter in-process, runtime kept", "baseline_s": t_inproc})
            finally:
                close()
        except Exception as exc:  # stdio is another transport's: its absence is a row, not a failure
            rows.append({"name": "B7s", "what": f"serve --stdio: n/a ({exc})"[:100], "value_s": 0.0,
                         "baseline": "", "baseline_s": 0.0})
        per = 5 if quick else 50
        one = _concurrent(srv, 1, per * 4)
        try:  # the server holds at most this many connections per user: more are refused, by design
            from agent_hooks_core.serve.peers import MAX_PER_PEER
        except ImportError:
            MAX_PER_PEER = 1000
        for clients in (10, min(100, MAX_PER_PEER - 4)):
            rows.append({"name": f"B7c{clients}", "what": f"HTTP, {clients} concurrent clients, median per request",
                         "value_s": _concurrent(srv, clients, per), "baseline": "1 client", "baseline_s": one})
        events = 500 if quick else 10_000
        before = srv.rss_kb()
        call = _http_client(srv)
        for _ in range(events):
            call()
        after = srv.rss_kb()
        rows.append({"name": "B7m", "what": f"server RSS after {events:,} events (KB as ms)", "value_s": after / 1000,
                     "baseline": "RSS before", "baseline_s": before / 1000,
                     "note": f"{before:,} KB -> {after:,} KB"})

        from agent_hooks_core.transports.client import command_for, ensure_server_command

        client = command_for("claude-code", ["--event", "PreToolUse"], gating=True, autostart=False, socket=srv.sock,
                             native=False)
        bare = [PY, "-c", "import json,sys; json.load(sys.stdin)"]
        native, how = _native_client(tmp)
        fast = command_for("claude-code", ["--event", "PreToolUse"], gating=True, autostart=False, socket=srv.sock,
                           native=native) if native else None
        runs = 5 if quick else 40
        for argv in (client, bare, fast):
            if argv:
                _process(argv, env)
        via = _native_launcher(native, fast, env) if native and fast else None
        if via:
            _process(via, env)
        tc, tb, tn, tl = [], [], [], []
        for _ in range(runs):  # interleaved: they all see the same load
            tc.append(_process(client, env))
            tb.append(_process(bare, env))
            if fast:
                tn.append(_process(fast, env))
            if via:
                tl.append(_process(via, env))
        rows.append({"name": "B8", "what": "the fast client, a process per event (python -S -I, _socket)",
                     "value_s": statistics.median(tc), "baseline": "python -c json.load(stdin)",
                     "baseline_s": statistics.median(tb), "target": "<= 0.3x"})
        if fast:
            rows.append({"name": "B8n", "what": f"the native fast client, a process per event ({how})",
                         "value_s": statistics.median(tn), "baseline": "python -c json.load(stdin)",
                         "baseline_s": statistics.median(tb), "target": "<= 0.3x"})
            if via:
                rows.append({"name": "B8nl", "what": "the same through its stable launcher (sh exec), as installed",
                             "value_s": statistics.median(tl), "baseline": "python -c json.load(stdin)",
                             "baseline_s": statistics.median(tb), "target": "<= 0.3x"})
        else:
            rows.append({"name": "B8n", "what": f"the native fast client: n/a ({how})", "value_s": 0.0,
                         "baseline": "", "baseline_s": 0.0})
        rows.extend(_launcher_and_starter(client, srv, env, quick))
        if native:
            starter = ensure_server_command(28, socket=srv.sock, native=native)
            python_starter = ensure_server_command(28, socket=srv.sock, native=False)
            t_n, t_py = _interleaved(starter, python_starter, env, runs)
            rows.append({"name": "B9n", "what": "SessionStart starter, server up: native client --ensure-server",
                         "value_s": t_n, "baseline": "B9 (the Python fast client)", "baseline_s": t_py,
                         "note": f"{t_n * 1000:.1f} ms"})
    finally:
        srv.stop()
    return rows


def _native_launcher(native: str, argv: list[str], env: dict[str, str]) -> list[str] | None:
    """``argv`` (the native client's) through its stable launcher, written in the benchmark's home."""
    from agent_hooks_core.transports import launcher

    if not launcher.supported():
        return None
    old = dict(os.environ)
    os.environ.update(env)
    try:
        path = launcher.write(native)
    finally:
        os.environ.clear()
        os.environ.update(old)
    return [str(path), launcher.GATING, *argv[1:]]


def _native_client(tmp: Path) -> tuple[str | None, str]:
    """(the native client's executable, where it comes from), or (None, why there is none)."""
    import shutil

    from agent_hooks_core.transports.client import native_client

    found = native_client()
    if found:
        return found, "agent-hooks-client installed"
    source = Path(__file__).resolve().parent.parent / "clients" / "native" / "src" / "agenthooks-client.c"
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None or not source.is_file():
        return None, "agent-hooks-client is not installed and there is no C compiler to build it"
    exe = tmp / "agenthooks-client"
    proc = subprocess.run([cc, "-O2", "-o", str(exe), str(source)], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, "cc failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:60]
    return str(exe), "compiled here with cc -O2"


def _interleaved(a: list[str], b: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    _process(a, env), _process(b, env)
    ta, tb = [], []
    for _ in range(runs):
        ta.append(_process(a, env))
        tb.append(_process(b, env))
    return statistics.median(ta), statistics.median(tb)


def _launcher_and_starter(client: list[str], srv: Server, env: dict[str, str], quick: bool) -> list[dict[str, Any]]:
    from agent_hooks_core.transports import launcher
    from agent_hooks_core.transports.client import ensure_server_command

    rows: list[dict[str, Any]] = []
    runs = 5 if quick else 40
    old = dict(os.environ)
    os.environ.update(env)
    try:
        via = launcher.wrap(client, True) if launcher.supported() else None
        if via is not None:
            launcher.write()
    finally:
        os.environ.clear()
        os.environ.update(old)
    if via is not None:
        t_via, t_client = _interleaved(via, client, env, runs)
        rows.append({"name": "B8l", "what": "the fast client through the stable launcher (sh exec)",
                     "value_s": t_via, "baseline": "B8 (the fast client's interpreter run directly)",
                     "baseline_s": t_client})
    starter = ensure_server_command(28, socket=srv.sock, native=False)
    full = [PY, "-I", "-m", "agent_hooks_core", "serve", "start", "--quiet"]
    t_starter, t_full = _interleaved(starter, full, env, runs)
    rows.append({"name": "B9", "what": "SessionStart starter, server up: fast client --ensure-server",
                 "value_s": t_starter, "baseline": "python -I -m agent_hooks_core serve start --quiet",
                 "baseline_s": t_full, "target": "<= 30 ms", "note": f"{t_starter * 1000:.1f} ms"})
    return rows


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        ratio = row["value_s"] / row["baseline_s"] if row.get("baseline_s") else 0
        print(f"{row['name']:7} {row['value_s'] * 1000:9.3f} ms  {row.get('baseline', ''):40} "
              f"{row.get('baseline_s', 0) * 1000:9.3f} ms  {ratio:6.2f}x  {row.get('note', '')}")
