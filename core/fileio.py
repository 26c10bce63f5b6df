"""Reading and writing the files agent-hooks' behaviour depends on.

:func:`read_bounded` is how settings, the organisation policy, the trust store and hook files are
read: only a regular file, only up to a size cap, never blocking, so a project whose settings file
is a symlink to ``/dev/zero``, a FIFO, a directory or a 2 GB file costs one error line, not memory
or time without bound.

:func:`atomic_write` and :func:`locked` are used by settings edits, the trust store, the
entry-point cache, host installers and the chibi schema cache. A reader (or a crash) sees the old
file or the new one, never half of either; two processes that edit the same file under
:func:`locked` do not lose each other's changes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path

#: caps of :func:`read_bounded` (bytes): far above any real file of each kind
SETTINGS_MAX = 1 << 20
"""a settings file or organisation policy"""
TRUST_MAX = 16 << 20
"""the trust store (one entry per trusted project)"""
HOOK_FILE_MAX = 4 << 20
"""one hook file (or one file of a hook package)"""


class UnreadableFile(OSError):
    """A file :func:`read_bounded` refuses: not a regular file, or over its cap.

    ``strerror`` says which, in words for a one-line message ("is a FIFO, not a regular file").
    """


def _kind(mode: int) -> str:
    import stat

    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def read_bounded(path: Path | str, limit: int) -> bytes:
    """The content of ``path`` if it is a regular file (symlinks followed) of at most ``limit`` bytes.

    Raises :class:`FileNotFoundError` when it does not exist, :class:`UnreadableFile` for anything
    that is not a regular file or is larger than ``limit`` (checked on the opened descriptor, and
    again while reading, for a file that grows), and :class:`OSError` for other failures. The open
    never blocks (``O_NONBLOCK``: a FIFO with no writer) and nothing past ``limit`` is read.
    """
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile(errno.EINVAL, f"is {_kind(st.st_mode)}, not a regular file", str(path))
        if st.st_size > limit:
            raise UnreadableFile(errno.EFBIG, f"is {_size(st.st_size)}, over the {_size(limit)} limit", str(path))
        chunks: list[bytes] = []
        got = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if got > limit:
                raise UnreadableFile(errno.EFBIG, f"grew over the {_size(limit)} limit while being read", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


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
