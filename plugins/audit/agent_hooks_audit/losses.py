"""Records lost for good, counted in a file that outlives the process that lost them.

A per-event process that can write neither the database nor a pending file exits right after
answering: a count kept in its memory would vanish with it. So each loss is one line appended to
the first loss file that takes it: next to the database, in the user state directory, or in the
per-user runtime directory (``XDG_RUNTIME_DIR``, else a private directory under the system temp
directory), the last being the one most likely writable when the disk or the home directory is
not. A line is one ``write`` on a descriptor opened with ``O_APPEND`` and is far below
``PIPE_BUF``: processes appending at once never interleave or overwrite each other's lines, and a
process killed mid-write leaves at most one incomplete line, which is not counted. ``audit stats``
and ``agenthooks doctor`` add up the complete lines of every loss file of a database.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path

#: a line stays well below PIPE_BUF (4096), so an append is one indivisible write
MAX_REASON = 300
_READ_CHUNK = 1 << 16


def _name(db: Path) -> str:
    digest = hashlib.sha256(str(db).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f"{db.stem}-{digest}.lost"


def _private_tmp() -> Path | None:
    """``<tmp>/agent-hooks-<uid>``, made 0700 by us; None when another user could have planted it."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return None
    path = Path(tempfile.gettempdir()) / f"agent-hooks-{getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != getuid() or info.st_mode & 0o077:
        return None
    return path


def loss_files(db: Path) -> list[Path]:
    """Where losses of ``db`` are counted, in the order a writer tries them."""
    from .options import state_dir

    name = _name(db)
    files = [db.with_name(db.name + ".lost"), state_dir() / "audit-lost" / name]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "agent-hooks" if runtime and os.path.isabs(runtime) else _private_tmp()
    if base is not None:
        files.append(base / "audit-lost" / name)
    return files


def count_loss(db: Path, reason: str) -> Path | None:
    """Count one lost record of ``db``; the file that took it, or None when none could."""
    line = json.dumps({"ts": round(time.time(), 3), "pid": os.getpid(), "reason": reason[:MAX_REASON]},
                      ensure_ascii=True).encode() + b"\n"
    for path in loss_files(db):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:
            continue
        try:
            if os.write(fd, line) == len(line):
                return path
        except OSError:
            continue
        finally:
            os.close(fd)
    return None


def counted_losses(db: Path) -> int:
    """Complete lines in every loss file of ``db`` (a file that cannot be read counts nothing)."""
    total = 0
    for path in dict.fromkeys(loss_files(db)):
        try:
            with open(path, "rb") as fh:
                while chunk := fh.read(_READ_CHUNK):
                    total += chunk.count(b"\n")
        except OSError:
            pass
    return total
