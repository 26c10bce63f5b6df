"""Every input that decides what runs, watched the same way by every long-lived runtime.

A runtime is built from the organisation policy, the user settings, the project's settings and
their trust, the hook files (user and project directories, ``hooks = [...]``, ``--hook``) and the
installed distributions. :func:`watched` lists them for one runtime; :func:`stamp` is their
``stat()`` results (a distribution installed or removed changes its ``sys.path`` directory), so
comparing two stamps says "something that decides what runs changed" in a few microseconds per
file: cheap enough to check before every event (the warm server's workers, each ``serve --stdio``
session) and from a watcher thread every :data:`POLL_SECONDS`.

:func:`policy_hash` is what ``serve status`` and ``doctor`` show: a content hash of those files
and of the plugin set the runtime loaded, so two runtimes that enforce the same policy show the
same hash whatever process holds them.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..runtime import Runtime

#: how often a watcher thread looks (a change is picked up within a second)
POLL_SECONDS = 0.25
#: files larger than this are hashed by their stat only (settings and hook files are small)
HASH_CAP = 4 << 20


def _stat(path: str | os.PathLike[str]) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)


def watched(rt: Runtime | None, cwd: str, settings: str | None) -> list[str]:
    """The files and directories ``rt`` (None: a runtime not built yet) was built from."""
    from .. import trust
    from ..settings import (
        PROJECT_DIR,
        SETTINGS_FILE,
        cache_dir,
        find_project_root,
        user_dir,
        user_settings_path,
    )

    user = Path(settings).expanduser() if settings else user_settings_path()
    root = find_project_root(cwd)
    paths: list[Path | str] = [user, trust.store_path(), user_dir() / "hooks", cache_dir() / "organisation"]
    udir = user_dir() / "hooks"
    if udir.is_dir():
        paths += sorted(udir.glob("*.py"))
    if root is not None:
        pdir = root / PROJECT_DIR
        paths += [pdir, pdir / SETTINGS_FILE, pdir / "hooks"]
        if (pdir / "hooks").is_dir():
            paths += sorted((pdir / "hooks").glob("*.py"))
    if rt is not None:
        loaded = getattr(rt, "discovery", None)
        org = getattr(getattr(loaded, "settings", None), "organisation", None)
        if org is not None and getattr(org, "path", None) is not None:
            paths.append(org.path)
        paths += sorted(i.path for i in rt.plugin_info.values() if i.path and i.source == "file")
    paths += [p for p in sys.path if p]
    seen: dict[str, None] = {}
    for p in paths:
        seen.setdefault(os.fspath(p), None)
    return list(seen)


def stamp(files: list[str]) -> tuple[object, ...]:
    return tuple(_stat(f) for f in files)


def stamp_of(rt: Runtime | None, cwd: str, settings: str | None) -> tuple[object, ...]:
    """What the runtime for ``cwd`` was (or would be) built from, as stat results."""
    from ..settings import find_project_root

    files = watched(rt, cwd, settings)
    return (str(find_project_root(cwd)), tuple(files), *stamp(files))


def policy_hash(rt: Runtime | None, cwd: str, settings: str | None) -> str:
    """A short content hash of the policy ``rt`` enforces (see the module docstring)."""
    digest = hashlib.sha256()
    for path in watched(rt, cwd, settings):
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(st.st_mode) or path in sys.path:
            continue
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        if st.st_size > HASH_CAP:
            digest.update(b"%d:%d" % (st.st_size, st.st_mtime_ns))
            continue
        try:  # non-blocking and checked again once open: a file swapped for a FIFO cannot hang us
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                digest.update(os.read(fd, HASH_CAP))
        except OSError:
            pass
        finally:
            os.close(fd)
    if rt is not None:
        for name in sorted(rt.plugin_info):
            info = rt.plugin_info[name]
            digest.update(f"\0{name}:{info.source}:{info.status}:{info.version}".encode())
        digest.update(repr(sorted(rt.plugins)).encode())
    return digest.hexdigest()[:16]
