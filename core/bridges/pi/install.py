"""``agenthooks install|uninstall pi|omp`` and their ``doctor`` lines.

Installing writes one file, the shipped ``extension.ts`` with this environment's interpreter
baked into its ``BAKED`` line, where the agent auto-discovers extensions:

====== ========================================================= ==================================
host   user scope (default)                                      project scope
====== ========================================================= ==================================
pi     ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent`` + ``extensions/`` ``<project>/.pi/extensions/``
omp    ``$PI_CODING_AGENT_DIR`` or ``~/.omp/agent`` + ``extensions/`` ``<project>/.omp/extensions/``
====== ========================================================= ==================================

The file is ours when it carries the ``@agent-hooks-config`` marker: a different file of the
same name is never overwritten or removed. Planned, written and removed by the shared
:class:`~agent_hooks_core.bridges.hostkit.extension.ExtensionFile`; installing twice changes nothing.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...settings import home_dir
from ..hostkit.extension import MARKER, ExtensionFile, bake, shipped
from ..hostkit.extension import baked as baked_config
from ..hostkit.jsonconfig import InstallError

FILENAME = "agent-hooks.ts"

SCOPES = ("user", "project")

__all__ = ["MARKER", "OMP", "PI", "HostInstaller", "InstallError", "baked_config", "packaged_extension", "render"]


def packaged_extension() -> str:
    """The extension as shipped (``BAKED`` empty)."""
    return shipped(__package__ or __name__.rpartition(".")[0], "extension.ts")


def interpreter() -> str:
    """This environment's Python, by absolute path (a venv's ``bin/python``, not what it links to)."""
    return os.path.abspath(sys.executable)


def render(host: str, python: str | None = None) -> str:
    """The extension with ``python`` and ``host`` baked in."""
    return bake(packaged_extension(), {"python": python or interpreter(), "host": host})


class HostInstaller(ExtensionFile):
    """install / uninstall / status for one of pi and omp."""

    SCOPES = SCOPES
    FILENAME = FILENAME
    refuse_foreign_uninstall = True

    def __init__(self, host: str, label: str, home_dir: str, project_dir: str, binary: str) -> None:
        self.host = host
        self.label = self.title = label
        self._home_dir = home_dir  # under ~, when PI_CODING_AGENT_DIR is not set
        self._project_dir = project_dir
        self.binary = binary
        #: for ``agenthooks install|uninstall <host> --help``
        self.SCOPE_HELP = {
            "user": f"~/{home_dir}/extensions/ ($PI_CODING_AGENT_DIR/extensions/ if set): every project",
            "project": f"{project_dir}/extensions/ in the project: names this machine's Python, do not commit it",
        }
        self.INSTALL_HELP = (f"Run every enabled plugin in {label}: writes the agent-hooks extension into its "
                             f"extensions directory (docs/hosts/{host}.md).")
        self.UNINSTALL_HELP = f"Remove the agent-hooks extension from {label} (other extensions stay)."

    def agent_dir(self, environ: Mapping[str, str] | None = None) -> Path:
        env = (os.environ if environ is None else environ).get("PI_CODING_AGENT_DIR")
        return Path(env).expanduser() if env else home_dir(environ) / self._home_dir

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return self.agent_dir(environ) / "extensions" / FILENAME
        if scope == "project":
            base = Path(project_dir) if project_dir is not None else Path.cwd()
            return base / self._project_dir / "extensions" / FILENAME
        raise InstallError(f"unknown scope {scope!r}: use {' or '.join(SCOPES)}")

    extension_path = path

    def render(self, **options: Any) -> str:
        return render(self.host, options.get("python"))

    def install_notes(self, scope: str, path: Path) -> list[str]:
        notes = [f"server: {interpreter()} -I -m agent_hooks_core serve --stdio"]
        if scope == "project":
            notes.append(f"note: the file names this machine's interpreter; keep {self._project_dir}/extensions/"
                         f"{FILENAME} out of version control.")
        return notes

    def status(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        """Doctor lines: is the extension there, ours, current, and is its interpreter reachable?"""
        lines: list[str] = []
        for scope, path, text, unreadable in self.files(cwd):
            if unreadable is not None:
                lines.append(f"problem: {unreadable}")
                continue
            if text is None:
                continue
            where = f"{self.label} {scope} extension ({path})"
            config = baked_config(text)
            if config is None:
                lines.append(f"warning: {where} is not agent-hooks' extension")
                continue
            python = config.get("python")
            flag = f"agenthooks install {self.host} --{scope}"
            if not (isinstance(python, str) and os.path.isfile(python) and os.access(python, os.X_OK)):
                lines.append(f"problem: {where} runs {python}, which does not exist; run `{flag}`")
            elif not _same_env(python, interpreter()):
                lines.append(f"warning: {where} runs another environment's agent-hooks ({python}); "
                             f"run `{flag}` to use this one")
            elif text != render(self.host, python):
                lines.append(f"warning: {where} is outdated; run `{flag}`")
            else:
                lines.append(f"ok: {where}: current, runs {python}")
        if not lines:
            level = "warning" if shutil.which(self.binary) else "ok"
            lines.append(f"{level}: {self.label} is not wired to agent-hooks; run `agenthooks install {self.host}`"
                         if level == "warning" else f"ok: {self.label} not found and not wired (nothing to check)")
        return lines


def _same_env(a: str, b: str) -> bool:
    """Two interpreters of one environment (``bin/python`` and ``bin/python3``)."""
    return os.path.dirname(os.path.abspath(a)) == os.path.dirname(os.path.abspath(b))


PI = HostInstaller("pi", "pi", ".pi/agent", ".pi", "pi")
OMP = HostInstaller("omp", "oh-my-pi", ".omp/agent", ".omp", "omp")
