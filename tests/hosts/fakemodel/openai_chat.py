"""OpenAI chat completions (``POST /v1/chat/completions``), streamed as SSE or as one JSON body."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from .script import Turn, call_id, read_json


def chunks(turn: Turn, model: str) -> list[dict[str, Any]]:
    """The stream of ``chat.completion.chunk`` objects for one turn."""
    base = {"id": f"chatcmpl-{call_id()}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

    out = [chunk({"role": "assistant", "content": ""})]
    if turn.text:
        out.append(chunk({"content": turn.text}))
    for index, (name, arguments) in enumerate(turn.calls):
        out.append(chunk({"tool_calls": [{"index": index, "id": call_id(), "type": "function",
                                          "function": {"name": name, "arguments": json.dumps(arguments)}}]}))
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    out.append(chunk({}, turn.finish_reason, usage=usage))
    return out


def completion(turn: Turn, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [{"id": call_id(), "type": "function",
                                  "function": {"name": n, "arguments": json.dumps(a)}} for n, a in turn.calls]
    return {"id": f"chatcmpl-{call_id()}", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": turn.finish_reason}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        fake = self.server.fake  # type: ignore[attr-defined]
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": fake.model, "object": "model", "owned_by": "fake"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        fake = self.server.fake  # type: ignore[attr-defined]
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        body = read_json(self)
        turn = fake.next_turn(body)
        if not body.get("stream"):
            self._json(200, completion(turn, fake.model))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in chunks(turn, fake.model):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True
