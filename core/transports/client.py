"""The commands installers write: the fast client (through the warm server) and the per-event process.

Installers of command hosts (Claude Code ``--transport command``, Codex, Gemini CLI, Cursor) call
:func:`command_for` and write the list it returns in exec form (no shell): absolute paths, because
the ``python3`` on a user's PATH may be a shim that costs more than the hook, and isolation flags,
because a bridge must never import from the project directory (``-I``: no cwd, no ``PYTHONPATH``,
no user site; ``-P`` instead when agent-hooks itself lives in the user site).

The fast client (``fastclient.py``) forwards the event to ``agenthooks serve`` over the 0600 unix
socket and prints its answer; when the server cannot be reached it answers with the per-event
process (:func:`process_command`), and starts the server for the next event. When the optional
``agent-hooks-client`` distribution is installed in this environment its native executable, which
speaks the same protocol with the same exits but starts no interpreter, is written instead
(:func:`native_client`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

FASTCLIENT = Path(__file__).with_name("fastclient.py")
#: the native client's executable (in the ``agent_hooks_client`` package of ``agent-hooks-client``)
NATIVE_NAME = "agenthooks-client"


def native_client() -> str | None:
    """The native fast client's executable when ``agent-hooks-client`` is installed here, else None."""
    import importlib

    try:
        module = importlib.import_module("agent_hooks_client")
    except ImportError:
        return None
    find = getattr(module, "executable", None)
    path = find() if callable(find) else None
    return path if isinstance(path, str) and os.path.isabs(path) else None


def describe(native: str | None) -> str:
    """How ``install`` names the client it writes."""
    return "the native fast client (agent-hooks-client)" if native else "the fast client"


def python() -> str:
    """This environment's interpreter: absolute, not resolved (a venv's python is a symlink that
    must stay inside the venv)."""
    return str(Path(sys.executable).absolute())


def isolation_flags() -> list[str]:
    """Interpreter flags that keep the current directory and ``PYTHONPATH`` off ``sys.path``."""
    import site

    here = Path(__file__).resolve()
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE is not None else None
    in_user_site = bool(user_site) and str(here).startswith(str(Path(str(user_site)).resolve()) + os.sep)
    if not in_user_site:
        return ["-I"]
    return ["-E", "-P"] if sys.version_info >= (3, 11) else ["-E"]


def process_command(host: str, args: Sequence[str] = ()) -> list[str]:
    """The per-event process for ``host`` (``agenthooks <host> ARGS``), exec form."""
    return [python(), *isolation_flags(), "-m", "agent_hooks_core", host, *args]


def _client(sock: str, native: str | None) -> list[str]:
    """The client program and its options up to the event's own (``--gating``...)."""
    flags = ",".join(isolation_flags())
    if native:
        return [native, "--socket", sock, "--isolation", flags, "--python", python()]
    return [python(), "-S", "-I", str(FASTCLIENT), "--socket", sock, "--isolation", flags]


def command_for(host: str, args: Sequence[str] = (), *, gating: bool = False, autostart: bool = True,
                socket: str | os.PathLike[str] | None = None, native: str | bool | None = True) -> list[str]:
    """The fast client command for one event of ``host``, exec form.

    ``args`` are the host command's options (``--event PreToolUse``...); ``gating``: the event
    decides whether an action runs, so any failure of the client itself exits 2 with the reason on
    stderr (a block in every host); ``autostart``: a down server is started for the next event;
    ``native``: True for the native client when it is installed (:func:`native_client`), False for
    the Python one, or the path of a native client executable.
    """
    from .. import runpaths as paths

    sock = str(socket) if socket is not None else str(paths.socket_path())
    command = _client(sock, _native(native))
    if gating:
        command.append("--gating")
    if autostart:
        command.append("--autostart")
    return [*command, "--", host, *args]


def _native(native: str | bool | None) -> str | None:
    if native is True:
        return native_client()
    return native or None


def ensure_server_command(timeout: float, socket: str | os.PathLike[str] | None = None,
                          native: str | bool | None = True) -> list[str]:
    """The fast client command that starts the warm server unless it answers (SessionStart of the
    http transport): a status round trip when it runs, the full ``serve start`` only when not."""
    from .. import runpaths as paths

    sock = str(socket) if socket is not None else str(paths.socket_path())
    return [*_client(sock, _native(native)), "--timeout", f"{timeout:g}", "--ensure-server"]


def is_client_name(name: str) -> bool:
    """True for the file name of a fast client program: the Python one, the native one, or the
    launcher of the native one (``agenthooks-<environment>-client``)."""
    name = name.lower()
    return name in (FASTCLIENT.name, NATIVE_NAME) or (name.startswith("agenthooks-") and name.endswith("-client"))


def is_fast_client(argv: Sequence[str]) -> bool:
    """True for a command :func:`command_for` wrote (any environment, either client, launched or not)."""
    if argv and is_client_name(os.path.basename(str(argv[0]))) and "--socket" in argv:
        return True
    return any(Path(a).name == FASTCLIENT.name and "transports" in Path(a).parts for a in argv)
