"""The part every fake model server shares: an HTTP server on 127.0.0.1 (a free port) in a daemon
thread, started and stopped with ``with``, and the texts the agent sent back, once each."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TypeVar

S = TypeVar("S", bound="LocalServer")


class LocalServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self: S) -> S:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def unique(texts: Iterable[str]) -> list[str]:
    """``texts`` in order, each once (an agent resends the whole conversation every turn)."""
    seen: list[str] = []
    for text in texts:
        if text not in seen:
            seen.append(text)
    return seen
