"""Writing files that others read concurrently: atomic replacement and an advisory edit lock.

Used by settings edits, the trust store, the entry-point cache, host installers and the chibi
schema cache. A reader (or a crash) sees the old file or the new one, never half of either; two
processes that edit the same file under :func:`locked` do not lose each other's changes.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path


def atomic_write(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` so that a reader (or a crash) sees the old file or the new one.

    A temporary file in the same directory is written, flushed and fsynced, then renamed over
    the target with ``os.replace``; the original's permission bits are kept (``mode`` overrides
    them), and a new file gets the usual umask-derived bits rather than mkstemp's 0600.
    """
    import tempfile  # not at the top: shutil and random are start-up time for every bridge process

    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dirfd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(dirfd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(dirfd)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock for a read-modify-write of ``path``.

    ``path`` itself cannot carry the lock, since :func:`atomic_write` replaces it (a lock on a
    replaced inode protects nothing). On POSIX the lock is on the file's directory, which leaves
    no lock file behind; elsewhere it is a ``.<name>.lock`` file beside it. Blocks until the lock
    is free; the OS releases it if the holder dies. Not re-entrant: never nest two edits.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        fd = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            while True:
                try:
                    msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.close(fd)
        return
    import fcntl

    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
