"""The per-event command starts this user's warm server when none runs, so the next events relay.

``agenthooks <host>`` answers an event in its own process when no server runs for its environment
(:mod:`.relay`); that costs importing pluggy, the runtime and every plugin per event. After such an
answer (never before it, never changing it) :func:`after_answer` launches the server in the
background, the way gradle's daemon, dmypy or eslint_d come up on first use:

* detached: a session of its own, working directory ``/``, stdin, stdout and stderr ``/dev/null``
  (the server logs why it stopped or could not start to its log file), every other inherited
  descriptor closed (it must not hold the host's pipes open), not waited for;
* the same environment as this process: this interpreter with this process's flags, this process's
  variables (nothing from the event), so its :func:`agent_hooks_core.runpaths.environment_key` is
  the one the relay sends;
* only where :func:`agent_hooks_core.runpaths.server_socket` will look for it
  (:func:`agent_hooks_core.runpaths.autostart_dir`): never in a place a ``TMPDIR`` or a foreign
  ``XDG_RUNTIME_DIR`` chose;
* at most one attempt per :data:`RETRY_SECONDS` per user and environment (a stamp file in that
  0700 run directory), so a server that cannot start does not cost every event a spawn; two
  starters at once are serialised by the server's lock (the second exits);
* it waits for this process to exit before it imports anything (``--after-parent``): its start-up
  does not take a core from the hook's last milliseconds;
* ``serve run --autostarted``: the unix socket only, and it exits after :data:`IDLE_SECONDS`
  without a request, or when its run directory or home is gone (``serve/server.py``; a
  ``serve start`` or an ``--ensure-server`` check keeps it for good).

Off with ``AGENT_HOOKS_SERVE_AUTOSTART=0`` or ``[serve] autostart = false`` in the user settings
(a project's settings cannot turn it on or off).
"""

from __future__ import annotations

import os
import sys
import time

#: ``AGENT_HOOKS_SERVE_AUTOSTART=0``: never start a server from the per-event command
ENV_AUTOSTART = "AGENT_HOOKS_SERVE_AUTOSTART"
#: seconds between two attempts to start a server (per user and environment)
RETRY_SECONDS = 60.0
#: seconds without a request after which an autostarted server exits
IDLE_SECONDS = 600.0
#: what ``serve run`` is told: an autostarted server (see the module docstring)
SERVE_ARGS = ("serve", "run", "--autostarted", "--after-parent")

_FALSE = ("0", "false", "no", "off")


def enabled() -> bool:
    """False when this user turned autostart off (the variable first, then the user settings)."""
    env = os.environ.get(ENV_AUTOSTART, "").strip().lower()
    if env:
        return env not in _FALSE
    try:
        from ..settings.parsing import read_file
        from ..settings.paths import user_settings_path

        serve = read_file(user_settings_path(), "user").data.get("serve")
    except Exception:  # unreadable settings: the answer said so; nothing is started on them
        return False
    return not (isinstance(serve, dict) and serve.get("autostart") is False)


def interpreter_flags() -> list[str]:
    """The flags this interpreter was started with that shape ``sys.path`` (``-I``, ``-E``,
    ``-s``, ``-P``, ``-S``): the server must import what this process imports."""
    flags = sys.flags
    out = ["-I"] if flags.isolated else [f for f, on in (("-E", flags.ignore_environment),
                                                           ("-s", flags.no_user_site)) if on]
    if getattr(flags, "safe_path", False) and not flags.isolated:
        out.append("-P")
    if flags.no_site:
        out.append("-S")
    return out


def command() -> list[str]:
    """``serve run --autostarted`` with this process's interpreter and flags, exec form."""
    from .client import python

    return [python(), *interpreter_flags(), "-m", "agent_hooks_core", *SERVE_ARGS]


def _due(stamp: str) -> bool:
    """True when no attempt was made in the last :data:`RETRY_SECONDS`."""
    try:
        age = time.time() - os.lstat(stamp).st_mtime
    except FileNotFoundError:
        return True
    return not 0 <= age < RETRY_SECONDS


def _renew(stamp: str) -> None:
    now = time.time()
    fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.utime(fd, (now, now))
    finally:
        os.close(fd)


def _inherited() -> list[int]:
    """Descriptors above stderr this process would pass on (the host may have leaked some)."""
    try:
        names = os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd")
    except OSError:
        return []
    out = []
    for name in names:
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                out.append(fd)
        except OSError:  # the listing's own descriptor, closed by now
            pass
    return out


def spawn(argv: list[str]) -> int:
    """Start ``argv`` detached (see the module docstring); its pid. Waits for nothing."""
    null = os.devnull
    actions: list[tuple[int, int, str, int, int] | tuple[int, int]] = [
        (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
    return os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)


def after_answer() -> int | None:
    """Start the warm server in the background when this user allows it and no attempt is due
    to be skipped; its pid, or None when nothing was started. Never raises: the event's answer is
    already written."""
    try:
        if not hasattr(os, "posix_spawn") or os.environ.get(ENV_AUTOSTART, "").strip().lower() in _FALSE:
            return None
        from .. import runpaths

        run = runpaths.autostart_dir()
        if run is None:
            return None
        stamp = str(run / f"autostart-{runpaths.identity()}.stamp")
        if not _due(stamp) or not enabled():
            return None
        _renew(stamp)
        argv = command()
        os.chdir("/")  # the server's working directory is no project's (this process is done)
        return spawn(argv)
    except Exception:  # the event was answered; `agenthooks doctor` says why no server runs
        return None
