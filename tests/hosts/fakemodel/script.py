"""The turns a fake model plays, and the server that plays them."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .server import LocalServer

EXHAUSTED = "(the fake model's script is exhausted)"

_ids = itertools.count(1)


@dataclass
class Turn:
    """One model answer: some text, and/or tool calls (name, arguments)."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: runs with the request body when this turn's request arrives, before it is answered
    before: Callable[[dict[str, Any]], None] | None = None

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.calls else "stop"


def say(text: str, *, before: Callable[[dict[str, Any]], None] | None = None) -> Turn:
    """A final answer: the agent's loop ends."""
    return Turn(text=text, before=before)


def tool_call(name: str, arguments: dict[str, Any], *, text: str = "",
              before: Callable[[dict[str, Any]], None] | None = None) -> Turn:
    """The model asks to run tool ``name`` with ``arguments``."""
    return Turn(text=text, calls=[(name, arguments)], before=before)


def call_id() -> str:
    return f"call_{next(_ids)}"


class FakeModel(LocalServer):
    """A ThreadingHTTPServer on 127.0.0.1 (a free port) that plays ``turns`` in order."""

    def __init__(self, turns: list[Turn], *, protocol: str = "openai_chat", model: str = "fake-model") -> None:
        import importlib

        self.turns = list(turns)
        self.model = model
        #: every request body the agent sent, in order
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        handler: type[BaseHTTPRequestHandler] = importlib.import_module(f"{__package__}.{protocol}").Handler
        super().__init__(handler)
        self.httpd.fake = self  # type: ignore[attr-defined]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def next_turn(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.requests.append(body)
            turn = self.turns.pop(0) if self.turns else say(EXHAUSTED)
        if turn.before is not None:
            try:
                turn.before(body)
            except Exception as exc:  # seen by the test, not lost in a server thread
                self.errors.append(f"{type(exc).__name__}: {exc}")
        return turn

    def tool_results(self) -> list[str]:
        """The tool results (text) the agent sent in its last request, in order."""
        if not self.requests:
            return []
        out = []
        for message in self.requests[-1].get("messages", []):
            if message.get("role") == "tool":
                content = message.get("content")
                if isinstance(content, list):
                    content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
                out.append(str(content))
        return out


def read_json(handler: BaseHTTPRequestHandler) -> dict[str, Any]:
    length = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(length) if length else b"{}"
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        body = {}
    return body if isinstance(body, dict) else {}
