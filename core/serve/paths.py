"""Where the server's files live, and its HTTP port (one server per user, agent-hooks home and
Python environment: each environment has its own plugins).

* the unix socket, pid file and lock: the user runtime directory (``$XDG_RUNTIME_DIR``), made
  0700; ``$AGENT_HOOKS_HOME/run`` when that is set (tests); a short ``/tmp`` directory when the
  path would exceed the AF_UNIX limit;
* the HTTP token: ``<user dir>/serve-token`` (0600), stable across restarts because the hosts'
  configs carry it;
* the log: the platform's user log directory (``$AGENT_HOOKS_HOME/log``);
* the port: ``$AGENT_HOOKS_SERVE_PORT``, else ``[serve] port`` in the user settings, else a port
  derived from the environment (so two environments do not collide).
"""

from __future__ import annotations

import os
import sys
import tempfile
import zlib
from pathlib import Path

ENV_PORT = "AGENT_HOOKS_SERVE_PORT"
#: the first of the derived default ports
BASE_PORT = 47300
#: AF_UNIX paths are limited to 108 bytes on Linux, 104 on macOS (with the NUL)
MAX_SOCKET_PATH = 100


def _home_env() -> str:
    return os.environ.get("AGENT_HOOKS_HOME", "")


def identity() -> str:
    """A short stable name for this user's server in this environment."""
    raw = "\0".join([_home_env(), sys.prefix]).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(raw):08x}"


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = path.stat()
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise PermissionError(f"{path} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def runtime_dir() -> Path:
    home = _home_env()
    if home:
        base = Path(home).expanduser() / "run"
    else:
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        if xdg and os.path.isdir(xdg):
            base = Path(xdg) / "agent-hooks"
        else:
            import platformdirs

            base = Path(platformdirs.user_runtime_dir("agent-hooks", appauthor=False))
            if not _writable_parent(base):
                base = _tmp_dir()
    if len(str(base / f"serve-{identity()}.sock")) > MAX_SOCKET_PATH:
        base = _tmp_dir()
    return _private_dir(base)


def _writable_parent(path: Path) -> bool:
    for parent in (path, *path.parents):
        if parent.exists():
            return os.access(parent, os.W_OK)
    return False


def _tmp_dir() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    raw = _home_env().encode("utf-8", "surrogateescape")
    return Path(tempfile.gettempdir()) / f"agent-hooks-{uid}-{zlib.crc32(raw):08x}"


def socket_path() -> Path:
    return runtime_dir() / f"serve-{identity()}.sock"


def pid_path() -> Path:
    return runtime_dir() / f"serve-{identity()}.pid"


def lock_path() -> Path:
    return runtime_dir() / f"serve-{identity()}.lock"


def token_path() -> Path:
    from ..settings import user_dir

    return user_dir() / "serve-token"


def log_path() -> Path:
    home = _home_env()
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
