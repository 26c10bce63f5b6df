"""What ``serve status`` and ``doctor`` say about the warm server and the stdio sessions: is one
running, who holds its port when it cannot serve, and per server runtime and per session which
policy it enforces (its content hash and load time) and whether that is what is on disk."""

from __future__ import annotations

import time
from typing import Any

from . import paths


def _when(epoch: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(epoch)))
    except (TypeError, ValueError):
        return "?"


def policy_lines(st: dict[str, Any] | None) -> list[str]:
    """One line per warm runtime of the server (``st``: its status) and per stdio session."""
    from . import sessions

    lines = []
    for p in (st or {}).get("policies") or []:
        state = "matches disk" if p.get("matches_disk") else "disk changed: reloads on the next event"
        if p.get("error"):
            state = p["error"]
        if p.get("missing"):
            state = f"gating plugin {', '.join(p['missing'])} missing: gating hooks deny"
        lines.append(f"server {p.get('cwd')}: policy {p.get('policy')} loaded {_when(p.get('loaded_at'))}"
                     f" (worker {p.get('worker', '-')}); {state}")
    for s in sessions.live():
        state = s.get("error") or ("gating plugin " + ", ".join(s["missing"]) + " missing: gating hooks deny"
                                   if s.get("missing") else "matches disk (watched)")
        lines.append(f"{s.get('host')} session pid {s.get('pid')} {s.get('cwd')}: policy {s.get('policy')} "
                     f"loaded {_when(s.get('loaded_at'))}; {state}")
    return lines


def port_problem(port: int | None = None) -> str | None:
    """Why the server could not serve HTTP on its port now (it is taken), or None."""
    import errno
    import socket

    number = paths.port() if port is None else port
    if not number:
        return None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", number))
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            return f"HTTP port 127.0.0.1:{number}: {exc.strerror or exc}"
        from .peers import port_holder

        return f"HTTP port 127.0.0.1:{number} is taken by {port_holder(number)}"
    finally:
        sock.close()
    return None


def findings() -> list[tuple[str, str]]:
    """(level, message) for ``doctor``: ok, info, warning or error."""
    from . import server
    from .peers import other_users

    out: list[tuple[str, str]] = []
    try:
        sock = paths.socket_path()
    except OSError as exc:
        return [("error", str(exc))]
    st = server.status(timeout=3.0)
    if st is None:
        out.append(("info", f"not running (socket {sock}); `agenthooks serve start` starts it"))
        problem = port_problem()
        if problem is not None:
            out.append(("error", f"{problem}: `agenthooks serve start` fails until it is free or another port "
                                 f"is set ([serve] port, {paths.ENV_PORT})"))
    else:
        http = st.get("http") or "off"
        out.append(("ok", f"running: pid {st.get('pid')}, {st.get('socket')}, http {http}, "
                          f"{len(st.get('workers') or [])} worker(s)"))
        for error in st.get("policy_errors") or []:
            out.append(("error", f"server: {error}"))
        if st.get("http") and other_users():
            out.append(("warning", f"other users have logins here ({', '.join(other_users()[:5])}): while the "
                                   "server is down, one of them could take its HTTP port and receive the token "
                                   "hosts send; prefer the unix socket (the fast client) on shared machines"))
    for line in policy_lines(st):
        level = "ok" if line.endswith(("matches disk", "matches disk (watched)")) else "warning"
        out.append((level, line))
    return out
