"""The server's own files and its HTTP port; where its socket lives is :mod:`agent_hooks_core.runpaths`
(the clients in ``transports`` need that too).

* the HTTP token: ``<user dir>/serve-token`` (0600), stable across restarts because the hosts'
  configs carry it;
* the log: the platform's user log directory (``$AGENT_HOOKS_HOME/log``);
* the port: ``$AGENT_HOOKS_SERVE_PORT``, else ``[serve] port`` in the user settings, else a port
  derived from the environment (so two environments do not collide).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..runpaths import (
    MAX_SOCKET_PATH,
    RunDirError,
    home_env,
    identity,
    lock_path,
    pid_path,
    runtime_dir,
    socket_path,
)

__all__ = ["BASE_PORT", "ENV_PORT", "MAX_SOCKET_PATH", "RunDirError", "identity", "lock_path", "log_path",
           "pid_path", "port", "runtime_dir", "socket_path", "token", "token_path"]

ENV_PORT = "AGENT_HOOKS_SERVE_PORT"
#: the first of the derived default ports
BASE_PORT = 47300


def token_path() -> Path:
    from ..settings import user_dir

    return user_dir() / "serve-token"


def log_path() -> Path:
    home = home_env()
    if home:
        return Path(home).expanduser() / "log" / "serve.log"
    import platformdirs

    return Path(platformdirs.user_log_dir("agent-hooks", appauthor=False)) / "serve.log"


def token(create: bool = True) -> str | None:
    """The per-user secret HTTP clients send (``X-Agent-Hooks-Token``); made on first use."""
    path = token_path()
    try:
        text = path.read_text(encoding="ascii").strip()
        if text:
            return text
    except (OSError, UnicodeDecodeError):
        pass
    if not create:
        return None
    import secrets

    value = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(value + "\n")
    return value


def port() -> int:
    """The HTTP port (0: any free port, for tests)."""
    env = os.environ.get(ENV_PORT)
    if env is not None and env.strip():
        return int(env)
    try:
        from ..settings import load_settings

        value = load_settings().user.get("serve")
        if isinstance(value, dict) and isinstance(value.get("port"), int):
            return int(value["port"])
    except Exception:  # settings problems are reported by doctor; the port falls back
        pass
    return BASE_PORT + int(identity(), 16) % 500
