"""``agenthooks install openhands``: our handlers in OpenHands' ``hooks.json``.

The file maps event names to matcher groups at the top level (a ``{"hooks": …}`` wrapper is read
too, and kept when the file has one). OpenHands 1.16 reads **one** file: ``<workdir>/.openhands/
hooks.json`` when it exists, else ``~/.openhands/hooks.json``; so a project's own hooks.json (a
cloned repository's, say) silently replaces the user's hooks. ``status`` reports that, and a file
OpenHands cannot read (it then runs no hooks).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ...settings import home_dir
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
from .adapter import EVENTS

#: events whose command fails closed (the fast client exits 2 on its own failures there)
GATING = frozenset({"PreToolUse"})

HOST = "openhands"
TITLE = "OpenHands CLI"
SCOPES = ("user", "project")
#: seconds (OpenHands' default is 60)
TIMEOUT = 60


def hooks_path(scope: str, project_dir: str | os.PathLike[str] | None = None,
               environ: Mapping[str, str] | None = None) -> Path:
    if scope == "user":
        return Path(os.path.abspath(home_dir(environ))) / ".openhands" / "hooks.json"
    if scope == "project":
        return Path(os.path.abspath(project_dir or os.getcwd())) / ".openhands" / "hooks.json"
    raise InstallError(f"unknown scope {scope!r}: use user or project")


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project scope of ``project_dir``)."""
    return [hooks_path("user", environ=environ), hooks_path("project", project_dir)]


def handler(event: str, argv: list[str] | None = None) -> dict[str, Any]:
    return {"type": "command", "command": shell_command(event_argv(HOST, event, event in GATING, argv)),
            "timeout": TIMEOUT}


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and runs_us(entry.get("command"), HOST)


def _events(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The event map (inside the wrapper when the file has one)."""
    events = data.get("hooks", {}) if set(data) == {"hooks"} else data
    if not isinstance(events, dict) or not all(isinstance(v, list) for v in events.values()):
        raise InstallError(f"{path}: events must map to lists of matcher groups; nothing was changed")
    unknown = sorted(k for k in events if k not in EVENTS and k.lower() not in {e.lower() for e in EVENTS}
                     and not k.islower())
    if unknown:  # OpenHands refuses the whole file for one unknown event name
        raise InstallError(f"{path}: unknown event {', '.join(unknown)} (OpenHands then runs no hooks at all); "
                           "fix it, nothing was changed")
    return events


def our_groups(data: dict[str, Any], path: Path) -> dict[str, list[dict[str, Any]]]:
    return {event: [h for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if is_ours(h)]
            for event, groups in _events(data, path).items()}


def without_us(data: dict[str, Any], path: Path) -> dict[str, Any]:
    new: dict[str, Any] = json.loads(json.dumps(data))
    events = _events(new, path)
    for event in list(events):
        groups = []
        for group in events[event]:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list) and any(is_ours(h) for h in inner):
                group = {**group, "hooks": [h for h in inner if not is_ours(h)]}
                if not group["hooks"]:
                    continue
            groups.append(group)
        if groups:
            events[event] = groups
        else:
            del events[event]
    if set(new) == {"hooks"} and not new["hooks"]:
        return {}
    return new


def with_us(data: dict[str, Any], path: Path, argv: list[str] | None) -> dict[str, Any]:
    new = without_us(data, path)
    events = _events(new, path)
    for event in EVENTS:
        events.setdefault(event, []).append({"matcher": "*", "hooks": [handler(event, argv)]})
    return new


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None,
                 argv: list[str] | None = None) -> ConfigEdit:
    path = hooks_path(scope, project_dir)
    data, old = read_json(path)
    new = with_us(data, path, argv)
    plan = ConfigEdit([FileChange(path, old, None if (old is not None and new == data) else dump_json(new, old))])
    if argv is None:
        plan.notes.append(transport_note(TITLE))
    plan.notes.append("OpenHands reads only one hooks.json: a project's .openhands/hooks.json replaces the user's "
                      "(`agenthooks doctor` checks the project you run it in)")
    return plan


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    path = hooks_path(scope, project_dir)
    data, old = read_json(path)
    new = without_us(data, path)
    return ConfigEdit([FileChange(path, old, None if (old is None or new == data) else dump_json(new, old))],
                      removal=True)


OPTIONS: dict[str, dict[str, Any]] = {}


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: Any) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout, f"{TITLE} ({scope}) wired to agent-hooks")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from {TITLE} ({scope})")


# -- doctor --------------------------------------------------------------------------------


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    found = []
    for scope in SCOPES:
        path = hooks_path(scope, cwd)
        try:
            data, _ = read_json(path)
            if any(our_groups(data, path).values()):
                found.append(scope)
        except InstallError:
            continue
    return found


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
        gone = broken_wiring(sorted({h.get("command", "") for hs in ours.values() for h in hs}))
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
