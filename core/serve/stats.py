"""What ``agenthooks serve status`` reports: events served, blocks, errors, latency percentiles."""

from __future__ import annotations

import threading
import time
from collections import deque

#: latencies kept for the percentiles (the most recent ones)
WINDOW = 10_000


class Stats:
    def __init__(self) -> None:
        self.started = time.time()
        self.events = 0
        self.blocked = 0
        self.failures = 0
        self.rejected = 0
        self.by_host: dict[str, int] = {}
        self.latencies: deque[float] = deque(maxlen=WINDOW)
        self.lock = threading.Lock()

    def record(self, host: str, seconds: float, blocked: bool, failed: bool) -> None:
        with self.lock:
            self.events += 1
            self.blocked += blocked
            self.failures += failed
            self.by_host[host] = self.by_host.get(host, 0) + 1
            self.latencies.append(seconds)

    def reject(self) -> None:
        with self.lock:
            self.rejected += 1

    def snapshot(self) -> dict[str, object]:
        with self.lock:
            lat = sorted(self.latencies)
            return {
                "uptime_s": round(time.time() - self.started, 3), "events": self.events,
                "blocked": self.blocked, "failures": self.failures, "rejected": self.rejected,
                "by_host": dict(self.by_host), "p50_ms": _pct(lat, 0.50), "p99_ms": _pct(lat, 0.99),
            }


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 3)
