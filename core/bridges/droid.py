"""Factory Droid (0.225): Claude Code's command-hook protocol in ``~/.factory/hooks.json``.

The events sit at the **top level** of hooks.json; a ``{"hooks": …}`` wrapper there is silently
ignored (it works only in settings.json, which Droid reads only when hooks.json is absent), so
``doctor`` reports both traps. Exit 2 and a JSON deny block; exit 1 and a timeout let the tool run.
See docs/hosts/droid.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import home_dir
from .hostkit import gate as g
from .hostkit.claudeformat import ClaudeFormatAdapter
from .hostkit.claudeinstall import ClaudeFormatInstaller
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


def _folder(scope: str, project: str, environ: Mapping[str, str] | None) -> Path:
    return factory_home(environ) if scope == "user" else Path(project) / ".factory"


def _traps(scope: str, path: Path, data: dict[str, Any], project: str | None) -> list[str]:
    lines = []
    wrapped = data.get("hooks")
    if isinstance(wrapped, dict) and wrapped:
        ours = bool(INSTALLER.ours(wrapped))  # the table under the wrapper, read as Droid reads the top level
        lines.append(f"{'problem' if ours else 'warning'}: {path}: Droid ignores a \"hooks\" wrapper in hooks.json "
                     f"(events must be at the top level), so the hooks under it never run"
                     + (f"; run `agenthooks install droid --{scope}`" if ours else ""))
    settings = path.parent / "settings.json"
    try:
        other = read_json(settings)[0].get("hooks") if path.exists() else None
    except InstallError:
        other = None
    if isinstance(other, dict) and other:
        lines.append(f"warning: {settings}: Droid ignores \"hooks\" in settings.json while {path} exists; "
                     "move them to hooks.json")
    return lines


INSTALLER = ClaudeFormatInstaller(
    host="droid", title="Factory Droid",
    paths={"user": lambda project, env: _folder("user", project, env) / "hooks.json",
           "project": lambda project, env: _folder("project", project, env) / "hooks.json"},
    events=EVENTS, gating=ADAPTER.GATING, wrapper=None, timeout=60, traps=_traps,
    # Droid reads hooks from settings.json when hooks.json is absent
    also_protect=lambda project, env: [_folder("user", project, env) / "settings.json",
                                       _folder("project", project, env) / "settings.json"],
)


def main(argv: list[str]) -> int:
    """``agenthooks droid``: one Droid hook event on stdin, the answer on stdout."""
    from .hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Factory Droid")


__all__ = ["ADAPTER", "EVENTS", "INSTALLER", "DroidAdapter", "main"]
