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
same name is never overwritten or removed. Writes are atomic (``fileio.atomic_write``);
installing twice changes nothing.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ...settings import home_dir

FILENAME = "agent-hooks.ts"
MARKER = "// @agent-hooks-config"
_BAKED_PREFIX = "const BAKED: { python?: string; host?: string; args?: string[] } = "

SCOPES = ("user", "project")


class InstallError(Exception):
    """Something the user must fix; ``str()`` is one line (the CLI exits 2 with it)."""


def packaged_extension() -> str:
    """The extension as shipped (``BAKED`` empty)."""
    from importlib.resources import files

    return files(__package__).joinpath("extension.ts").read_text(encoding="utf-8")


def interpreter() -> str:
    """This environment's Python, by absolute path (a venv's ``bin/python``, not what it links to)."""
    return os.path.abspath(sys.executable)


def render(host: str, python: str | None = None) -> str:
    """The extension with ``python`` and ``host`` baked in."""
    baked = json.dumps({"python": python or interpreter(), "host": host})
    lines = packaged_extension().splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(_BAKED_PREFIX) and MARKER in line:
            lines[i] = f"{_BAKED_PREFIX}{baked}; {MARKER}\n"
            return "".join(lines)
    raise InstallError("the packaged extension has no BAKED line (a broken agent-hooks-core install?)")


def baked_config(text: str) -> dict[str, Any] | None:
    """What an installed extension has baked in, or None if the file is not ours."""
    for line in text.splitlines():
        if line.startswith(_BAKED_PREFIX) and MARKER in line:
            raw = line[len(_BAKED_PREFIX):line.rindex(MARKER)].strip().rstrip(";")
            try:
                value = json.loads(raw)
            except ValueError:
                return {}
            return value if isinstance(value, dict) else {}
    return None


class HostInstaller:
    """install / uninstall / status for one of pi and omp."""

    SCOPES = SCOPES
    InstallError = InstallError

    def __init__(self, host: str, label: str, home_dir: str, project_dir: str, binary: str) -> None:
        self.host = host
        self.label = label
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

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        """Every file ``install`` may write (user scope, and the project scope of ``project_dir``)."""
        return [self.agent_dir(environ) / "extensions" / FILENAME, self.extension_path("project", project_dir)]

    def extension_path(self, scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
        if scope == "user":
            return self.agent_dir() / "extensions" / FILENAME
        if scope == "project":
            base = Path(project_dir) if project_dir is not None else Path.cwd()
            return base / self._project_dir / "extensions" / FILENAME
        raise InstallError(f"unknown scope {scope!r}: use {' or '.join(SCOPES)}")

    def _read(self, path: Path) -> str | None:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise InstallError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None

    def install(self, scope: str = "user", project_dir: str | os.PathLike[str] | None = None,
                dry_run: bool = False, out: TextIO | None = None, **options: Any) -> int:
        out = out or sys.stdout
        path = self.extension_path(scope, project_dir)
        old = self._read(path)
        if old is not None and baked_config(old) is None:
            raise InstallError(f"{path} exists and is not agent-hooks' extension; move it away first")
        new = render(self.host)
        if old == new:
            out.write(f"{self.label} ({scope}) is already wired to agent-hooks: {path}\n")
            return 0
        if dry_run:
            out.write(_diff(path, old, new))
            return 0
        _write(path, new)
        out.write(f"Wired agent-hooks into {self.label} ({scope}): {path}\n")
        out.write(f"  server: {interpreter()} -I -m agent_hooks_core serve --stdio\n")
        if scope == "project":
            out.write(f"  note: the file names this machine's interpreter; keep {self._project_dir}/extensions/"
                      f"{FILENAME} out of version control.\n")
        return 0

    def uninstall(self, scope: str = "user", project_dir: str | os.PathLike[str] | None = None,
                  dry_run: bool = False, out: TextIO | None = None) -> int:
        out = out or sys.stdout
        path = self.extension_path(scope, project_dir)
        old = self._read(path)
        if old is None:
            out.write(f"{self.label} ({scope}) is not wired to agent-hooks: {path}\n")
            return 0
        if baked_config(old) is None:
            raise InstallError(f"{path} is not agent-hooks' extension; left alone")
        if dry_run:
            out.write(f"would remove {path}\n")
            return 0
        try:
            path.unlink()
        except OSError as exc:
            raise InstallError(f"cannot remove {path}: {exc.strerror or exc}") from None
        out.write(f"Removed agent-hooks from {self.label} ({scope}): {path}\n")
        return 0

    def wired(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        """Scopes holding our extension (``agenthooks hosts``)."""
        found = []
        for scope in SCOPES:
            try:
                text = self._read(self.extension_path(scope, cwd))
            except InstallError:
                continue
            if text is not None and baked_config(text) is not None:
                found.append(scope)
        return found

    def status(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        """Doctor lines: is the extension there, ours, current, and is its interpreter reachable?"""
        lines: list[str] = []
        for scope in SCOPES:
            path = self.extension_path(scope, cwd)
            try:
                text = self._read(path)
            except InstallError as exc:
                lines.append(f"problem: {exc}")
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


def _diff(path: Path, old: str | None, new: str) -> str:
    fromfile = str(path) if old is not None else "/dev/null"
    return "".join(difflib.unified_diff((old or "").splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile, str(path)))


def _write(path: Path, text: str) -> None:
    from ...fileio import atomic_write

    try:
        atomic_write(path, text)
    except OSError as exc:
        raise InstallError(f"cannot write {path}: {exc.strerror or exc}") from None


PI = HostInstaller("pi", "pi", ".pi/agent", ".pi", "pi")
OMP = HostInstaller("omp", "oh-my-pi", ".omp/agent", ".omp", "omp")
