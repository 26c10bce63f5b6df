"""Factory Droid (0.225): Claude Code's command-hook protocol in ``~/.factory/hooks.json``.

The events sit at the **top level** of hooks.json; a ``{"hooks": …}`` wrapper there is silently
ignored (it works only in settings.json, which Droid reads only when hooks.json is absent), so
``doctor`` reports both traps. Exit 2 and a JSON deny block; exit 1 and a timeout let the tool run.
See docs/hosts/droid.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import home_dir
from .hostkit import gate as g
from .hostkit.claudeformat import ClaudeFormatAdapter
from .hostkit.installer import HooksFile
from .hostkit.jsonconfig import InstallError, read_json
from .hostkit.shape import ToolShape, needs
from .hosts.droid import EVENTS

SHELL = "Execute"
WRITE_TOOLS = frozenset({"Create", "Edit", "MultiEdit"})


class DroidAdapter(ClaudeFormatAdapter):
    name = "droid"
    TITLE = "Factory Droid"
    EVENTS = EVENTS
    SHELL_TOOLS = frozenset({SHELL})
    STOP_GATE = True
    TOOL_SHAPE = ToolShape(fields={SHELL: needs("command")})

    def permission_calls(self, tool: str, arguments: dict[str, Any], cwd: str) -> g.Calls:
        if tool in WRITE_TOOLS and isinstance(arguments.get("file_path"), str):
            content = arguments.get("content") if isinstance(arguments.get("content"), str) else None
            return g.writes([(arguments["file_path"], content)], tool, cwd)
        return super().permission_calls(tool, arguments, cwd)


ADAPTER = DroidAdapter()


def factory_home(environ: Mapping[str, str] | None = None) -> Path:
    return home_dir(environ) / ".factory"


def _folder(scope: str, project_dir: str | os.PathLike[str] | None, environ: Mapping[str, str] | None) -> Path:
    if scope == "user":
        return factory_home(environ)
    if scope == "project":
        return Path(os.path.abspath(project_dir or os.getcwd())) / ".factory"
    raise InstallError(f"unknown scope {scope!r}: use user or project")


class DroidInstaller(HooksFile):
    host = "droid"
    title = "Factory Droid"
    events = EVENTS
    gating = ADAPTER.GATING
    key = None  # events at the top level of hooks.json

    def path(self, scope: str, project_dir: str | os.PathLike[str] | None = None,
             environ: Mapping[str, str] | None = None) -> Path:
        return _folder(scope, project_dir, environ) / "hooks.json"

    def handler(self, event: str, argv: list[str] | None = None) -> dict[str, Any]:
        return {"type": "command", "command": self.command(event, argv), "timeout": 60}

    def config_targets(self, project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
        """hooks.json, and settings.json, whose hooks Droid reads when hooks.json is absent."""
        return [*super().config_targets(project_dir, environ),
                *(_folder(scope, project_dir, environ) / "settings.json" for scope in self.SCOPES)]

    def scope_problems(self, scope: str, path: Path, data: dict[str, Any], ours: dict[str, list[dict[str, Any]]],
                       where: str) -> list[str]:
        lines = []
        wrapped = data.get("hooks")
        if isinstance(wrapped, dict) and wrapped:
            mine = bool(self.ours(wrapped))  # the table under the wrapper, read as Droid reads the top level
            lines.append(f"{'problem' if mine else 'warning'}: {path}: Droid ignores a \"hooks\" wrapper in "
                         "hooks.json (events must be at the top level), so the hooks under it never run"
                         + (f"; run `agenthooks install droid --{scope}`" if mine else ""))
        settings = path.parent / "settings.json"
        try:
            other = read_json(settings)[0].get("hooks") if path.exists() else None
        except InstallError:
            other = None
        if isinstance(other, dict) and other:
            lines.append(f"warning: {settings}: Droid ignores \"hooks\" in settings.json while {path} exists; "
                         "move them to hooks.json")
        return lines


INSTALLER = DroidInstaller()


def main(argv: list[str]) -> int:
    """``agenthooks droid``: one Droid hook event on stdin, the answer on stdout."""
    from .hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Factory Droid")


__all__ = ["ADAPTER", "EVENTS", "INSTALLER", "DroidAdapter", "main"]
