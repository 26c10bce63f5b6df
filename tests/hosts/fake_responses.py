"""A scripted OpenAI Responses API on 127.0.0.1 for Codex (``wire_api = "responses"``).

Each ``POST /v1/responses`` gets the next scripted step, streamed as server-sent events: a shell
tool call (in whichever shell tool the request offers) or a text message. Every request body is
kept, so a test reads exactly what the model was shown (the tool output, a hook's reason).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from .fakemodel.server import LocalServer, unique


def _tool_call(tools: list[dict[str, Any]], command: str, call_id: str, escalate: bool = False) -> dict[str, Any]:
    names = {t.get("name"): t for t in tools if isinstance(t, dict)}
    if "shell_command" in names:
        name, args = "shell_command", {"command": command}
    elif "exec_command" in names:
        name, args = "exec_command", {"cmd": command}
    else:
        name, args = "shell", {"command": ["bash", "-lc", command]}
    if escalate:  # the model asks to run it outside the sandbox: Codex asks for approval
        args.update(sandbox_permissions="require_escalated", justification="the test needs it")
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(args), "status": "completed"}


class FakeResponses(LocalServer):
    def __init__(self, steps: list[tuple[str, str]]) -> None:
        #: ("shell", command), ("escalated", command) (a shell call asking to leave the sandbox) or
        #: ("text", message); past the end: a final "done" message
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [], "models": []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    req = json.loads(raw or b"{}")
                except ValueError:
                    req = {}
                if not self.path.rstrip("/").endswith("/responses"):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                with server.lock:
                    server.requests.append(req)
                    n = len(server.requests)
                    step = server.steps.pop(0) if server.steps else ("text", "done")
                events = server.events(req, step, n)
                payload = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        super().__init__(Handler)

    def events(self, req: dict[str, Any], step: tuple[str, str], n: int) -> list[dict[str, Any]]:
        rid = f"resp_{n}"
        kind, value = step
        if kind in ("shell", "escalated"):
            item = _tool_call(req.get("tools") or [], value, f"call_{n}", escalate=kind == "escalated")
        else:
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": value, "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        return [
            {"type": "response.created", "response": {"id": rid}},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {"id": rid, "usage": usage, "output": [item]}},
        ]

    def tool_outputs(self) -> list[str]:
        """Every function_call_output the model was sent (the last request holds them all)."""
        return unique(out if isinstance(out, str) else json.dumps(out)
                      for req in self.requests for item in req.get("input") or []
                      if isinstance(item, dict) and item.get("type") == "function_call_output"
                      for out in [item.get("output")])
