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

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it so)
if TYPE_CHECKING:  # what mypy and IDEs see; at run time each name is imported on first access
    from typing import Any

    from .context import HookContext, NoUI, StatusLine
    from .errors import AgentHooksError, HookError, PayloadError, PluginError, UnknownHookError
    from .event import HookEvent
    from .hookspecs.markers import hookimpl, hookspec
    from .runtime import Outcome, Runtime
    from .timeouts import cheap
    from .toolwrap import HookToolWrapper, ToolBlocked

__version__ = "0.1.0"

# Public name -> the module that defines it. Imported on first access (PEP 562): the per-event
# commands (``agenthooks claude-code``, the relay to the warm server) import this package for its
# submodules, and must not pay for pluggy and the runtime when they answer without them.
_LAZY = {
    "AgentHooksError": ".errors",
    "HookContext": ".context",
    "HookError": ".errors",
    "HookEvent": ".event",
    "HookToolWrapper": ".toolwrap",
    "NoUI": ".context",
    "Outcome": ".runtime",
    "PayloadError": ".errors",
    "PluginError": ".errors",
    "Runtime": ".runtime",
    "StatusLine": ".context",
    "ToolBlocked": ".toolwrap",
    "UnknownHookError": ".errors",
    "cheap": ".timeouts",
    "hookimpl": ".hookspecs.markers",
    "hookspec": ".hookspecs.markers",
}


def _load_runtime(cwd: str | None = None, **options: Any) -> Runtime:
    """``Runtime.from_settings`` (the runtime module installs it): discovery (settings, trust, entry
    points) is imported on first use, and only from here, above both it and the runtime."""
    from .discovery import load_runtime

    return load_runtime(cwd=cwd, **options)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next access is a plain global lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
