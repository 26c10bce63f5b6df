"""Planned, atomic edits of host config files, and the command line the hooks run.

An installer builds a :class:`ConfigEdit` (one :class:`FileChange` per file, old and new text), which
``--dry-run`` prints as a unified diff and ``apply`` writes: each file replaced atomically (a
reader sees the old file or the new one), the old one kept as ``<name>.agenthooks.bak``. A removal
(uninstall) leaves nothing of ours behind: a file left holding nothing is deleted, and the backup
install kept is deleted too (the file is the user's own again).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


class InstallError(Exception):
    """Something the user must fix; ``str()`` is one line."""


def read_json(path: Path) -> tuple[dict[str, Any], str | None]:
    """(the object in ``path``, its text or None when the file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix or move it, nothing was changed") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} must hold a JSON object; nothing was changed")
    return data, text


def dump_json(data: dict[str, object], like: str | None = None) -> str:
    """JSON text indented like the file it replaces (two spaces by default)."""
    indent: int | str = 2
    if like:
        m = re.search(r"\n([ \t]+)\S", like)
        if m:
            ws = m.group(1)
            indent = len(ws) if set(ws) == {" "} else ws
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


@dataclass
class FileChange:
    """One file's change, not yet made: ``old`` (None: the file does not exist) -> ``new`` (None:
    no change). Applied atomically, the old file kept as ``<name>.agenthooks.bak``."""

    path: Path
    old: str | None
    new: str | None
    #: the file's permission bits when written (None: the old file's, or the default)
    mode: int | None = None

    @property
    def changed(self) -> bool:
        return self.new is not None and self.new != self.old

    def diff(self) -> str:
        fromfile = str(self.path) if self.old is not None else "/dev/null"
        return "".join(difflib.unified_diff((self.old or "").splitlines(keepends=True),
                                            (self.new or "").splitlines(keepends=True), fromfile, str(self.path)))

    def apply(self, removal: bool = False) -> Path | None:
        if not self.changed or self.new is None:
            return None
        from ...fileio import atomic_write

        if removal:
            remove_leaving_nothing(self.path, self.new)
            return None
        backup = None
        mode = self.mode
        if self.old is not None and self.path.exists():
            backup = backup_of(self.path)
            shutil.copy2(self.path, backup)
            if mode is None:
                mode = self.path.stat().st_mode & 0o7777
        atomic_write(self.path, self.new, mode)
        return backup


def holds_nothing(text: str) -> bool:
    """A configuration file with nothing in it: empty, or an empty JSON object."""
    return text.strip() in ("", "{}")


def backup_of(path: Path) -> Path:
    return path.with_name(path.name + ".agenthooks.bak")


def remove_leaving_nothing(path: Path, new: str) -> bool:
    """Write what is left after removing our entries, or delete the file when nothing is left; the
    backup an install kept goes too. True when the file was deleted."""
    from ...fileio import atomic_write

    deleted = holds_nothing(new)
    if deleted:
        path.unlink(missing_ok=True)
    else:
        atomic_write(path, new, path.stat().st_mode & 0o7777 if path.exists() else None)
    backup_of(path).unlink(missing_ok=True)
    return deleted


@dataclass
class ConfigEdit:
    changes: list[FileChange] = field(default_factory=list)
    #: lines to print after applying (remaining steps, notes)
    notes: list[str] = field(default_factory=list)
    #: an uninstall: no backups, a file left holding nothing is deleted (``remove_leaving_nothing``)
    removal: bool = False

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes)

    def diff(self) -> str:
        return "".join(c.diff() for c in self.changes if c.changed)

    def apply(self) -> list[Path]:
        """Write every changed file (the launcher they name first); the backups made."""
        _write_launcher(self)
        backups = []
        for change in self.changes:
            try:
                backup = change.apply(self.removal)
            except OSError as exc:
                raise InstallError(f"cannot write {change.path}: {exc.strerror or exc}") from None
            if backup is not None:
                backups.append(backup)
        return backups


class Writer(Protocol):
    """Where an installer prints (a text stream)."""

    def write(self, text: str, /) -> object: ...


