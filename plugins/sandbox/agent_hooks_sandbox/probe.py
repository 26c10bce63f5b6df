"""Can bubblewrap make a sandbox here? (installed, and the kernel lets it create namespaces)

A probe runs bubblewrap once (about as long as the command it would wrap), so a success is
remembered for :data:`PROBE_SECONDS` in memory and in the agent-hooks cache directory, keyed on
the program's path and modification time. Only a success is remembered: a stale "works" costs
nothing unsafe (the wrapped command then fails to start instead of running), a stale "broken"
could not be told from a real one.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

#: how long a successful probe is trusted
PROBE_SECONDS = 300.0
_MEMO: dict[tuple[str, int], dict[str, Any]] = {}

MISSING = ("bubblewrap (bwrap) is not installed: install the `bubblewrap` package "
           "(apt-get install bubblewrap, dnf install bubblewrap)")


def _stamp(program: str) -> int | None:
    try:
        return os.stat(program).st_mtime_ns
    except OSError:
        return None


def _cache_file() -> Path | None:
    try:
        from agent_hooks_core.settings import cache_dir

        return cache_dir() / "sandbox-probe.json"
    except Exception:
        return None


def _remembered(program: str, stamp: int) -> dict[str, Any] | None:
    now = time.time()
    hit = _MEMO.get((program, stamp))
    if hit is not None and hit["until"] > now:
        return hit
    path = _cache_file()
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (isinstance(data, dict) and data.get("program") == program and data.get("mtime_ns") == stamp
            and isinstance(data.get("until"), (int, float)) and now < data["until"] <= now + PROBE_SECONDS
            and isinstance(data.get("disable_userns"), bool) and isinstance(data.get("perms"), bool)):
        _MEMO[(program, stamp)] = data
        return data
    return None


def _remember(program: str, stamp: int, disable_userns: bool, perms: bool) -> None:
    data = {"program": program, "mtime_ns": stamp, "until": time.time() + PROBE_SECONDS,
            "disable_userns": disable_userns, "perms": perms}
    _MEMO[(program, stamp)] = data
    path = _cache_file()
    if path is None:
        return
    try:
        from agent_hooks_core.fileio import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(data))
    except Exception:  # a cache that cannot be written only costs the next probe
        pass


def _options(program: str) -> str:
    """bubblewrap's ``--help`` text (the options this version has)."""
    try:
        res = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return res.stdout + res.stderr


def tmpfs_perms(program: str | None) -> bool:
    """Whether ``program`` takes ``--perms`` before ``--tmpfs`` (as the last successful probe found):
    an empty directory is then one tmpfs of mode 0555, with no read-only remount after it, which
    costs bubblewrap a pass over the mount table per path."""
    stamp = _stamp(program) if program else None
    hit = _remembered(program, stamp) if program and stamp is not None else None
    return bool(hit and hit["perms"])


def isolation(disable_userns: bool) -> list[str]:
    """The namespace and capability options every sandbox gets.

    A user namespace with every capability dropped: even as root, nothing inside can unmount what
    hides a credential store or remount ``/`` writable. ``--disable-userns`` (bubblewrap 0.8+)
    also stops the command from making a nested user namespace.
    """
    return ["--die-with-parent", "--new-session", "--unshare-user", *(["--disable-userns"] if disable_userns else []),
            "--cap-drop", "ALL", "--unshare-pid", "--as-pid-1", "--unshare-ipc"]


def run_probe(program: str, disable_userns: bool, perms: bool = False) -> str | None:
    """Run bubblewrap once with the options the sandbox uses; the reason it failed, or None.
    ``perms``: with an empty directory of mode 0555 (``--perms`` before ``--tmpfs``), checked to be
    one inside."""
    empty = ["--perms", "0555", "--tmpfs", "/tmp/.empty"] if perms else []
    check = 'test "$(stat -c %a /tmp/.empty)" = 555' if perms else "exit 0"
    argv = [program, *isolation(disable_userns), "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev",
            "--proc", "/proc", "--tmpfs", "/tmp", *empty, "--", "/bin/sh", "-c", check]
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap ({program}) cannot run: {exc}"
    if res.returncode == 0:
        return None
    said = " ".join((res.stderr or "").split())[:300] or f"exit status {res.returncode}"
    hint = (" (user namespaces are off: sysctl kernel.unprivileged_userns_clone=1 or "
            "user.max_user_namespaces > 0, or an AppArmor profile for bwrap)")
    return f"bubblewrap ({program}) cannot create a sandbox here: {said}" + (
        hint if "namespace" in said.lower() or "permission" in said.lower() or "uid map" in said.lower() else "")


def check(program: str | None, *, fresh: bool = False) -> tuple[str | None, list[str]]:
    """(why no sandbox can be made with ``program`` or None, the isolation options to use)."""
    if program is None:
        return MISSING, isolation(False)
    stamp = _stamp(program)
    if stamp is None:
        return MISSING, isolation(False)
    hit = None if fresh else _remembered(program, stamp)
    if hit is not None:
        return None, isolation(bool(hit["disable_userns"]))
    options = _options(program)
    disable_userns = "--disable-userns" in options
    reason = run_probe(program, disable_userns)
    if reason is None:
        perms = "--perms" in options and run_probe(program, disable_userns, perms=True) is None
        _remember(program, stamp, disable_userns, perms)
    return reason, isolation(disable_userns)


def unavailable(program: str | None, *, fresh: bool = False) -> str | None:
    """Why no sandbox can be made with ``program`` (None: it works)."""
    return check(program, fresh=fresh)[0]
