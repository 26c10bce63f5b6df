"""A scripted OpenAI chat-completions server on 127.0.0.1 for OpenCode (``@ai-sdk/openai-compatible``).

Only requests that offer tools (the agent's turns) use up the script: OpenCode also asks the
model for a session title, without tools, and that gets a fixed text. Every agent request is
kept; :meth:`tool_results` is what the model was shown after its tool calls.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from .fakemodel.server import LocalServer, unique


class FakeChat(LocalServer):
    def __init__(self, steps: list[tuple[str, str, dict[str, Any] | None]]) -> None:
        #: ("call", tool name, arguments) or ("text", message, None)
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []
        #: every request, the title ones too: what the model was ever shown
        self.all_requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "m1", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    req = json.loads(raw or b"{}")
                except ValueError:
                    req = {}
                with server.lock:
                    server.all_requests.append(req)
                if req.get("tools"):
                    with server.lock:
                        server.requests.append(req)
                        step = server.steps.pop(0) if server.steps else ("text", "done", None)
                else:
                    step = ("text", "A title", None)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in server.chunks(step):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        super().__init__(Handler)
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    @staticmethod
    def chunks(step: tuple[str, str, dict[str, Any] | None]) -> list[dict[str, Any]]:
        base = {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": "m1"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        kind, value, args = step
        out = [chunk({"role": "assistant", "content": ""})]
        if kind == "call":
            out.append(chunk({"tool_calls": [{"index": 0, "id": f"call_{time.monotonic_ns()}", "type": "function",
                                              "function": {"name": value, "arguments": json.dumps(args or {})}}]}))
            out.append(chunk({}, "tool_calls"))
        else:
            out.append(chunk({"content": value}))
            out.append(chunk({}, "stop"))
        out[-1]["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        return out

    def tool_results(self) -> list[str]:
        return unique(content if isinstance(content, str) else json.dumps(content)
                      for req in self.requests for message in req.get("messages") or []
                      if isinstance(message, dict) and message.get("role") == "tool"
                      for content in [message.get("content")])
