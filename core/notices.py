"""The untrusted-project notice, shown to the user where they work, once per session per project.

When discovery leaves something of a project out until the user trusts it (hook files, policy
keys of ``.agent-hooks/settings.toml``), it says so in ``rt.discovery.plan.notices``; the CLI
prints those lines, and every bridge attaches them to its answer so a user who works through an
agent learns it too:

* Claude Code and Gemini CLI: ``systemMessage`` (shown to the user) on an answer with a JSON body;
* Codex, Cursor and any other command host: a stderr line (where the host shows hook stderr);
* pi, omp and OpenCode (``serve --stdio``): ``ui.notify`` (stdio.py calls :func:`due`).

"Once per session per project" must hold across per-event processes, so what was shown is
remembered on disk (a marker file per session, project and notice under the user's cache).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .bridges.base import HostAnswer

#: hosts whose JSON answer carries a ``systemMessage`` the user sees
SYSTEM_MESSAGE_HOSTS = frozenset({"claude-code", "gemini"})
#: markers older than this are removed (sessions do not last that long)
KEEP_SECONDS = 7 * 24 * 3600
#: at most this many markers are kept
MAX_MARKERS = 2000

_shown: set[str] = set()


def _marker_dir() -> Path:
    from .settings import cache_dir

    return cache_dir() / "notices"


def _first_time(key: str) -> bool:
    """True once per key, across processes (O_EXCL on a marker file)."""
    if key in _shown:
        return False
    _shown.add(key)
    directory = _marker_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(directory / key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError:
        return True  # no place to remember it: showing it again beats never showing it
    os.close(fd)
    _prune(directory)
    return True


def _prune(directory: Path) -> None:
    try:
        names = os.listdir(directory)
    except OSError:
        return
    if len(names) <= MAX_MARKERS:
        return
    now = time.time()
    for name in names:
        try:
            path = directory / name
            if now - path.stat().st_mtime > KEEP_SECONDS or len(names) > 2 * MAX_MARKERS:
                path.unlink()
        except OSError:
            pass


def due(rt: object, session_id: str | None = None) -> list[str]:
    """The notices of ``rt`` (a Runtime, or anything shaped like one) not yet shown in this
    session for this project."""
    loaded = getattr(rt, "discovery", None)
    plan = getattr(loaded, "plan", None)
    notices = [n for n in getattr(plan, "notices", None) or () if isinstance(n, str)]
    if not notices:
        return []
    root = str(getattr(getattr(loaded, "settings", None), "project_root", None) or getattr(rt, "cwd", ""))
    session = session_id if session_id is not None else getattr(rt, "session_id", None)
    out = []
    for notice in notices:
        # no session id: the agent that started this process stands for its session
        raw = "\0".join([str(getattr(rt, "host", "")), str(session or f"ppid-{os.getppid()}"), root, notice])
        if _first_time(hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:32]):
            out.append(f"agent-hooks: {notice}")
    return out


def attach(rt: object, answer: HostAnswer) -> HostAnswer:
    """``answer`` (a HostAnswer) with the notices that are due, in the host's own way."""
    lines = due(rt)
    if not lines:
        return answer
    host = str(getattr(rt, "host", ""))
    if host in SYSTEM_MESSAGE_HOSTS and answer.exit_code == 0 and (answer.body is None
                                                                   or isinstance(answer.body, dict)):
        body = dict(answer.body or {})
        previous = body.get("systemMessage")
        body["systemMessage"] = "\n".join([*([previous] if isinstance(previous, str) and previous else []), *lines])
        answer.body = body
    else:
        answer.stderr = [*answer.stderr, *lines]
    return answer
