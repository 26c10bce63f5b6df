"""A scripted Anthropic Messages API on 127.0.0.1 for ``claude -p`` (``ANTHROPIC_BASE_URL``).

``POST /v1/messages?beta=true`` is answered from the conversation itself, so side requests
(titles, quota probes: no Bash tool offered) never eat the script: a request offering the Bash
tool whose last user turn holds no tool_result gets a ``tool_use`` of Bash with the scripted
command; once the tool_result is there, a final text turn. Streamed as server-sent events when
the request asks for ``stream``. ``/v1/messages/count_tokens`` gets a fixed count; anything else
(the ``HEAD /api/hello`` warm-up probe) a 404. Every request body is kept, so a test reads
exactly what the model was shown (the tool output, a hook's reason).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from .fakemodel.server import LocalServer, unique


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return json.dumps(content)


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


class FakeAnthropic(LocalServer):
    def __init__(self, command: str, final: str = "done") -> None:
        self.command = command
        self.final = final
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_HEAD(self) -> None:
                self._send(404, b"")

            def do_GET(self) -> None:
                self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"no"}}')

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    req = json.loads(raw or b"{}")
                except ValueError:
                    req = {}
                path = self.path.split("?", 1)[0].rstrip("/")
                if path.endswith("/v1/messages/count_tokens"):
                    self._send(200, b'{"input_tokens": 10}')
                    return
                if not path.endswith("/v1/messages"):
                    self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"no"}}')
                    return
                with server.lock:
                    server.requests.append(req)
                    n = len(server.requests)
                message = server.reply(req, n)
                if req.get("stream"):
                    self._send(200, _sse(server.events(message)), "text/event-stream")
                else:
                    self._send(200, json.dumps(message).encode())

        super().__init__(Handler)

    def reply(self, req: dict[str, Any], n: int) -> dict[str, Any]:
        tools = {t.get("name") for t in req.get("tools") or [] if isinstance(t, dict)}
        messages = req.get("messages") or []
        last = messages[-1] if messages else {}
        answered = isinstance(last.get("content"), list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in last["content"])
        if "Bash" in tools and not answered:
            block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": "Bash",
                                     "input": {"command": self.command, "description": "scripted"}}
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": self.final}, "end_turn"
        return {"id": f"msg_{n:04d}", "type": "message", "role": "assistant", "model": req.get("model", "fake"),
                "content": [block], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}

    @staticmethod
    def events(message: dict[str, Any]) -> list[dict[str, Any]]:
        block = message["content"][0]
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        head = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
        return [
            {"type": "message_start", "message": head},
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
             "usage": {"output_tokens": 5}},
            {"type": "message_stop"},
        ]

    def tool_results(self) -> list[str]:
        """Every tool_result the model was sent, as text, in order, without repeats."""
        return unique(_text_of(b.get("content")) for req in self.requests for msg in req.get("messages") or []
                      if isinstance(msg.get("content"), list)
                      for b in msg["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
