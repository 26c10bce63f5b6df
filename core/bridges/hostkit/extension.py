"""The installer of a host that loads a plugin file of ours (OpenCode's plugin, pi's and oh-my-pi's
extension): one shipped TypeScript file per scope, written with this environment's interpreter
baked into its ``BAKED`` line.

The file is ours when it carries :data:`MARKER`: a different file of the same name is never
overwritten or removed. Install and uninstall are plans (:class:`~.jsonconfig.ConfigEdit`) like
every other host's: the same dry-run diff, atomic write, ``.agenthooks.bak`` backup of the file
replaced, and an uninstall that deletes the file and that backup.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from .jsonconfig import ConfigEdit, FileChange, InstallError, run_plan

PathLike = str | os.PathLike[str]

#: the end of the one line of a shipped file that install rewrites
MARKER = "// @agent-hooks-config"
_BAKED = re.compile(r"^(const BAKED: [^=\n]*= ).*" + re.escape(MARKER) + r"$", re.M)


def bake(source: str, values: Mapping[str, Any]) -> str:
    """``source`` with its ``BAKED`` line holding ``values`` (InstallError when it has none)."""
    text, n = _BAKED.subn(lambda m: f"{m.group(1)}{json.dumps(dict(values))}; {MARKER}", source, count=1)
    if n != 1:
        raise InstallError("the shipped file has no BAKED line (a broken agent-hooks-core install?)")
    return text


def baked(text: str) -> dict[str, Any] | None:
    """What the ``BAKED`` line of ``text`` holds; None when there is no such line (the file is
    not ours), ``{}`` when it does not parse."""
    m = _BAKED.search(text)
    if not m:
        return None
    raw = m.group(0)[len(m.group(1)):m.group(0).rindex(MARKER)].strip().rstrip(";")
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def shipped(package: str, name: str) -> str:
    """The file ``name`` as shipped in ``package`` (``BAKED`` empty)."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def read_text(path: Path) -> str | None:
    """The text of ``path``, None when it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


class ExtensionFile:
    """plan / install / uninstall / wired / config_targets for one plugin file per scope; a host
    says where the file is (:meth:`path`) and what it holds (:meth:`render`), and writes its own
    ``status`` (what makes the file current differs by host)."""

    InstallError = InstallError
    SCOPES: tuple[str, ...] = ("user", "project")
    FILENAME = "agent-hooks.ts"
    #: the host's name (``agenthooks install <host>``) and the name people know
    host = ""
    title = ""
    #: what the file is called in messages ("extension", "plugin")
    what = "extension"
    #: uninstalling when a file of ours is not there but another one of the same name is: an
    #: error (True) or nothing to do (False)
    refuse_foreign_uninstall = False

    def path(self, scope: str, project_dir: PathLike | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        raise NotImplementedError

    def render(self, **options: Any) -> str:
        """The file as install writes it."""
        raise NotImplementedError

    def is_ours(self, text: str) -> bool:
        return baked(text) is not None

    def install_notes(self, scope: str, path: Path) -> list[str]:
        return []

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        """Every file ``install`` may write (every scope, the project ones in ``project_dir``)."""
        return [self.path(scope, project_dir, environ) for scope in self.SCOPES]

    def plan_install(self, scope: str, project_dir: PathLike | None = None, **options: Any) -> ConfigEdit:
        path = self.path(scope, project_dir)
        old = read_text(path)
        if old is not None and not self.is_ours(old):
            raise InstallError(f"{path} exists and is not agent-hooks' {self.what}; move it away first")
        new = self.render(**options)
        plan = ConfigEdit([FileChange(path, old, None if new == old else new)])
        plan.notes.extend(self.install_notes(scope, path))
        return plan

    def plan_uninstall(self, scope: str, project_dir: PathLike | None = None) -> ConfigEdit:
        path = self.path(scope, project_dir)
        old = read_text(path)
        ours = old is not None and self.is_ours(old)
        if old is not None and not ours and self.refuse_foreign_uninstall:
            raise InstallError(f"{path} is not agent-hooks' {self.what}; left alone")
        return ConfigEdit([Deletion(path, old, "" if ours else None, self.what)], removal=True)

    def install(self, scope: str = "user", project_dir: PathLike | None = None, dry_run: bool = False,
                out: TextIO | None = None, **options: Any) -> int:
        plan = self.plan_install(scope, project_dir)
        return run_plan(plan, dry_run, out or sys.stdout, f"Wired agent-hooks into {self.title} ({scope})",
                        unchanged=f"{self.title} ({scope}) is already wired to agent-hooks: {plan.changes[0].path}")

    def uninstall(self, scope: str = "user", project_dir: PathLike | None = None, dry_run: bool = False,
                  out: TextIO | None = None) -> int:
        plan = self.plan_uninstall(scope, project_dir)
        return run_plan(plan, dry_run, out or sys.stdout, f"Removed agent-hooks from {self.title} ({scope})",
                        unchanged=f"{self.title} ({scope}) is not wired to agent-hooks: {plan.changes[0].path}")

    def files(self, cwd: PathLike | None = None) -> Iterator[tuple[str, Path, str | None, str | None]]:
        """(scope, path, its text or None, why it cannot be read or None) per scope, for ``status``."""
        for scope in self.SCOPES:
            path = self.path(scope, cwd)
            try:
                yield scope, path, read_text(path), None
            except InstallError as exc:
                yield scope, path, None, str(exc)

    def wired(self, cwd: PathLike | None = None) -> list[str]:
        """Scopes holding our file (``agenthooks hosts``)."""
        found = []
        for scope in self.SCOPES:
            try:
                text = read_text(self.path(scope, cwd))
            except InstallError:
                continue
            if text is not None and self.is_ours(text):
                found.append(scope)
        return found


class Deletion(FileChange):
    """Uninstall deletes a file that is wholly ours (an empty ``new`` text means: remove it)."""

    def __init__(self, path: Path, old: str | None, new: str | None, what: str = "file") -> None:
        super().__init__(path, old, new)
        self.what = what

    @property
    def changed(self) -> bool:
        return self.new == "" and self.old is not None

    def diff(self) -> str:
        return f"--- {self.path}\n+++ /dev/null\n(delete agent-hooks' {self.what})\n" if self.changed else ""
