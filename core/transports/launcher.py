"""The stable launcher: the command host configurations run instead of an interpreter path.

Host configurations hold absolute paths. When the virtual environment they name is moved,
recreated or removed, Claude Code and Codex treat the missing interpreter as a non-blocking error
and the guard silently stops. So installers write the path of a small POSIX ``sh`` script in the
user's agent-hooks data directory (outside every environment) that records this environment's
interpreter and the file it needs (the fast client, inside our package), and:

* when both exist, ``exec``\\s the interpreter with its arguments (one ``sh`` start, no fork);
* when either is gone, writes one line naming the environment and what to run, and exits 2 on a
  gating event (``--gating`` as its first argument: a block in every host) and 1 otherwise (the
  hosts' non-blocking error, shown to the user on SessionStart).

Usage: ``LAUNCHER [--gating] PYTHON-ARGS...``. One launcher per environment (named by
:func:`agent_hooks_core.runpaths.identity`); ``agenthooks install`` (re)writes it, ``doctor``
reads it back (:func:`broken`). Not on Windows (no ``sh``): the interpreter is written directly.
When the native fast client (``agent-hooks-client``) is installed, a second launcher
(``agenthooks-<environment>-client``) records its executable and runs it the same way.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

#: the launcher's first line; how :func:`recorded` knows a file is one of ours
SHEBANG = "#!/bin/sh"
MARK = "# agent-hooks launcher"
#: the launcher's own flag (stripped before the interpreter runs)
GATING = "--gating"


def supported() -> bool:
    return os.name == "posix"


def directory() -> Path:
    """``$AGENT_HOOKS_HOME/bin``, else ``bin`` in the platform's user data directory."""
    home = os.environ.get("AGENT_HOOKS_HOME")
    if home:
        return Path(home).expanduser() / "bin"
    import platformdirs

    return Path(platformdirs.user_data_dir("agent-hooks", appauthor=False)) / "bin"


def path(native: bool = False) -> Path:
    """This environment's launcher (it may not exist yet: :func:`write` makes it); ``native``: the
    one of the native client."""
    from ..runpaths import identity

    return Path(os.path.abspath(directory() / f"agenthooks-{identity()}{'-client' if native else ''}"))


def _python() -> str:
    return str(Path(sys.executable).absolute())


def _needs() -> str:
    from .client import FASTCLIENT

    return str(FASTCLIENT.absolute())


def script(python: str | None = None, needs: str | None = None) -> str:
    py, req = python or _python(), needs or _needs()
    return "\n".join([
        SHEBANG,
        f"{MARK} for the Python environment of {shlex.quote(py)} (written by `agenthooks install`).",
        "# When that environment is gone a gating event is blocked (exit 2), never silently allowed.",
        f"PY={shlex.quote(py)}",
        f"NEEDS={shlex.quote(req)}",
        "gating=0",
        f'if [ "$1" = "{GATING}" ]; then gating=1; shift; fi',
        'if [ -x "$PY" ] && [ -f "$NEEDS" ]; then exec "$PY" "$@"; fi',
        'echo "agent-hooks: the Python environment these hooks run ($PY) is gone or no longer has agent-hooks:'
        ' run \\`agenthooks install\\` again for this agent from the agent-hooks you use now" >&2',
        'if [ "$gating" = 1 ]; then exit 2; fi',
        "exit 1",
        "",
    ])


def write(native: str | None = None) -> Path:
    """Write (or refresh) this environment's launcher, atomically; its path. ``native``: the native
    client's executable, for its launcher."""
    from ..fileio import atomic_write

    target = path(native is not None)
    text = script(native, native) if native is not None else script()
    try:
        current = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        current = None
    if current != text:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(target, text, 0o700)
    return target


def is_launcher_path(command: object) -> bool:
    """True for a path named like one of our launchers (any environment; the file is not read)."""
    return isinstance(command, str) and os.path.basename(command).startswith("agenthooks-") and \
        os.path.basename(os.path.dirname(command)) == "bin"


def recorded(command: str) -> dict[str, str] | None:
    """``{"python", "needs"}`` a launcher file records; None when ``command`` is not a launcher."""
    try:
        with open(command, encoding="utf-8") as f:
            text = f.read(4096)
    except (OSError, UnicodeDecodeError):
        return None
    lines = text.splitlines()
    if lines[:1] != [SHEBANG] or len(lines) < 2 or not lines[1].startswith(MARK):
        return None
    found: dict[str, str] = {}
    for line in lines:
        for key, name in (("PY=", "python"), ("NEEDS=", "needs")):
            if line.startswith(key):
                try:
                    found[name] = "".join(shlex.split(line[len(key):]))
                except ValueError:
                    return None
    return found if len(found) == 2 else None


def broken(command: str) -> str | None:
    """Why the hooks that run ``command`` cannot work, or None. For ``doctor``."""
    if not os.path.exists(command):
        return f"{command} does not exist"
    rec = recorded(command)
    if rec is None:
        return None  # not a launcher: the caller checks what it runs
    if not os.access(command, os.X_OK):
        return f"the launcher {command} is not executable"
    if not os.access(rec["python"], os.X_OK):
        return f"the launcher {command} runs {rec['python']}, which is gone (a moved or recreated environment)"
    if not os.path.isfile(rec["needs"]):
        return f"the launcher {command} runs {rec['python']}, which no longer has agent-hooks ({rec['needs']} is gone)"
    return None


def _native() -> str | None:
    from .client import native_client

    return native_client()


def wrap(argv: list[str], gating: bool) -> list[str]:
    """``argv`` (this interpreter or the native client first) through its launcher, when the
    platform has one."""
    if not supported() or not argv:
        return list(argv)
    if argv[0] == _python():
        return [str(path()), *([GATING] if gating else []), *argv[1:]]
    if argv[0] == _native():
        return [str(path(native=True)), *([GATING] if gating else []), *argv[1:]]
    return list(argv)


def write_if_referenced(*texts: str | None) -> None:
    """Write the launchers one of ``texts`` (the configuration files about to be written) names."""
    if not supported():
        return
    target, native_target = str(path()), str(path(native=True))
    if any(t and target in t for t in texts):
        write()
    native = _native() if any(t and native_target in t for t in texts) else None
    if native is not None:
        write(native)
