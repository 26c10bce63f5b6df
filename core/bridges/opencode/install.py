"""``agenthooks install opencode``: the shipped ``plugin.ts`` copied into OpenCode's plugin
directory (``~/.config/opencode/plugin/`` or ``<project>/.opencode/plugin/``) with this
environment's interpreter baked in, so the plugin starts ``python -I -m agent_hooks_core serve
--stdio`` from the environment that has the plugins. Planned, written and removed by the shared
:class:`~agent_hooks_core.bridges.hostkit.extension.ExtensionFile`."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...settings import home_dir
from ..hostkit.extension import MARKER, ExtensionFile, bake, baked, shipped
from ..hostkit.jsonconfig import ConfigEdit, InstallError

HOST = "opencode"
SCOPES = ("user", "project")
FILENAME = "agent-hooks.ts"

__all__ = ["INSTALLER", "MARKER", "InstallError", "plan_install", "plan_uninstall", "rendered", "source"]


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    base = (os.environ if environ is None else environ).get("XDG_CONFIG_HOME") or home_dir(environ) / ".config"
    return Path(base) / "opencode"


def source() -> str:
    return shipped(__package__ or __name__.rpartition(".")[0], "plugin.ts")


def rendered(python: str | None = None, args: list[str] | None = None) -> str:
    values: dict[str, Any] = {"python": python or str(Path(sys.executable).absolute())}
    if args:
        values["args"] = args
    return bake(source(), values)


class OpenCodePlugin(ExtensionFile):
    host = HOST
    title = "OpenCode"
    what = "plugin"
    SCOPES = SCOPES
    FILENAME = FILENAME

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        if scope == "user":
            return config_dir(environ) / "plugin" / FILENAME
        if scope == "project":
            return Path(os.path.abspath(project_dir or os.getcwd())) / ".opencode" / "plugin" / FILENAME
        raise InstallError(f"unknown scope {scope!r}: use user or project")

    def render(self, **options: Any) -> str:
        return rendered(options.get("python"), options.get("args"))

    def install_notes(self, scope: str, path: Path) -> list[str]:
        return ["opencode run needs permission to run bash (opencode.json \"permission\"); agent-hooks decides "
                "what runs"]

    def status(self, cwd: str | os.PathLike[str] | None = None) -> list[str]:
        lines = []
        for scope, path, text, unreadable in self.files(cwd):
            if unreadable is not None:
                lines.append(f"problem: {unreadable}")
                continue
            if not text or not self.is_ours(text):
                continue
            python = (baked(text) or {}).get("python")
            where = f"OpenCode {scope} plugin ({path})"
            if not isinstance(python, str) or not os.path.exists(python):
                lines.append(f"problem: {where}: its interpreter {python} does not exist; "
                             f"run `agenthooks install opencode --{scope}`")
            elif text != rendered(python, None) and bake(text, {}) != source():
                lines.append(f"warning: {where}: older than this agent-hooks; "
                             f"run `agenthooks install opencode --{scope}`")
            else:
                lines.append(f"ok: {where}: installed, runs {python}")
        if not lines:
            lines.append("warning: OpenCode is not wired to agent-hooks; run `agenthooks install opencode`")
        return lines


INSTALLER = OpenCodePlugin()


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None, python: str | None = None,
                 args: list[str] | None = None) -> ConfigEdit:
    return INSTALLER.plan_install(scope, project_dir, python=python, args=args)


plan_uninstall = INSTALLER.plan_uninstall
install = INSTALLER.install
uninstall = INSTALLER.uninstall
wired = INSTALLER.wired
status = INSTALLER.status
config_targets = INSTALLER.config_targets
plugin_path = INSTALLER.path
