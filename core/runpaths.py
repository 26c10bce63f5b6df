"""Where this user's agent-hooks server keeps its socket, pid file and lock (one server per
user, agent-hooks home and Python environment: each environment has its own plugins). Both sides
use it: the server (``serve``) binds there and the hosts' clients (``transports``) connect there.

* the directory: the user runtime directory (``$XDG_RUNTIME_DIR``, else ``/run/user/<uid>`` when
  it is the user's own), or ``$AGENT_HOOKS_HOME/run`` when that is set (tests). Without either, or
  when the socket path would exceed the AF_UNIX limit, a directory in the temporary directory whose
  name carries a per-user secret (``<user dir>/run-key``, 0600): no other user can predict it to
  pre-create it. Whatever the place, the directory must be a real directory (not a symlink) owned
  by the user and is made 0700, or nothing is served from it. platformdirs' runtime directory is
  never asked for (it warns on stderr when it has none).
"""

from __future__ import annotations

import os
import stat
import sys
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path

#: AF_UNIX paths are limited to 108 bytes on Linux, 104 on macOS (with the NUL)
MAX_SOCKET_PATH = 100


def home_env() -> str:
    """``$AGENT_HOOKS_HOME`` (tests and isolated installs), or "" when unset."""
    return os.environ.get("AGENT_HOOKS_HOME", "")


def identity() -> str:
    """A short stable name for this user's server in this environment."""
    raw = "\0".join([home_env(), sys.prefix]).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(raw):08x}"


class RunDirError(OSError):
    """The run directory cannot be made safe (one line for the user)."""


def _private_dir(path: Path) -> Path:
    """``path`` as a directory only this user can enter; RunDirError when it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.lstat(path)
    except OSError as exc:
        raise RunDirError(f"cannot create the run directory {path}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise RunDirError(f"the run directory {path} is not a directory (a symlink?): remove it")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise RunDirError(f"the run directory {path} belongs to another user (uid {st.st_uid}): remove it")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def _own_dir(path: str | None) -> bool:
    """True when ``path`` is an existing directory of this user that nobody else can enter."""
    if not path:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid()) \
        and not st.st_mode & 0o022


def _base(tmp: Callable[[], Path | None]) -> Path | None:
    """The run directory's path (not made), with ``tmp()`` for the temporary-directory fallback."""
    home = home_env()
    if home:
        base: Path | None = Path(home).expanduser() / "run"
    else:
        uid = os.getuid() if hasattr(os, "getuid") else None
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        run_user = f"/run/user/{uid}" if uid is not None else None
        if _own_dir(xdg):
            base = Path(str(xdg)) / "agent-hooks"
        elif _own_dir(run_user):
            base = Path(str(run_user)) / "agent-hooks"
        else:
            base = tmp()
    if base is not None and len(str(base / f"serve-{identity()}.sock")) > MAX_SOCKET_PATH:
        base = tmp()
    return base


def runtime_dir() -> Path:
    base = _base(_tmp_dir)
    assert base is not None  # _tmp_dir always names one
    return _private_dir(base)


