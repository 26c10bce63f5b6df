"""``agenthooks install vibe``: our ``[[hooks]]`` in Mistral Vibe's ``hooks.toml``.

One hook per Vibe hook type, named ``agent-hooks-<type>``; the tool hooks are ``strict = true``,
without which any failure (a crash, a timeout, bad output) lets the tool run. Project hooks
(``.vibe/hooks.toml``) load only in a folder trusted in ``~/.vibe/trusted_folders.toml`` (or with
``--trust``), else Vibe skips them silently, and a project hook with one of our names replaces ours:
``status`` reports both.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO, TypeGuard

from ...settings import home_dir
from ..hostkit.jsonconfig import (
    ConfigEdit,
    InstallError,
    broken_wiring,
    event_argv,
    run_plan,
    runs_us,
    shell_command,
    transport_note,
)
from ..hostkit.tomlconfig import hook_entries, hooks_change, hooks_removal, read_hooks_toml
from .adapter import EVENTS

#: events whose command fails closed (the fast client exits 2 on its own failures there)
GATING = frozenset({"pre_tool"})
#: Vibe's "escalate any failure to a deny / a cleared output" flag; not allowed on post_agent
STRICT = frozenset({"pre_tool", "post_tool"})

HOST = "vibe"
TITLE = "Mistral Vibe"
SCOPES = ("user", "project")
#: seconds
TIMEOUT = 60


def vibe_home(environ: Mapping[str, str] | None = None) -> Path:
    env = (os.environ if environ is None else environ).get("VIBE_HOME")
    return Path(env).expanduser() if env else home_dir(environ) / ".vibe"


def hooks_path(scope: str, project_dir: str | os.PathLike[str] | None = None,
               environ: Mapping[str, str] | None = None) -> Path:
    if scope == "user":
        return Path(os.path.abspath(vibe_home(environ))) / "hooks.toml"
    if scope == "project":
        return Path(os.path.abspath(project_dir or os.getcwd())) / ".vibe" / "hooks.toml"
    raise InstallError(f"unknown scope {scope!r}: use user or project")


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project scope of ``project_dir``)."""
    return [hooks_path("user", environ=environ), hooks_path("project", project_dir)]


def hook_name(event: str) -> str:
    return "agent-hooks-" + event.replace("_", "-")


NAMES = frozenset(hook_name(e) for e in EVENTS)


def entry(event: str, argv: list[str] | None = None) -> dict[str, object]:
    new: dict[str, object] = {"name": hook_name(event), "type": event,
                           "command": shell_command(event_argv(HOST, event, event in GATING, argv)),
                           "timeout": float(TIMEOUT)}
    if event in STRICT:
        new["match"] = "*"
        new["strict"] = True
    return new


def is_ours(item: object) -> TypeGuard[Mapping[str, object]]:
    return isinstance(item, Mapping) and runs_us(item.get("command"), HOST)


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None,
                 argv: list[str] | None = None) -> ConfigEdit:
    path = hooks_path(scope, project_dir)
    doc, old = read_hooks_toml(path)
    keep = [h for h in hook_entries(doc) if not is_ours(h)]
    taken = sorted({str(h.get("name")) for h in keep} & NAMES)
    if taken:
        raise InstallError(f"{path}: a hook of yours is named {', '.join(taken)}, the name agent-hooks uses; "
                           "rename it, nothing was changed")
    plan = ConfigEdit([hooks_change(path, doc, old, is_ours, [entry(e, argv) for e in EVENTS])])
    if argv is None:
        plan.notes.append(transport_note(TITLE))
    if scope == "project":
        root = path.parent.parent
        if trusted(root) is not True:
            plan.notes.append(f"Mistral Vibe loads .vibe/hooks.toml only in a trusted folder: trust {root} when "
                              f"Vibe asks, or add it to \"trusted\" in {trust_path()} (or run vibe --trust)")
    return plan


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    return hooks_removal(hooks_path(scope, project_dir), is_ours)


OPTIONS: dict[str, dict[str, object]] = {}


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: object) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout,
                    f"{TITLE} ({scope}) wired to agent-hooks")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from {TITLE} ({scope})")


# -- doctor --------------------------------------------------------------------------------


def trust_path() -> Path:
    return Path(os.path.abspath(vibe_home())) / "trusted_folders.toml"


def trusted(folder: Path) -> bool | None:
    """Vibe's decision for ``folder``: the closest trusted/untrusted ancestor, None when undecided."""
    import tomlkit

    try:
        data = tomlkit.parse(trust_path().read_text(encoding="utf-8")).unwrap()
    except Exception:  # unreadable or not TOML: Vibe treats it as no decision
        return None
    yes = {str(p) for p in data.get("trusted", []) if isinstance(p, str)}
    no = {str(p) for p in data.get("untrusted", []) if isinstance(p, str)}
    current = Path(os.path.realpath(folder))
    while True:
        if str(current) in yes:
            return True
        if str(current) in no:
            return False
        if current.parent == current:
            return None
        current = current.parent


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """Scopes whose hooks.toml runs our bridge."""
    found = []
    for scope in SCOPES:
        try:
            doc, _ = read_hooks_toml(hooks_path(scope, cwd))
        except InstallError:
            continue
        if any(is_ours(h) for h in hook_entries(doc)):
            found.append(scope)
    return found


def _check(where: str, scope: str, ours: list[Mapping[str, object]]) -> list[str]:
    lines = []
    by_type = {str(h.get("type")): h for h in ours}
    missing = [e for e in EVENTS if e not in by_type]
    lax = [e for e in STRICT if e in by_type and by_type[e].get("strict") is not True]
    gone = broken_wiring(sorted(str(h.get("command", "")) for h in ours))
    if lax:
        lines.append(f"problem: {where}: {', '.join(sorted(lax))} not strict = true, so any failure of ours lets "
                     f"the tool run; run `agenthooks install vibe --{scope}`")
    if gone:
        lines.append(f"problem: {where}: {gone}; run `agenthooks install vibe --{scope}`")
    if missing:
        lines.append(f"warning: {where}: not wired for {', '.join(missing)}; run `agenthooks install vibe --{scope}`")
    return lines


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    lines: list[str] = []
    any_wired = False
    project = hooks_path("project", cwd)
    project_trust = trusted(project.parent.parent)
    for scope in SCOPES:
        path = hooks_path(scope, cwd)
        try:
            doc, _ = read_hooks_toml(path)
        except InstallError as exc:
            lines.append(f"problem: {exc}")
            continue
        entries = hook_entries(doc)
        ours = [h for h in entries if is_ours(h)]
        if scope == "project" and project_trust is True:
            # Vibe loads the project file first and keeps the first hook of a name
            shadow = sorted({str(h.get("name")) for h in entries if not is_ours(h)} & NAMES)
            if shadow:
                lines.append(f"problem: {path} defines {', '.join(shadow)}, which replaces agent-hooks' own hook "
                             "of that name in this trusted folder; remove it or untrust the folder")
        if not ours:
            continue
        any_wired = True
        where = f"{TITLE} {scope} hooks ({path})"
        found = _check(where, scope, ours)
        if scope == "project" and project_trust is not True:
            found.append(f"warning: {where}: the folder is not trusted in {trust_path()}, so Vibe skips these hooks "
                         "silently (trust it when Vibe asks, or run vibe --trust)")
        lines.extend(found or [f"ok: {where}: wired for {len(EVENTS)} hook types, strict"])
    if not any_wired:
        lines.append("warning: Mistral Vibe is not wired to agent-hooks; run `agenthooks install vibe`")
    return lines
