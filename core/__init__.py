"""agent-hooks: the pytest-style plugin ecosystem for AI coding-agent lifecycle hooks.

Plugin authors::

    from agent_hooks_core import hookimpl

    @hookimpl
    def pre_tool(event):
        if "rm -rf" in event.arguments.get("command", ""):
            return {"block": True, "message": "rm -rf is not allowed"}

Hosts::

    from agent_hooks_core import Runtime
    rt = Runtime.from_settings(cwd=".")
    out = rt.fire("pre_tool", {"tool_name": "shell_exec", "arguments": {"command": "ls"}})

Layout: this folder, ``core/``, is the package ``agent_hooks_core``; its sub-package
``agent_hooks_core.hookspecs`` lives in the top-level ``hookspecs/`` folder (pyproject.toml's
``package-dir``), so ``from .hookspecs import specs`` here reads ``hookspecs/specs.py``. The map of
modules is docs/architecture.md.
"""

from typing import Any

from .context import HookContext, NoUI, StatusLine
from .errors import AgentHooksError, HookError, PayloadError, PluginError, UnknownHookError
from .event import HookEvent
from .hookspecs.markers import hookimpl, hookspec
from .runtime import Outcome, Runtime
from .timeouts import cheap
from .toolwrap import HookToolWrapper, ToolBlocked

__version__ = "0.1.0"


def _load_runtime(cwd: str | None = None, **options: Any) -> Runtime:
    # Imported on first use: discovery (settings, trust, entry points) costs import time that
    # a Runtime built from plugins in code never needs. The package sits above runtime and
    # discovery, so this is no import cycle.
    from .discovery import load_runtime

    return load_runtime(cwd=cwd, **options)


Runtime._settings_loader = _load_runtime

__all__ = [
    "AgentHooksError",
    "HookContext",
    "HookError",
    "HookEvent",
    "HookToolWrapper",
    "NoUI",
    "Outcome",
    "PayloadError",
    "PluginError",
    "Runtime",
    "StatusLine",
    "ToolBlocked",
    "UnknownHookError",
    "__version__",
    "cheap",
    "hookimpl",
    "hookspec",
]