def run_plan(plan: ConfigEdit, dry_run: bool, out: Writer, what: str, unchanged: str | None = None) -> int:
    """Print or apply ``plan`` the way every installer does; returns the exit code.

    ``what`` heads the line naming the files written; ``unchanged`` is the line when there is
    nothing to change."""
    if dry_run:
        out.write(plan.diff() if plan.changed else f"{unchanged or what + ': nothing to change'}\n")
        for note in plan.notes:
            out.write(f"  {note}\n")
        return 0
    _write_launcher(plan)
    if not plan.changed:
        out.write(f"{unchanged or what + ': already done, nothing to change'}\n")
    else:
        backups = plan.apply()
        out.write(f"{what}: {', '.join(str(c.path) for c in plan.changes if c.changed)}\n")
        for b in backups:
            out.write(f"  backup: {b}\n")
        for c in plan.changes if plan.removal else ():
            if c.changed and not c.path.exists():
                out.write(f"  deleted {c.path}: nothing else was in it\n")
    for note in plan.notes:
        out.write(f"  {note}\n")
    return 0


def transport_note(host_title: str) -> str:
    """What ``install`` says about the transport it chose for a command-only host, and why
    (wrapped to fit 80 columns under the two-space indent ``run_plan`` adds)."""
    import textwrap

    try:
        from ...transports import launcher
    except ImportError:
        return "transport: a process per event"
    from ...transports.client import describe, native_client

    native = native_client()
    text = (f"transport: {describe(native)} ({host_title} runs only commands): each event goes to the warm server "
            "over your private unix socket, or to a process of its own while the server is down, which starts it")
    if launcher.supported():
        text += (f"; run by the launcher {launcher.path(native is not None)}, which blocks gating events if this "
                 "environment moves")
    return "\n  ".join(textwrap.wrap(text, 76, break_on_hyphens=False))


def _write_launcher(plan: ConfigEdit) -> None:
    """The stable launcher the configuration names, written before the configuration (and again
    by a reinstall that changes nothing, which is how a deleted launcher is repaired)."""
    try:
        from ...transports import launcher
    except ImportError:
        return
    try:
        launcher.write_if_referenced(*(c.new if c.new is not None else c.old for c in plan.changes))
    except OSError as exc:
        raise InstallError(f"cannot write the launcher {launcher.path()}: {exc.strerror or exc}") from None


def event_argv(host: str, event: str, gating: bool, base: list[str] | None = None) -> list[str]:
    """The exec-form command (absolute paths) that answers ``host``'s ``event`` in this environment.

    ``base`` (a command prefix ending with the host name) is used as given, ``--event EVENT``
    appended. Otherwise the fast client (``transports.client.command_for``: through the warm
    server, falling back to the per-event process; on a gating event any failure of its own exits
    2 with the reason, a block in every command host), else ``python -I -m agent_hooks_core HOST``.
    """
    if base is not None:
        return [*base, "--event", event]
    try:
        from ...transports import launcher
        from ...transports.client import command_for
    except ImportError:
        return [str(Path(sys.executable).absolute()), "-I", "-m", "agent_hooks_core", host, "--event", event]
    # through the stable launcher: a moved or recreated environment blocks gating events
    return launcher.wrap(list(command_for(host, ["--event", event], gating=gating)), gating)


def broken_wiring(commands: Iterable[object]) -> str | None:
    """Why one of our hook ``commands`` (shell form) cannot run, or None: what it runs is gone, or
    it is a launcher whose environment was moved or recreated. For the installers' doctor lines."""
    try:
        from ...transports import launcher
    except ImportError:
        return None
    for command in commands:
        try:
            exe = shlex.split(command)[0] if isinstance(command, str) else ""
        except (ValueError, IndexError):
            continue
        if not os.path.isabs(exe):
            continue
        if not os.path.exists(exe):
            return f"runs {exe}, which does not exist"
        reason = launcher.broken(exe)
        if reason is not None:
            return reason
    return None


def shell_command(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def runs_us(command: object, host: str) -> bool:
    """True for a hook command line that runs our bridge for ``host`` (any environment): the
    ``agenthooks`` script, ``python -m agent_hooks_core`` or the fast client, followed by the host
    (directly, or after ``--``)."""
    if not isinstance(command, str):
        return False
    try:
        tokens = shlex.split(command)
    except ValueError:
        return False
    from ...transports.client import is_client_name

    for i, token in enumerate(tokens):
        name = os.path.basename(token.replace("\\", "/")).lower()
        client = is_client_name(name)
        if client or name in ("agenthooks", "agenthooks.exe", "agent_hooks_core"):
            rest = tokens[i + 1:]
            if rest[:1] == [host]:
                return True
            if client and "--" in rest and rest[rest.index("--") + 1:][:1] == [host]:
                return True
    return False
