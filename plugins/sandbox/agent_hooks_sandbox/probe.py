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

#: how long a successful probe is trusted
PROBE_SECONDS = 300.0
_MEMO: dict[tuple[str, int], float] = {}

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


def _remembered(program: str, stamp: int) -> bool:
    now = time.time()
    if _MEMO.get((program, stamp), 0.0) > now:
        return True
    path = _cache_file()
    if path is None:
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if (isinstance(data, dict) and data.get("program") == program and data.get("mtime_ns") == stamp
            and isinstance(data.get("until"), (int, float)) and now < data["until"] <= now + PROBE_SECONDS):
        _MEMO[(program, stamp)] = float(data["until"])
        return True
    return False


def _remember(program: str, stamp: int) -> None:
    until = time.time() + PROBE_SECONDS
    _MEMO[(program, stamp)] = until
    path = _cache_file()
    if path is None:
        return
    try:
        from agent_hooks_core.fileio import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"program": program, "mtime_ns": stamp, "until": until}))
    except Exception:  # a cache that cannot be written only costs the next probe
        pass


def run_probe(program: str) -> str | None:
    """Run bubblewrap once with the namespaces the sandbox uses; the reason it failed, or None."""
    argv = [program, "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/",
            "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/sh", "-c", "exit 0"]
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
        hint if "namespace" in said.lower() or "permission" in said.lower() else "")


def unavailable(program: str | None, *, fresh: bool = False) -> str | None:
    """Why no sandbox can be made with ``program`` (None: it works)."""
    if program is None:
        return MISSING
    stamp = _stamp(program)
    if stamp is None:
        return MISSING
    if not fresh and _remembered(program, stamp):
        return None
    reason = run_probe(program)
    if reason is None:
        _remember(program, stamp)
    return reason
