"""Who may be served, and how long a request may take to arrive: the rules both the threaded
handler (httpserver.py) and the answering loop (loop.py) apply."""

from __future__ import annotations

import hmac
import os

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def _seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


#: seconds a request's line, headers and body may take to arrive (from its first line);
#: ``AGENT_HOOKS_SERVE_READ_TIMEOUT`` overrides it (tests)
READ_TIMEOUT = _seconds("AGENT_HOOKS_SERVE_READ_TIMEOUT", 10.0)
#: seconds an idle keep-alive connection is kept
IDLE_TIMEOUT = 300.0


def allowed(peer: str, host: str | None, token: str | None, authorization: str | None, secret: str) -> str | None:
    """None when a TCP request may be served, else why not: a loopback peer, a ``Host`` naming a
    loopback address (DNS rebinding), and the user's token (compared in constant time)."""
    if peer not in ("127.0.0.1", "::1") and not peer.startswith("::ffff:127."):
        return f"not a loopback peer ({peer})"
    host = (host or "").strip()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name.lower() not in LOOPBACK_HOSTS:
        return f"Host header {host!r} is not a loopback address"
    token = token or ""
    auth = authorization or ""
    if not token and auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    if not token or not hmac.compare_digest(token.encode(), secret.encode()):
        return "missing or wrong X-Agent-Hooks-Token"
    return None
