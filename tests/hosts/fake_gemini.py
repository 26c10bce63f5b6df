"""A scripted Gemini API on 127.0.0.1 for Gemini CLI (``GOOGLE_GEMINI_BASE_URL``).

``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` gets the next scripted step as
server-sent events: a ``run_shell_command`` function call or a text reply. Side requests
(``generateContent`` for Gemini's own helpers, ``countTokens``) get neutral answers and do not
use up the script. Every streamed request is kept: :meth:`tool_outputs` is what the model saw.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from .fakemodel.server import LocalServer, unique

USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


class FakeGemini(LocalServer):
    def __init__(self, steps: list[tuple[str, str]]) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []
        self.side: list[str] = []
        #: the side requests' bodies: what Gemini's helpers showed the model
        self.side_requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._send(200, b'{"models": []}', "application/json")

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    req = json.loads(raw or b"{}")
                except ValueError:
                    req = {}
                path = self.path.split("?")[0]
                if path.endswith(":streamGenerateContent"):
                    with server.lock:
                        server.requests.append(req)
                        step = server.steps.pop(0) if server.steps else ("text", "done")
                    chunk = {"candidates": [{"content": {"role": "model", "parts": [server.part(step)]},
                                             "finishReason": "STOP", "index": 0}], "usageMetadata": USAGE}
                    self._send(200, f"data: {json.dumps(chunk)}\n\n".encode(), "text/event-stream")
                elif path.endswith(":countTokens"):
                    self._send(200, b'{"totalTokens": 10}', "application/json")
                elif path.endswith(":generateContent"):
                    server.side.append(path)
                    server.side_requests.append(req)
                    reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": "{}"}]},
                                             "finishReason": "STOP", "index": 0}], "usageMetadata": USAGE}
                    self._send(200, json.dumps(reply).encode(), "application/json")
                else:
                    self._send(404, b"{}", "application/json")

        super().__init__(Handler)

    @staticmethod
    def part(step: tuple[str, str]) -> dict[str, Any]:
        kind, value = step
        if kind == "shell":
            return {"functionCall": {"name": "run_shell_command", "args": {"command": value}}}
        if kind == "call":  # value: JSON {"name":…, "args":…}
            return {"functionCall": json.loads(value)}
        return {"text": value}

    def tool_outputs(self) -> list[str]:
        return unique(json.dumps(fr.get("response"), ensure_ascii=False)
                      for req in self.requests for content in req.get("contents") or []
                      for part in (content.get("parts") or [] if isinstance(content, dict) else [])
                      for fr in [part.get("functionResponse") if isinstance(part, dict) else None]
                      if isinstance(fr, dict))
