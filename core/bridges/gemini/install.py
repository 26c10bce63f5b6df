"""``agenthooks install gemini``: our handlers in Gemini CLI's ``settings.json`` (``hooks``).

Timeouts are milliseconds. Project hooks (``.gemini/settings.json``) load only in a trusted
folder (``~/.gemini/trustedFolders.json``); ``status`` says when the folder is not trusted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...settings import home_dir
from ..hostkit.installer import HooksFile
from ..hostkit.jsonconfig import InstallError, read_json
from ..hosts.gemini import EVENTS

HOST = "gemini"
#: milliseconds (Gemini's unit)
TIMEOUT_MS = 60_000
NAME = "agent-hooks"


def gemini_home(environ: Mapping[str, str] | None = None) -> Path:
    return home_dir(environ) / ".gemini"


def trusted_folders_path(environ: Mapping[str, str] | None = None) -> Path:
    env = (os.environ if environ is None else environ).get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(env) if env else gemini_home(environ) / "trustedFolders.json"


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


class GeminiInstaller(HooksFile):
    host = HOST
    title = "Gemini CLI"
    events = EVENTS
    gating = frozenset({"BeforeTool"})
    what = "settings"

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return gemini_home(environ) / "settings.json"
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".gemini" / "settings.json"
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, object]:
        return {"type": "command", "name": NAME, "command": self.command(event, argv), "timeout": TIMEOUT_MS}

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        """Both settings files, and the trusted-folders file that decides whether project hooks run."""
        return [*super().config_targets(project_dir, environ), trusted_folders_path(environ)]

    def install_notes(self, scope: str, path: Path) -> list[str]:
        if scope == "project" and not folder_trusted(path.parent.parent):
            return [f"Gemini CLI loads project hooks only in a trusted folder: trust {path.parent.parent} "
                    "when Gemini asks (or /permissions); headless runs need GEMINI_CLI_TRUST_WORKSPACE=true"]
        return []

    def scope_problems(self, scope: str, path: Path, data: dict[str, object], ours: dict[str, list[dict[str, object]]],
                       where: str) -> list[str]:
        lines = []
        config = data.get("hooksConfig")
        if isinstance(config, dict) and config.get("enabled") is False:
            lines.append(f"problem: Gemini CLI hooks are turned off (hooksConfig.enabled = false in {path})")
        if isinstance(config, dict) and NAME in (config.get("disabled") or []):
            lines.append(f"problem: {path}: hooksConfig.disabled lists {NAME!r}, so Gemini skips our hooks")
        if scope == "project" and ours and not folder_trusted(path.parent.parent):
            lines.append(f"warning: {where}: the folder is not trusted, so Gemini does not load these hooks "
                         "(trust it in Gemini, or GEMINI_CLI_TRUST_WORKSPACE=true for headless runs)")
        return lines


INSTALLER = GeminiInstaller()
SCOPES = INSTALLER.SCOPES
GATING = INSTALLER.gating
settings_path = INSTALLER.path
plan_install = INSTALLER.plan_install
plan_uninstall = INSTALLER.plan_uninstall
install = INSTALLER.install
uninstall = INSTALLER.uninstall
config_targets = INSTALLER.config_targets
wired = INSTALLER.wired
status = INSTALLER.status
