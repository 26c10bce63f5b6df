"""B9: throughput of the warm server per worker count, for ``benchmarks/run.py``.

The server answers every event in a pool of worker processes (core/serve/workers.py), so its
throughput should grow with cores. Each row drives a server started with
``AGENT_HOOKS_SERVE_WORKERS=N`` with 2N keep-alive HTTP clients at once and reports the wall time
per answered request, against the same load on a server with one worker measured in the same run.
The target (issue: "the warm server uses every core") is a ratio of at most 1 / (0.7 N), up to the
number of cores.
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


def _per_request(b7: Any, home: Path, workers: int, clients: int, per_client: int) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
    env.update({"AGENT_HOOKS_HOME": str(home), "AGENT_HOOKS_SERVE_PORT": "0",
                "AGENT_HOOKS_SERVE_WORKERS": str(workers)})
    home.mkdir(parents=True, exist_ok=True)
    srv = b7.Server(home, env)
    try:
        calls = [_raw_client(b7, srv) for _ in range(clients)]
        for _ in range(3):  # every worker warm (its runtime built) before timing
            with ThreadPoolExecutor(clients) as pool:
                list(pool.map(lambda c: c(), calls))
        start = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(lambda c: [c() for _ in range(per_client)], calls))
        return (time.perf_counter() - start) / (clients * per_client)
    finally:
        srv.stop()


def run(quick: bool) -> list[dict[str, Any]]:
    b7 = _b7()
    cores = os.cpu_count() or 1
    counts = sorted({n for n in (2, 4, cores) if 2 <= n <= min(cores, 8)}) or [2]
    per_client = 20 if quick else 200
    tmp = Path(tempfile.mkdtemp(prefix="ah-b9-"))
    rows: list[dict[str, Any]] = []
    for n in counts:
        base = _per_request(b7, tmp / f"one-{n}", 1, 2 * n, per_client)
        t = _per_request(b7, tmp / f"pool-{n}", n, 2 * n, per_client)
        rows.append({"name": f"B9w{n}", "what": f"serve, {n} workers, {2 * n} clients: time per request",
                     "value_s": t, "baseline": "1 worker, same load", "baseline_s": base,
                     "target": f"<= {1 / (0.7 * n):.2f}x", "note": f"{cores} cores"})
    return rows
