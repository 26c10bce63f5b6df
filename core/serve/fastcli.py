"""``agenthooks serve ...`` before typer: the calls that must be quick.

* ``serve start --quiet`` when a server already answers: the SessionStart hook of the http
  transport runs it once per session, so the usual case (running) costs one socket round trip,
  not the typer app's import;
* ``serve --stdio``: a host extension's child process (``agent_hooks_core.serve.stdio``);
* ``serve run --autostarted --after-parent``: the per-event command's background start waits for
  that command to exit before anything is imported.

Everything else goes to the typer command (``cli/serve.py``).
"""

from __future__ import annotations

import importlib
import os
import socket


def _answers(path: str, timeout: float = 2.0) -> bool:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        # the keep header: whoever runs `serve start` relies on the server (server.KEEP_HEADER)
        sock.sendall(b"GET /status HTTP/1.0\r\nHost: localhost\r\nX-Agent-Hooks-Keep: 1\r\n\r\n")
        return sock.recv(64).startswith((b"HTTP/1.1 200", b"HTTP/1.0 200"))
    except OSError:
        return False
    finally:
        sock.close()


#: ``serve run --autostarted --after-parent``: the per-event command that spawned this process
#: (``transports/autostart.py``) is still exiting; its last milliseconds are the hook's latency
AFTER_PARENT = "--after-parent"
#: seconds to wait at most for it
AFTER_PARENT_WAIT = 5.0


def _wait_for_parent() -> None:
    """Return once the parent process has exited (or after :data:`AFTER_PARENT_WAIT`), before
    the server's start-up takes a core from it."""
    import select

    parent = os.getppid()
    try:
        fd = os.pidfd_open(parent)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        try:
            select.select([fd], [], [], AFTER_PARENT_WAIT)
        finally:
            os.close(fd)
        return
    import time

    until = time.monotonic() + AFTER_PARENT_WAIT
    while os.getppid() == parent and time.monotonic() < until:
        time.sleep(0.005)  # no pidfd here: polling another process's exit, bounded


def main(argv: list[str]) -> int:
    if AFTER_PARENT in argv:
        argv = [a for a in argv if a != AFTER_PARENT]
        _wait_for_parent()
        if any(place and not os.path.isdir(place) for place in (os.environ.get("HOME"),
                                                                 os.environ.get("AGENT_HOOKS_HOME"))):
            return 0  # removed while the command ended (a temporary home): no one to serve, nothing to make
    if argv[:1] == ["--stdio"]:
        try:
            stdio = importlib.import_module("agent_hooks_core.serve.stdio")
        except ImportError:
            pass  # not in this build: the typer command says so
        else:
            return int(stdio.main(argv[1:]) or 0)
    if argv == ["start", "--quiet"]:
        from . import paths

        try:
            if _answers(str(paths.socket_path())):
                return 0
        except OSError:
            pass  # the typer command reports what is wrong with the runtime directory
    from ..cli.app import run

    return int(run(["serve", *argv]) or 0)
