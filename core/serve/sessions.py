"""Long-lived runtimes outside the server (``serve --stdio`` sessions) announce themselves here, so
``serve status`` and ``doctor`` can show, per session, which policy it enforces.

Each session keeps one small JSON file in the private run directory, ``sessions/<pid>.json``,
rewritten when its runtime is (re)loaded and removed when it ends; a file whose process is gone is
ignored and removed by the next reader.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from . import paths


def _dir() -> Path:
    return paths.runtime_dir() / "sessions"


def register(host: str, cwd: str, policy: str, loaded_at: float, error: str | None, missing: list[str]) -> None:
    """Record (or update) this process's session; never fails the session."""
    try:
        directory = _dir()
        directory.mkdir(mode=0o700, exist_ok=True)
        data = {"pid": os.getpid(), "host": host, "cwd": cwd, "policy": policy, "loaded_at": loaded_at,
                "error": error, "missing": missing, "updated": time.time()}
        tmp = directory / f".{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, directory / f"{os.getpid()}.json")
    except (OSError, ValueError):
        pass


def unregister() -> None:
    try:
        (_dir() / f"{os.getpid()}.json").unlink()
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def live() -> list[dict[str, Any]]:
    """The running sessions' records (stale ones are removed)."""
    try:
        directory = _dir()
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    out = []
    for name in names:
        if not name.endswith(".json"):
            continue
        path = directory / name
        try:
            if path.stat().st_size > 1 << 16:
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
            continue
        if not _alive(data["pid"]):
            try:
                path.unlink()
            except OSError:
                pass
            continue
        out.append(data)
    return out