def _run_key() -> str:
    """A per-user secret (made on first use) that names the temporary run directory."""
    from .settings import user_dir

    path = user_dir() / "run-key"
    try:
        text = path.read_text(encoding="ascii").strip()
        if text:
            return text
    except (OSError, UnicodeDecodeError):
        pass
    import secrets

    value = secrets.token_hex(8)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made by a process that raced us: use theirs
        return path.read_text(encoding="ascii").strip() or value
    except OSError as exc:
        raise RunDirError(f"cannot keep the run directory's key in {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(value + "\n")
    return value


def _tmp_dir(key: str | None = None, tmp: str | None = None) -> Path:
    import hashlib
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    raw = (home_env() + "\0" + (key if key is not None else _run_key())).encode("utf-8", "surrogateescape")
    return Path(tmp or tempfile.gettempdir()) / f"agent-hooks-{uid}-{hashlib.sha256(raw).hexdigest()[:16]}"


def socket_path() -> Path:
    return runtime_dir() / f"serve-{identity()}.sock"


def pid_path() -> Path:
    return runtime_dir() / f"serve-{identity()}.pid"


def lock_path() -> Path:
    return runtime_dir() / f"serve-{identity()}.lock"


# -- for the per-event process: the running server's socket, and whether it serves our inputs --

#: the variables that decide where the settings, caches and hosts' configurations are (and so the
#: control plane's protected set, :mod:`.controlplane`). Looked up one by one: iterating os.environ
#: costs ~50 µs.
ENV_KEYS = ("AGENT_HOOKS_HOME", "HOME", "PATH", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
            "XDG_STATE_HOME", "XDG_DATA_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR",
            "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "COPILOT_HOME", "KIMI_SHARE_DIR", "VIBE_HOME")
#: our own variables that belong to one event or one process, not to what the server runs
PER_PROCESS = ("AGENT_HOOKS_ANSWER_BY", "AGENT_HOOKS_RELAY", "AGENT_HOOKS_BRIDGE_WORKER",
               "AGENT_HOOKS_SERVE_AUTOSTART")


def environment_key(env: Mapping[str, str] | None = None) -> str:
    """What, beside the files the server watches, decides what a runtime built here would run:
    this Python environment (``sys.prefix``), :data:`ENV_KEYS` (``AGENT_HOOKS_HOME`` among them:
    with the prefix, what :func:`identity` is made of), our own variables and ``sys.path``.
    Two processes with the same key build the same runtime from the same files, so the warm server
    may answer for a per-event process only when their keys are equal."""
    environ = os.environ if env is None else env
    parts = [sys.prefix, *(f"{k}={environ[k]}" if k in environ else k for k in ENV_KEYS)]
    parts += sorted(f"{k}={v}" for k, v in environ.items() if k.startswith("AGENT_HOOKS_") and k not in PER_PROCESS)
    parts += ["", *(p for p in sys.path if p not in _script_dirs())]
    return f"{zlib.crc32(chr(0).join(parts).encode('utf-8', 'surrogateescape')):08x}"


def _script_dirs() -> tuple[str, ...]:
    """The ``sys.path`` entries Python put there for how this process was started, not for what it
    imports: the console script's own directory (``agenthooks serve start``) or the working
    directory of ``-c`` (``python -I -m`` adds neither). A server started either way answers for
    the same per-event processes."""
    script = sys.argv[0] if sys.argv else ""
    return ("", os.path.dirname(os.path.abspath(script))) if script and script != "-c" else ("",)


def _private(path: Path) -> bool:
    """True when ``path`` is a real directory of this user that nobody else can enter (as made by
    :func:`_private_dir`), checked without making or changing anything."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid()) \
        and not st.st_mode & 0o077


def _fixed_tmp_dir() -> Path | None:
    """The temporary run directory when no variable but the ones that place the settings moves it:
    the system's temporary directory (no ``TMPDIR``/``TEMP``/``TMP``) and an existing run key."""
    if any(os.environ.get(v) for v in ("TMPDIR", "TEMP", "TMP")):
        return None
    from .settings import user_dir

    try:
        key = (user_dir() / "run-key").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return _tmp_dir(key, "/tmp") if key and os.path.isdir("/tmp") else None


def server_socket() -> str | None:
    """The socket of the server ``serve start`` would run for this user and environment, when it
    exists, for the per-event process to hand its event to; None when there is none or when its
    place depends on a variable that places nothing else (a ``TMPDIR``, or an ``XDG_RUNTIME_DIR``
    other than ``/run/user/<uid>``): such a variable, set for a nested agent, must not send its
    events to a server of the agent's making. Makes nothing (no directory, no run key)."""
    base = _served_base(_fixed_tmp_dir)
    if base is None or not _private(base):
        return None
    path = base / f"serve-{identity()}.sock"
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISSOCK(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return None
    return str(path)


def _served_base(tmp: Callable[[], Path | None]) -> Path | None:
    """The run directory's path (not made) when no variable that places nothing else decides it:
    None for an ``XDG_RUNTIME_DIR`` other than ``/run/user/<uid>``, and wherever ``tmp()`` says so."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if not home_env() and xdg and hasattr(os, "getuid") and os.path.realpath(xdg) != f"/run/user/{os.getuid()}":
        return None
    return _base(tmp)


def _made_tmp_dir() -> Path | None:
    """:func:`_fixed_tmp_dir`, with the run key made when there is none yet."""
    if any(os.environ.get(v) for v in ("TMPDIR", "TEMP", "TMP")) or not os.path.isdir("/tmp"):
        return None
    return _tmp_dir(None, "/tmp")


def autostart_dir() -> Path | None:
    """The run directory (made 0700) of a server the per-event process may start in the background:
    the one :func:`server_socket` looks in, so that the next event finds it; None when
    :func:`server_socket` would look nowhere (a ``TMPDIR``, a foreign ``XDG_RUNTIME_DIR``) or the
    directory cannot be made safe."""
    try:
        base = _served_base(_made_tmp_dir)
        return _private_dir(base) if base is not None else None
    except OSError:  # RunDirError among them: no autostart, the event was answered anyway
        return None
