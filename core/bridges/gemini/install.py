"""``agenthooks install gemini``: our handlers in Gemini CLI's ``settings.json`` (``hooks``).

Timeouts are milliseconds. Project hooks (``.gemini/settings.json``) load only in a trusted
folder (``~/.gemini/trustedFolders.json``); ``status`` says when the folder is not trusted.
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
GATING = frozenset({"BeforeTool"})

HOST = "gemini"
SCOPES = ("user", "project")
#: milliseconds (Gemini's unit)
TIMEOUT_MS = 60_000
NAME = "agent-hooks"


def gemini_home(environ: Mapping[str, str] | None = None) -> Path:
    return home_dir(environ) / ".gemini"


def settings_path(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
    if scope == "user":
        return gemini_home() / "settings.json"
    if scope == "project":
        return Path(os.path.abspath(project_dir or os.getcwd())) / ".gemini" / "settings.json"
    raise InstallError(f"unknown scope {scope!r}: use user or project")


def handler(event: str, argv: list[str] | None = None) -> dict[str, Any]:
    return {"type": "command", "name": NAME, "command": shell_command(event_argv(HOST, event, event in GATING, argv)),
            "timeout": TIMEOUT_MS}


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and runs_us(entry.get("command"), HOST)


def _hooks(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" must be an object; nothing was changed")
    return hooks


def without_us(data: dict[str, Any], path: Path) -> dict[str, Any]:
    new = json.loads(json.dumps(data))
    hooks = _hooks(new, path)
    for event in [e for e, v in hooks.items() if isinstance(v, list)]:
        groups = []
        for group in hooks[event]:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list) and any(is_ours(h) for h in inner):
                group = {**group, "hooks": [h for h in inner if not is_ours(h)]}
                if not group["hooks"]:
                    continue
            groups.append(group)
        if groups:
            hooks[event] = groups
        else:
            del hooks[event]
    if "hooks" in new and not hooks:
        del new["hooks"]
    return new


def with_us(data: dict[str, Any], path: Path, argv: list[str] | None) -> dict[str, Any]:
    new = without_us(data, path)
    hooks = new.setdefault("hooks", {})
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} must be a list; nothing was changed")
        groups.append({"hooks": [handler(event, argv)]})
    return new


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None, argv: list[str] | None = None) -> ConfigEdit:
    path = settings_path(scope, project_dir)
    data, old = read_json(path)
    new = with_us(data, path, argv)
    plan = ConfigEdit([FileChange(path, old, None if (old is not None and new == data) else dump_json(new, old))])
    if argv is None:
        plan.notes.append(transport_note("Gemini CLI"))
    if scope == "project" and not folder_trusted(path.parent.parent):
        plan.notes.append(f"Gemini CLI loads project hooks only in a trusted folder: trust {path.parent.parent} "
                          "when Gemini asks (or /permissions); headless runs need GEMINI_CLI_TRUST_WORKSPACE=true")
    return plan


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    path = settings_path(scope, project_dir)
    data, old = read_json(path)
    new = without_us(data, path)
    return ConfigEdit([FileChange(path, old, None if (old is None or new == data) else dump_json(new, old))],
                      removal=True)


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: Any) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout,
                    f"Gemini CLI ({scope}) wired to agent-hooks")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from Gemini CLI ({scope})")


# -- doctor --------------------------------------------------------------------------------


def trusted_folders_path(environ: Mapping[str, str] | None = None) -> Path:
    env = (os.environ if environ is None else environ).get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(env) if env else gemini_home(environ) / "trustedFolders.json"


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project scope of ``project_dir``),
    and the trusted-folders file that decides whether project hooks run."""
    return [gemini_home(environ) / "settings.json", settings_path("project", project_dir),
            trusted_folders_path(environ)]


def folder_trusted(folder: str | os.PathLike[str]) -> bool:
    """True when ``trustedFolders.json`` trusts ``folder`` (itself, or a parent with TRUST_PARENT
    semantics: a TRUST_FOLDER entry for an ancestor)."""
    try:
        rules, _ = read_json(trusted_folders_path())
    except InstallError:
        return False
    here = Path(os.path.abspath(folder))
    for raw, level in rules.items():
        rule = Path(os.path.abspath(raw))
        if level == "DO_NOT_TRUST":
            continue
        if here == rule or (level in ("TRUST_FOLDER", "TRUST_PARENT") and rule in here.parents):
            return True
    return False


def ours(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = data.get("hooks")
    for event, groups in (hooks.items() if isinstance(hooks, dict) else []):
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, dict) else None
            found.setdefault(event, []).extend(h for h in (inner if isinstance(inner, list) else []) if is_ours(h))
    return {e: hs for e, hs in found.items() if hs}


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    found = []
    for scope in SCOPES:
        try:
            if ours(read_json(settings_path(scope, cwd))[0]):
                found.append(scope)
        except InstallError:
            continue
    return found


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    lines = []
    any_wired = False
    for scope in SCOPES:
        path = settings_path(scope, cwd)
        try:
            data, _ = read_json(path)
        except InstallError as exc:
            lines.append(f"problem: {exc}")
            continue
        found = ours(data)
        config = data.get("hooksConfig")
        if isinstance(config, dict) and config.get("enabled") is False:
            lines.append(f"problem: Gemini CLI hooks are turned off (hooksConfig.enabled = false in {path})")
        if isinstance(config, dict) and NAME in (config.get("disabled") or []):
            lines.append(f"problem: {path}: hooksConfig.disabled lists {NAME!r}, so Gemini skips our hooks")
        if not found:
            continue
        any_wired = True
        where = f"Gemini CLI {scope} settings ({path})"
        missing = [e for e in EVENTS if e not in found]
        gone = broken_wiring(sorted({h.get("command", "") for hs in found.values() for h in hs}))
        if gone:
            lines.append(f"problem: {where}: {gone}; run `agenthooks install gemini --{scope}`")
        elif missing:
            lines.append(f"warning: {where}: not wired for {', '.join(missing)}; run `agenthooks install gemini --{scope}`")
        elif scope == "project" and not folder_trusted(path.parent.parent):
            lines.append(f"warning: {where}: the folder is not trusted, so Gemini does not load these hooks "
                         "(trust it in Gemini, or GEMINI_CLI_TRUST_WORKSPACE=true for headless runs)")
        else:
            lines.append(f"ok: {where}: wired for {len(EVENTS)} events")
    if not any_wired:
        lines.append("warning: Gemini CLI is not wired to agent-hooks; run `agenthooks install gemini`")
    return lines
