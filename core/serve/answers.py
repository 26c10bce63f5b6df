"""What the server writes back: an answer or a refusal as an HTTP/1.1 response.

One place for both the threaded handler (httpserver.py) and the workers, which write the whole
response of a host event themselves (worker.py) so the answering process only forwards bytes.
"""

from __future__ import annotations

import json
import time
from email.utils import formatdate
from http import HTTPStatus
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..bridges.base import HostAnswer

SERVER = "agent-hooks"


class Response(NamedTuple):
    status: int
    body: bytes
    headers: dict[str, str]
    content_type: str = "application/json"
    #: the answer's stderr lines to log (an http hook has no stderr)
    log: tuple[str, ...] = ()


def error(status: int, message: str) -> Response:
    """A refusal or our own failure: one line of JSON."""
    return Response(status, json.dumps({"error": message}).encode() + b"\n", {})


def host(answer: HostAnswer, command: bool) -> Response:
    """A host event's answer: for ``/hosts/<host>/command`` the per-event command's exit code,
    stdout and stderr; for ``/hosts/<host>`` what the host reads from a command hook's stdout
    (our failure on a non-gating event is a 500 with one line, the host's non-blocking error)."""
    from ..transports import dispatch

    stdout = dispatch.encode_body(answer.body) if answer.body is not None else b""
    if command:
        out = stdout + b"\n" if stdout else b""
        err = "".join(line.rstrip("\n") + "\n" for line in answer.stderr).encode("utf-8", "replace")
        return Response(200, out + err, {"X-Agent-Hooks-Exit-Code": str(answer.exit_code),
                                         "X-Agent-Hooks-Stdout-Length": str(len(out))},
                        "application/octet-stream")
    lines = tuple(answer.stderr)
    if answer.exit_code != 0 and answer.body is None:
        message = "; ".join(answer.stderr) or f"exit code {answer.exit_code}"
        return error(500, message)._replace(log=lines)
    return Response(200, (stdout or b"{}") + b"\n", {}, log=lines)


_date: tuple[int, str] = (0, "")


def _now() -> str:
    global _date
    second = int(time.time())
    if _date[0] != second:
        _date = (second, formatdate(second, usegmt=True))
    return _date[1]


def http(resp: Response) -> bytes:
    """The response's bytes, as ``http.server`` would write them."""
    try:
        phrase = HTTPStatus(resp.status).phrase
    except ValueError:
        phrase = ""
    head = [f"HTTP/1.1 {resp.status} {phrase}", f"Server: {SERVER}", f"Date: {_now()}",
            f"Content-Type: {resp.content_type}", f"Content-Length: {len(resp.body)}"]
    head.extend(f"{name}: {value}" for name, value in resp.headers.items())
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + resp.body
