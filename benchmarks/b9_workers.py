"""B9: throughput of the warm server per worker count, for ``benchmarks/run.py``.

The server answers every event in a pool of worker processes (core/serve/workers.py), so its
throughput should grow with cores. Each row drives a server started with
``AGENT_HOOKS_SERVE_WORKERS=N`` with 2N keep-alive HTTP clients at once and reports the wall time
per answered request, against the same load on a server with one worker measured in the same run.
The target (issue: "the warm server uses every core") is a ratio of at most 1 / (0.7 N), up to the
number of cores. Both servers run at once and are timed in alternating rounds, so the machine's
other load falls on both alike. B9p and B9q are the answering process's and the worker's CPU time
per request (``/proc``, Linux) on the one-worker server: the pool can only gain the share of the
machine the answering process and the clients leave to the workers.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _b7() -> Any:
    spec = importlib.util.spec_from_file_location("b7_serve", HERE / "b7_serve.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _raw_client(b7: Any, srv: Any) -> Any:
    """A keep-alive HTTP client on a bare socket (the request's bytes built once, the reply read by its
    Content-Length): the load generator shares the machine's cores with the server, so it must cost
    as little as it can, or it measures itself."""
    import socket

    conn = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = (f"POST /hosts/claude-code HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Agent-Hooks-Token: {srv.token}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(b7.BODY)}\r\n\r\n").encode() + b7.BODY
    buf = bytearray()

    def call() -> None:
        conn.sendall(request)
        while b"\r\n\r\n" not in buf:
            chunk = conn.recv(65536)
            if not chunk:
                raise RuntimeError("the server closed the connection")
            buf.extend(chunk)
        head, _, rest = bytes(buf).partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200") and not head.startswith(b"HTTP/1.0 200"):
            raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                raise RuntimeError("the server closed the connection")
            rest += chunk
        buf[:] = rest[length:]

    return call


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds a live process has used (Linux ``/proc``), else None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Load:
    """A server with ``workers`` workers and ``clients`` warm keep-alive clients."""

    def __init__(self, b7: Any, home: Path, workers: int, clients: int) -> None:
        import json

        from agent_hooks_core.serve.server import request

        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
        env.update({"AGENT_HOOKS_HOME": str(home), "AGENT_HOOKS_SERVE_PORT": "0",
                    "AGENT_HOOKS_SERVE_WORKERS": str(workers)})
        home.mkdir(parents=True, exist_ok=True)
        self.srv = b7.Server(home, env)
        self.calls = [_raw_client(b7, self.srv) for _ in range(clients)]
        for _ in range(3):  # every worker warm (its runtime built) before timing
            self.batch(1)
        self.pids = [self.srv.proc.pid, *json.loads(request("GET", "/status", sock=self.srv.sock)[2])["workers"]]
        self.seconds = 0.0
        self.requests = 0
        self.cpu = [0.0 for _ in self.pids]

    def batch(self, per_client: int) -> None:
        with ThreadPoolExecutor(len(self.calls)) as pool:
            list(pool.map(lambda c: [c() for _ in range(per_client)], self.calls))

    def timed(self, per_client: int) -> None:
        before = [_cpu_s(p) or 0.0 for p in self.pids]
        start = time.perf_counter()
        self.batch(per_client)
        self.seconds += time.perf_counter() - start
        self.requests += per_client * len(self.calls)
        self.cpu = [c + (_cpu_s(p) or 0.0) - b for c, p, b in zip(self.cpu, self.pids, before, strict=True)]

    def per_request(self) -> float:
        return self.seconds / self.requests


def _compare(b7: Any, tmp: Path, n: int, per_client: int, rounds: int) -> tuple[_Load, _Load]:
    """(one worker, n workers), each with 2n clients, timed in alternating rounds (the machine's
    other load falls on both alike)."""
    one = _Load(b7, tmp / f"one-{n}", 1, 2 * n)
    try:
        pool = _Load(b7, tmp / f"pool-{n}", n, 2 * n)
        try:
            for i in range(rounds):
                for load in ((one, pool) if i % 2 == 0 else (pool, one)):
                    load.timed(per_client)
            return one, pool
        finally:
            pool.srv.stop()
    finally:
        one.srv.stop()


def run(quick: bool) -> list[dict[str, Any]]:
    b7 = _b7()
    cores = os.cpu_count() or 1
    counts = sorted({n for n in (2, 4, cores) if 2 <= n <= min(cores, 8)}) or [2]
    per_client, rounds = (10, 2) if quick else (50, 8)
    tmp = Path(tempfile.mkdtemp(prefix="ah-b9-"))
    rows: list[dict[str, Any]] = []
    for n in counts:
        one, pool = _compare(b7, tmp, n, per_client, rounds)
        rows.append({"name": f"B9w{n}", "what": f"serve, {n} workers, {2 * n} clients: time per request",
                     "value_s": pool.per_request(), "baseline": "1 worker, same load, alternating rounds",
                     "baseline_s": one.per_request(), "target": f"<= {1 / (0.7 * n):.2f}x", "note": f"{cores} cores"})
        if n == counts[0] and all(one.cpu):  # why the ratio is what it is: each process's share
            parent, worker = one.cpu[0] / one.requests, sum(one.cpu[1:]) / one.requests
            rows.append({"name": "B9p", "what": "serve, 1 worker: the answering process's CPU per request",
                         "value_s": parent, "baseline": "the worker's CPU per request (B9q)",
                         "baseline_s": worker, "target": "", "note": "CPU time, /proc"})
            rows.append({"name": "B9q", "what": "serve, 1 worker: the worker's CPU per request",
                         "value_s": worker, "baseline": "time per request, same run (B9w baseline)",
                         "baseline_s": one.per_request(), "target": "", "note": "CPU time, /proc"})
    return rows
