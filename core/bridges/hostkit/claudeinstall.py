"""``agenthooks install <host>`` for hosts whose hook config is Claude Code's shape
(``{EVENT: [{"matcher"?, "hooks": [{"type": "command", COMMAND_KEY: CMD, TIMEOUT_KEY: N}]}]}``, or
the handlers listed directly), under a ``hooks`` key or at the top level of the file: one :class:`ClaudeFormatInstaller` per host.

It keeps everything of the user's and only adds or removes groups whose handler runs our bridge
for this host; ``status`` (doctor) reports wiring that is missing, broken, or that the host would
silently skip (``traps``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..hostkit.jsonconfig import (
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

NAME = "agent-hooks"


@dataclass
class ClaudeFormatInstaller:
    host: str
    title: str
    #: scope -> the config file for (a project directory, the environment or None for ours);
    #: the first scope is the default
    paths: Mapping[str, Callable[[str, Mapping[str, str] | None], Path]]
    events: tuple[str, ...]
    gating: frozenset[str]
    #: the key holding the event table, or None when events sit at the top level of the file
    wrapper: str | None = "hooks"
    #: keys the file must carry for the host to read it (Copilot's ``version``)
    header: Mapping[str, Any] = field(default_factory=dict)
    #: False when each event lists handlers directly (Copilot) rather than ``{"hooks": [...]}`` groups
    nested: bool = True
    command_key: str = "command"
    timeout_key: str = "timeout"
    timeout: int = 60
    #: (scope, path, file content, project dir) -> doctor lines for wiring the host would skip
    traps: Callable[[str, Path, dict[str, Any], str | None], list[str]] | None = None
    #: (project dir, environment) -> other files that decide whether our hooks run (the guard
    #: protects them with the ones install writes)
    also_protect: Callable[[str, Mapping[str, str] | None], list[Path]] | None = None
    #: (scope, path, project dir) -> install notes
    notes: Callable[[str, Path, str | None], list[str]] | None = None

    @property
    def SCOPES(self) -> tuple[str, ...]:
        return tuple(self.paths)

    label = property(lambda self: self.title)

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope not in self.paths:
            raise InstallError(f"unknown scope {scope!r}: use {' or '.join(self.paths)}")
        return self.paths[scope](os.path.abspath(project_dir or os.getcwd()), environ)

    # -- the table ----------------------------------------------------------------------------

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, Any]:
        return {"type": "command", self.command_key: shell_command(event_argv(self.host, event, event in self.gating,
                                                                                argv)),
                self.timeout_key: self.timeout}

    def is_ours(self, entry: Any) -> bool:
        return isinstance(entry, dict) and runs_us(entry.get(self.command_key), self.host)

    def _table(self, data: dict[str, Any], path: Path) -> dict[str, Any]:
        table = data.get(self.wrapper, {}) if self.wrapper else data
        if not isinstance(table, dict):
            raise InstallError(f"{path}: \"{self.wrapper}\" must be an object; nothing was changed")
        return table

    def without_us(self, data: dict[str, Any], path: Path) -> dict[str, Any]:
        new = json.loads(json.dumps(data))
        table = self._table(new, path)
        for event in [e for e, v in table.items() if isinstance(v, list)]:
            groups = []
            for group in table[event]:
                if not self.nested:
                    if not self.is_ours(group):
                        groups.append(group)
                    continue
                inner = group.get("hooks") if isinstance(group, dict) else None
                if isinstance(inner, list) and any(self.is_ours(h) for h in inner):
                    group = {**group, "hooks": [h for h in inner if not self.is_ours(h)]}
                    if not group["hooks"]:
                        continue
                groups.append(group)
            if groups:
                table[event] = groups
            else:
                del table[event]
        if self.wrapper and self.wrapper in new and not table:
            del new[self.wrapper]
        if self.header and set(new) <= set(self.header):
            return {}  # only the header is left: nothing of the user's
        return new

    def with_us(self, data: dict[str, Any], path: Path, argv: list[str] | None) -> dict[str, Any]:
        new = {**self.header, **self.without_us(data, path)}
        table = new.setdefault(self.wrapper, {}) if self.wrapper else new
        for event in self.events:
            groups = table.setdefault(event, [])
            if not isinstance(groups, list):
                raise InstallError(f"{path}: {event} must be a list; nothing was changed")
            entry = self.handler(event, argv)
            groups.append({"hooks": [entry]} if self.nested else entry)
        return new

    # -- install / uninstall -------------------------------------------------------------------

    def plan_install(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
                     argv: list[str] | None = None) -> ConfigEdit:
        path = self.path(scope, project_dir)
        data, old = read_json(path)
        new = self.with_us(data, path, argv)
        plan = ConfigEdit([FileChange(path, old, None if (old is not None and new == data) else dump_json(new, old))])
        if argv is None:
            plan.notes.append(transport_note(self.title))
        if self.notes is not None:
            plan.notes.extend(self.notes(scope, path, str(project_dir) if project_dir else None))
        return plan

    def plan_uninstall(self, scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
        path = self.path(scope, project_dir)
        data, old = read_json(path)
        new = self.without_us(data, path)
        return ConfigEdit([FileChange(path, old, None if (old is None or new == data) else dump_json(new, old))],
                          removal=True)

    def install(self, scope: str | None = None, project_dir: str | os.PathLike[str] | None = None,
                dry_run: bool = False, out: TextIO | None = None, **options: Any) -> int:
        scope = scope or self.SCOPES[0]
        return run_plan(self.plan_install(scope, project_dir), dry_run, out or sys.stdout,
                        f"{self.title} ({scope}) wired to agent-hooks")

    def uninstall(self, scope: str | None = None, project_dir: str | os.PathLike[str] | None = None,
                  dry_run: bool = False, out: TextIO | None = None) -> int:
        scope = scope or self.SCOPES[0]
        return run_plan(self.plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                        f"agent-hooks removed from {self.title} ({scope})")

    # -- doctor --------------------------------------------------------------------------------

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        extra = self.also_protect(os.path.abspath(project_dir), environ) if self.also_protect is not None else []
        return [*(self.path(scope, project_dir, environ) for scope in self.SCOPES), *extra]

    def ours(self, data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        table = data.get(self.wrapper) if self.wrapper else data
        for event, groups in (table.items() if isinstance(table, dict) else []):
            for group in groups if isinstance(groups, list) else []:
                inner = group.get("hooks") if isinstance(group, dict) and self.nested else [group]
                found.setdefault(event, []).extend(
                    h for h in (inner if isinstance(inner, list) else []) if self.is_ours(h))
        return {e: hs for e, hs in found.items() if hs}

    def wired(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        found = []
        for scope in self.SCOPES:
            try:
                if self.ours(read_json(self.path(scope, cwd))[0]):
                    found.append(scope)
            except InstallError:
                continue
        return found

    def status(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        lines: list[str] = []
        any_wired = False
        for scope in self.SCOPES:
            path = self.path(scope, cwd)
            try:
                data, _ = read_json(path)
            except InstallError as exc:
                lines.append(f"problem: {exc}")
                continue
            trapped = self.traps(scope, path, data, str(cwd) if cwd else None) if self.traps is not None else []
            lines.extend(trapped)
            found = self.ours(data)
            if not found:
                continue
            any_wired = True
            where = f"{self.title} {scope} hooks ({path})"
            missing = [e for e in self.events if e not in found]
            gone = broken_wiring(sorted({h.get(self.command_key, "") for hs in found.values() for h in hs}))
            again = f"`agenthooks install {self.host} --{scope}`"
            if gone:
                lines.append(f"problem: {where}: {gone}; run {again}")
            elif missing:
                lines.append(f"warning: {where}: not wired for {', '.join(missing)}; run {again}")
            elif not trapped:
                lines.append(f"ok: {where}: wired for {len(self.events)} events")
        if not any_wired:
            lines.append(f"warning: {self.title} is not wired to agent-hooks; run `agenthooks install {self.host}`")
        return lines
