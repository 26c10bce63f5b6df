"""``agenthooks install openhands``: our handlers in OpenHands' ``hooks.json``.

The file maps event names to matcher groups at the top level (a ``{"hooks": …}`` wrapper is read
too, and kept when the file has one). OpenHands 1.16 reads **one** file: ``<workdir>/.openhands/
hooks.json`` when it exists, else ``~/.openhands/hooks.json``; so a project's own hooks.json (a
cloned repository's, say) silently replaces the user's hooks. ``status`` reports that, and a file
OpenHands cannot read (it then runs no hooks).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from ...settings import home_dir
from ..hostkit.installer import HooksFile
from ..hostkit.jsonconfig import (
    InstallError,
    broken_wiring,
    read_json,
    run_plan,
)
from .adapter import EVENTS

#: events whose command fails closed (the fast client exits 2 on its own failures there)
GATING = frozenset({"PreToolUse"})

HOST = "openhands"
TITLE = "OpenHands CLI"
SCOPES = ("user", "project")
#: seconds (OpenHands' default is 60)
TIMEOUT = 60


class OpenHandsHooks(HooksFile):
    """hooks.json through the shared :class:`~..hostkit.installer.HooksFile`: events at the top
    level, or in the ``{"hooks": …}`` wrapper a file already has; our group matches every tool."""

    host = HOST
    title = TITLE
    SCOPES = SCOPES
    events = EVENTS
    gating = GATING
    key = None

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return Path(os.path.abspath(home_dir(environ))) / ".openhands" / "hooks.json"
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".openhands" / "hooks.json"
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, object]:
        return {"type": "command", "command": self.command(event, argv), "timeout": TIMEOUT}

    def group(self, event: str, entry: dict[str, object]) -> dict[str, object]:
        return {"matcher": "*", "hooks": [entry]}

    def install_notes(self, scope: str, path: Path) -> list[str]:
        return ["OpenHands reads only one hooks.json: a project's .openhands/hooks.json replaces the user's "
                "(`agenthooks doctor` checks the project you run it in)"]

    def table(self, data: dict[str, object]) -> object:
        return data.get("hooks", {}) if set(data) == {"hooks"} else data

    def _hooks(self, data: dict[str, object], path: Path) -> dict[str, object]:
        """The event map (inside the wrapper when the file has one)."""
        events = self.table(data)
        if not isinstance(events, dict) or not all(isinstance(v, list) for v in events.values()):
            raise InstallError(f"{path}: events must map to lists of matcher groups; nothing was changed")
        unknown = sorted(k for k in events if k not in EVENTS and k.lower() not in {e.lower() for e in EVENTS}
                         and not k.islower())
        if unknown:  # OpenHands refuses the whole file for one unknown event name
            raise InstallError(f"{path}: unknown event {', '.join(unknown)} (OpenHands then runs no hooks at all); "
                               "fix it, nothing was changed")
        return events

    def without_us(self, data: dict[str, object], path: Path) -> dict[str, object]:
        new = super().without_us(data, path)
        return {} if set(new) == {"hooks"} and not new["hooks"] else new


INSTALLER = OpenHandsHooks()
hooks_path = INSTALLER.path
config_targets = INSTALLER.config_targets
plan_install = INSTALLER.plan_install
plan_uninstall = INSTALLER.plan_uninstall
wired = INSTALLER.wired


def our_groups(data: dict[str, object], path: Path) -> dict[str, list[dict[str, object]]]:
    INSTALLER._hooks(data, path)  # a file OpenHands cannot read is a problem line, not "not wired"
    return INSTALLER.ours(data)


OPTIONS: dict[str, dict[str, object]] = {}


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: object) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout, f"{TITLE} ({scope}) wired to agent-hooks")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from {TITLE} ({scope})")


# -- doctor --------------------------------------------------------------------------------


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    lines: list[str] = []
    project = hooks_path("project", cwd)
    project_exists = project.exists()
    any_wired = False
    for scope in SCOPES:
        path = hooks_path(scope, cwd)
        try:
            data, _ = read_json(path)
            ours = our_groups(data, path)
        except InstallError as exc:
            lines.append(f"problem: {exc}")
            continue
        if not any(ours.values()):
            continue
        any_wired = True
        where = f"{TITLE} {scope} hooks ({path})"
        if scope == "user" and project_exists:
            try:
                pdata, _ = read_json(project)
                shadowed = not any(our_groups(pdata, project).values())
            except InstallError:
                shadowed = True
            if shadowed:
                lines.append(f"problem: {where}: {project} exists and OpenHands reads only that one there, so "
                             "agent-hooks does not run in this project; run `agenthooks install openhands --project`")
                continue
        missing = [e for e in EVENTS if not ours.get(e)]
        gone = broken_wiring(sorted({str(h.get("command", "")) for hs in ours.values() for h in hs}))
        if gone:
            lines.append(f"problem: {where}: {gone}, and OpenHands then lets every tool run (it fails open); "
                         f"run `agenthooks install openhands --{scope}`")
        if missing:
            lines.append(f"warning: {where}: not wired for {', '.join(missing)}; "
                         f"run `agenthooks install openhands --{scope}`")
        if not (gone or missing):
            lines.append(f"ok: {where}: wired for {len(EVENTS)} events")
    if not any_wired:
        lines.append(f"warning: {TITLE} is not wired to agent-hooks; run `agenthooks install openhands`")
    else:
        lines.append(f"warning: {TITLE} fails open when a hook cannot start or times out (only exit 2 or a JSON "
                     "deny blocks); agent-hooks' own failures block")
    return lines
