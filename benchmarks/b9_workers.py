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


def _per_request(b7: Any, home: Path, workers: int, clients: int, per_client: int) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
    env.update({"AGENT_HOOKS_HOME": str(home), "AGENT_HOOKS_SERVE_PORT": "0",
                "AGENT_HOOKS_SERVE_WORKERS": str(workers)})
    home.mkdir(parents=True, exist_ok=True)
    srv = b7.Server(home, env)
    try:
        calls = [b7._http_client(srv) for _ in range(clients)]
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
