"""The installer of a command-hook host whose configuration is one JSON file per scope holding
``"hooks": {EVENT: [...]}``, or the events at its top level (Gemini CLI, Cursor, Qwen Code, GitHub
Copilot CLI, Factory Droid, Codex, OpenHands, and third-party hosts alike).

A host subclasses :class:`HooksFile` and says where the file is (:meth:`HooksFile.path`), which
events to wire, which of them gate, and what one handler entry looks like; the plan (one
:class:`~.jsonconfig.FileChange`), the dry-run diff, backups, the uninstall that leaves nothing of
ours, ``wired`` and the ``doctor`` lines are shared. The instance is the installer a
:class:`~agent_hooks_core.bridges.record.Host` record names (``"module:INSTALLER"``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO, TypeGuard

from .jsonconfig import (
    ConfigEdit,
    FileChange,
    InstallError,
    broken_wiring,
    dump_json,
    event_argv,
    read_json,
    run_plan,
    runs_us,
    shell_command,
    transport_note,
)

PathLike = str | os.PathLike[str]


class HooksFile:
    """install / uninstall / wired / status / config_targets for one JSON hooks file per scope."""

    InstallError = InstallError

    #: the host's name (``agenthooks <host>`` answers its events) and the name people know
    host = ""
    title = ""
    SCOPES: tuple[str, ...] = ("user", "project")
    #: the events ``install`` wires, in the order written
    events: tuple[str, ...] = ()
    #: events whose handler fails closed (the fast client exits 2 on its own failures there)
    gating: frozenset[str] = frozenset()
    #: True when each event holds groups ``{"hooks": [handler]}`` (Gemini, Codex, Claude Code),
    #: False when it holds the handlers themselves (Cursor)
    grouped = True
    #: what the file is called in doctor lines ("Gemini CLI user settings (…)")
    what = "hooks"
    #: the key holding the event table, or None when the events sit at the top level (Droid)
    key: str | None = "hooks"
    #: the field of a handler that holds its command line (Copilot: ``bash``)
    command_key = "command"

    # -- what a host says ------------------------------------------------------------------------

    def path(self, scope: str, project_dir: PathLike | None = None, environ: Mapping[str, str] | None = None) -> Path:
        """The file of ``scope`` (InstallError for a scope the host does not have)."""
        raise NotImplementedError

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, object]:
        """Our handler entry for ``event`` (``argv``: a command prefix given by the caller)."""
        return {self.command_key: self.command(event, argv)}

    def group(self, event: str, entry: dict[str, object]) -> dict[str, object]:
        """What install appends to ``event``'s list: our handler in a group of its own (or the
        handler itself when the host does not group)."""
        return {"hooks": [entry]} if self.grouped else entry

    def prepare(self, data: dict[str, object]) -> None:
        """Top-level fields the file needs besides ``hooks`` (Cursor's ``version``)."""

    def install_notes(self, scope: str, path: Path) -> list[str]:
        """What to print after installing into ``path`` (beyond the transport note)."""
        return []

    def scope_problems(self, scope: str, path: Path, data: dict[str, object], ours: dict[str, list[dict[str, object]]],
                       where: str) -> list[str]:
        """Doctor lines (``problem: …``, shown always; ``warning: …``, shown when we are wired)
        about the file beyond our handlers being there (``ours``: event -> our handlers)."""
        return []

    def ok_line(self, where: str, ours: dict[str, list[dict[str, object]]]) -> str:
        return f"ok: {where}: wired for {len(self.events)} events"

    def extra_status(self, lines: list[str]) -> list[str]:
        """Lines after the per-scope ones (``lines`` are those)."""
        return lines

    # -- shared -------------------------------------------------------------------------------

    def command(self, event: str, argv: list[str] | None = None) -> str:
        return shell_command(event_argv(self.host, event, event in self.gating, argv))

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        """Every file ``install`` may write (every scope, the project ones in ``project_dir``)."""
        return [self.path(scope, project_dir, environ) for scope in self.SCOPES]

    def is_ours(self, entry: object) -> TypeGuard[dict[str, object]]:
        return isinstance(entry, dict) and runs_us(entry.get(self.command_key), self.host)

    def table(self, data: dict[str, object]) -> object:
        """Where the events are in ``data`` (not checked: :meth:`_hooks` checks)."""
        return data.get(self.key) if self.key is not None else data

    def _hooks(self, data: dict[str, object], path: Path) -> dict[str, object]:
        if self.key is None:
            return data
        hooks = data.get(self.key, {})
        if not isinstance(hooks, dict):
            raise InstallError(f"{path}: \"{self.key}\" must be an object; nothing was changed")
        return hooks

    def _handlers(self, item: object) -> list[object]:
        if not self.grouped:
            return [item]
        inner = item.get("hooks") if isinstance(item, dict) else None
        return inner if isinstance(inner, list) else []

    def without_us(self, data: dict[str, object], path: Path) -> dict[str, object]:
        new: dict[str, object] = json.loads(json.dumps(data))
        hooks = self._hooks(new, path)
        for event, items in [(e, v) for e, v in hooks.items() if isinstance(v, list)]:
            kept: list[object] = []
            for item in items:
                if not self.grouped:
                    if not self.is_ours(item):
                        kept.append(item)
                    continue
                inner = self._handlers(item)
                if isinstance(item, dict) and any(self.is_ours(h) for h in inner):
                    remaining = [h for h in inner if not self.is_ours(h)]
                    if not remaining:
                        continue
                    item = {**item, "hooks": remaining}
                kept.append(item)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if self.key is not None and self.key in new and not hooks:
            del new[self.key]
            # what install added around the hooks (Cursor's "version") describes only them
            skeleton: dict[str, object] = {}
            self.prepare(skeleton)
            for k, v in skeleton.items():
                if new.get(k) == v:
                    del new[k]
        return new

    def with_us(self, data: dict[str, object], path: Path, argv: list[str] | None) -> dict[str, object]:
        new = self.without_us(data, path)
        self.prepare(new)
        if self.key is not None:
            new.setdefault(self.key, {})
        hooks = self._hooks(new, path)
        for event in self.events:
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                where = f"{self.key}.{event}" if self.key is not None else event
                raise InstallError(f"{path}: {where} must be a list; nothing was changed")
            entries.append(self.group(event, self.handler(event, argv)))
        return new

    def plan_install(self, scope: str, project_dir: PathLike | None = None, argv: list[str] | None = None) -> ConfigEdit:
        path = self.path(scope, project_dir)
        data, old = read_json(path)
        new = self.with_us(data, path, argv)
        plan = ConfigEdit([FileChange(path, old, None if (old is not None and new == data) else dump_json(new, old))])
        if argv is None:
            plan.notes.append(transport_note(self.title))
        plan.notes.extend(self.install_notes(scope, path))
        return plan

    def plan_uninstall(self, scope: str, project_dir: PathLike | None = None) -> ConfigEdit:
        path = self.path(scope, project_dir)
        data, old = read_json(path)
        new = self.without_us(data, path)
        return ConfigEdit([FileChange(path, old, None if (old is None or new == data) else dump_json(new, old))],
                          removal=True)

    def install(self, scope: str = "user", project_dir: PathLike | None = None, dry_run: bool = False,
                out: TextIO | None = None, **options: object) -> int:
        return run_plan(self.plan_install(scope, project_dir), dry_run, out or sys.stdout,
                        f"{self.title} ({scope}) wired to agent-hooks")

    def uninstall(self, scope: str = "user", project_dir: PathLike | None = None, dry_run: bool = False,
                  out: TextIO | None = None) -> int:
        return run_plan(self.plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                        f"agent-hooks removed from {self.title} ({scope})")

    def ours(self, data: dict[str, object]) -> dict[str, list[dict[str, object]]]:
        """event -> our handlers in ``data``."""
        found: dict[str, list[dict[str, object]]] = {}
        hooks = self.table(data)
        for event, items in (hooks.items() if isinstance(hooks, dict) else []):
            for item in items if isinstance(items, list) else []:
                found.setdefault(event, []).extend(h for h in self._handlers(item) if self.is_ours(h))
        return {e: hs for e, hs in found.items() if hs}

    def wired(self, cwd: PathLike | None = None) -> list[str]:
        found = []
        for scope in self.SCOPES:
            try:
                if self.ours(read_json(self.path(scope, cwd))[0]):
                    found.append(scope)
            except InstallError:
                continue
        return found

    def status(self, cwd: PathLike | None = None) -> list[str]:
        lines: list[str] = []
        any_wired = False
        for scope in self.SCOPES:
            path = self.path(scope, cwd)
            try:
                data, _ = read_json(path)
            except InstallError as exc:
                lines.append(f"problem: {exc}")
                continue
            found = self.ours(data)
            where = f"{self.title} {scope} {self.what} ({path})"
            notes = self.scope_problems(scope, path, data, found, where)
            lines.extend(n for n in notes if n.startswith("problem:"))
            if not found:
                continue
            any_wired = True
            again = f"run `agenthooks install {self.host} --{scope}`"
            missing = [e for e in self.events if e not in found]
            gone = broken_wiring(sorted({str(h.get(self.command_key, "")) for hs in found.values() for h in hs}))
            issues = [f"problem: {where}: {gone}; {again}"] if gone else []
            if missing:
                issues.append(f"warning: {where}: not wired for {', '.join(missing)}; {again}")
            issues += [n for n in notes if not n.startswith("problem:")]
            if not issues and not notes:
                issues.append(self.ok_line(where, found))
            lines.extend(issues)
        if not any_wired:
            lines.append(f"warning: {self.title} is not wired to agent-hooks; run `agenthooks install {self.host}`")
        return self.extra_status(lines)
