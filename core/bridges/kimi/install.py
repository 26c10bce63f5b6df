"""``agenthooks install kimi``: our ``[[hooks]]`` in Kimi CLI's ``config.toml``.

Kimi reads hooks from its one config file (``~/.kimi/config.toml``, or ``$KIMI_SHARE_DIR``), no
project hooks. A hook blocks only by exit 2 or a JSON deny; a hook that cannot start or times out
lets the tool run (fail open), so ``status`` checks that what our hooks run exists and says that
this host cannot fail closed on its own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

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
GATING = frozenset({"PreToolUse"})

HOST = "kimi"
TITLE = "Kimi CLI"
SCOPES = ("user",)
#: seconds (Kimi allows 1-600, default 30)
TIMEOUT = 60


def kimi_home(environ: Mapping[str, str] | None = None) -> Path:
    env = (os.environ if environ is None else environ).get("KIMI_SHARE_DIR")
    return Path(env).expanduser() if env else home_dir(environ) / ".kimi"


def config_path(scope: str = "user", environ: Mapping[str, str] | None = None) -> Path:
    if scope != "user":
        raise InstallError(f"{TITLE} has no {scope} hooks: use --user (the default)")
    return Path(os.path.abspath(kimi_home(environ))) / "config.toml"


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write."""
    return [config_path(environ=environ)]


def entry(event: str, argv: list[str] | None = None) -> dict[str, object]:
    return {"event": event, "command": shell_command(event_argv(HOST, event, event in GATING, argv)),
            "matcher": "", "timeout": TIMEOUT}


def is_ours(item: object) -> bool:
    return isinstance(item, Mapping) and runs_us(item.get("command"), HOST)


def plan_install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None,
                 argv: list[str] | None = None) -> ConfigEdit:
    path = config_path(scope)
    doc, old = read_hooks_toml(path)
    plan = ConfigEdit([hooks_change(path, doc, old, is_ours, [entry(e, argv) for e in EVENTS])])
    if argv is None:
        plan.notes.append(transport_note(TITLE))
    plan.notes.append("Kimi CLI fails open when a hook cannot start or times out: keep this environment in place "
                      "(`agenthooks doctor` checks it)")
    return plan


def plan_uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    return hooks_removal(config_path(scope), is_ours)


OPTIONS: dict[str, dict[str, object]] = {}


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: object) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout, f"{TITLE} ({scope}) wired to agent-hooks")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from {TITLE} ({scope})")


# -- doctor --------------------------------------------------------------------------------


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    try:
        doc, _ = read_hooks_toml(config_path())
    except InstallError:
        return []
    return ["user"] if any(is_ours(h) for h in hook_entries(doc)) else []


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    path = config_path()
    try:
        doc, _ = read_hooks_toml(path)
    except InstallError as exc:
        return [f"problem: {exc}"]
    ours = [h for h in hook_entries(doc) if is_ours(h)]
    if not ours:
        return [f"warning: {TITLE} is not wired to agent-hooks; run `agenthooks install kimi`"]
    where = f"{TITLE} hooks ({path})"
    lines = []
    events = {str(h.get("event")) for h in ours}
    missing = [e for e in EVENTS if e not in events]
    gone = broken_wiring(sorted(str(h.get("command", "")) for h in ours))
    narrowed = sorted(str(h.get("event")) for h in ours if h.get("event") in GATING and h.get("matcher", "") != "")
    if gone:
        # Kimi lets every tool run when the hook command cannot start
        lines.append(f"problem: {where}: {gone}, and Kimi CLI then lets every tool run (it fails open); "
                     "run `agenthooks install kimi`")
    if narrowed:
        lines.append(f"problem: {where}: a matcher limits {', '.join(narrowed)} to some tools; the others run "
                     "unchecked; run `agenthooks install kimi`")
    if missing:
        lines.append(f"warning: {where}: not wired for {', '.join(missing)}; run `agenthooks install kimi`")
    lines.append(f"warning: {where}: Kimi CLI fails open when a hook cannot start or times out (only exit 2 or a JSON "
                 "deny blocks); agent-hooks' own failures block")
    if not (gone or narrowed or missing):
        lines.insert(0, f"ok: {where}: wired for {len(EVENTS)} events")
    return lines
