"""A test client for ``agenthooks serve --stdio``: the real server in a subprocess, driven line by line.

``Session(tmp_path, plugin_source)`` writes the plugin to a file and starts
``python -I -m agent_hooks_core serve --stdio --hook FILE`` (installed plugins not autoloaded, so
only that plugin runs). ``call(method, params)`` sends a request and returns the response;
requests the server sends meanwhile (``ui.*``) are answered by ``ui_answers`` and every
notification it sends is kept in ``notifications``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any


class Session:
    def __init__(self, tmp: Path, plugin: str | None = None, *, extra_args: list[str] | None = None,
                 ui_answers: dict[str, Any] | None = None) -> None:
        args = ["serve", "--stdio", *(extra_args or [])]
        if plugin is not None:
            path = tmp / "stdio_plugin.py"
            path.write_text("from agent_hooks_core import hookimpl\n\n" + textwrap.dedent(plugin), encoding="utf-8")
            args += ["--hook", str(path)]
        env = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
        self.proc = subprocess.Popen([sys.executable, "-I", "-m", "agent_hooks_core", *args], cwd=tmp, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.cwd = tmp
        self.ui_answers = ui_answers or {}
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self._id = 0
        self._stderr: list[bytes] = []
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True).start()  # type: ignore[arg-type]

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    def send_raw(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the server closed stdout; stderr:\n{self.stderr}"
        return json.loads(line)  # type: ignore[no-any-return]

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole response object (``result`` or ``error``)."""
        self._id += 1
        my_id = self._id
        self.send_raw(json.dumps({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params or {}}).encode())
        while True:
            msg = self.read()
            if "method" in msg:
                self._serve(msg)
                continue
            assert msg.get("id") == my_id, msg
            return msg

    def result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        msg = self.call(method, params)
        assert "result" in msg, msg
        return msg["result"]

    def _serve(self, msg: dict[str, Any]) -> None:
        if "id" not in msg:
            self.notifications.append(msg)
            return
        self.server_requests.append(msg)
        method = msg["method"]
        if method in self.ui_answers:
            reply: dict[str, Any] = {"result": self.ui_answers[method]}
        else:
            reply = {"error": {"code": -32601, "message": f"test client has no {method}"}}
        self.send_raw(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **reply}).encode())

    def initialize(self, host: str = "pi", **params: Any) -> dict[str, Any]:
        return self.result("initialize", {"host": host, "cwd": str(self.cwd), **params})  # type: ignore[no-any-return]

    def event(self, name: str, payload: Any, host: str | None = None) -> dict[str, Any]:
        params = {"name": name, "payload": payload, **({"host": host} if host else {})}
        return self.result("event", params)  # type: ignore[no-any-return]

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        if self.proc.stdout:
            self.proc.stdout.close()
        return code
