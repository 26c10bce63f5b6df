"""Slash commands declared by plugins (``/name args`` in pi, omp and other in-process hosts).

A plugin implements the runtime hook ``agent_commands`` and returns a list of
:class:`AgentCommand` (or dicts with the same keys). The host extension asks the server for the
list once per session (``initialize``), registers each command with the host, and runs it through
the server (``command``). ``run(args)`` gets the text after the command name and returns the text
to show, or None; a plugin that needs its ``ctx`` takes it in ``agent_commands(ctx)`` and closes
over it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .runtime import Runtime

_NAME = re.compile(r"^[a-z0-9][a-z0-9_:-]{0,63}$")


@dataclass(frozen=True)
class AgentCommand:
    """One slash command: ``/name args`` runs ``run(args)``; its return value is shown."""

    name: str
    description: str
    run: Callable[[str], object]
    plugin: str = ""


def declared_commands(rt: Runtime) -> list[AgentCommand]:
    """Every valid command the runtime's plugins declare, first declaration of a name wins.

    A malformed declaration is skipped with one line on stderr (the session goes on)."""
    import sys

    from .errors import HookError

    seen: dict[str, AgentCommand] = {}
    for plugin, items in _declarations(rt):
        if isinstance(items, HookError):
            print(f"agent-hooks: {items}", file=sys.stderr)
            continue
        for item in items if isinstance(items, (list, tuple)) else [items]:
            command = _coerce(item, plugin)
            if command is None:
                print(f"agent-hooks: plugin {plugin!r}: agent_commands returned an invalid command {item!r} "
                      "(needs name, description and a callable run)", file=sys.stderr)
            elif command.name not in seen:
                seen[command.name] = command
    return list(seen.values())


def run_command(rt: Runtime, name: str, args: str) -> str | None:
    """Run command ``name``; LookupError if no plugin declares it. Errors become the output."""
    for command in declared_commands(rt):
        if command.name == name:
            try:
                result = command.run(args)
            except Exception as exc:
                return f"/{name} failed in plugin {command.plugin!r}: {type(exc).__name__}: {exc}"
            return None if result is None else str(result)
    raise LookupError(f"no plugin declares the command {name!r}")


def _declarations(rt: Runtime) -> list[tuple[str, object]]:
    """(plugin, what its ``agent_commands`` returned or the HookError it raised), in the runtime's order."""
    from .errors import HookError

    out: list[tuple[str, object]] = []
    caller = rt.pm.hook.agent_commands
    for impl in sorted(caller.get_hookimpls(), key=rt._impl_key):
        plugin = impl.plugin_name
        try:
            value = impl.function(*[rt.context(plugin) for _ in impl.argnames])
        except Exception as exc:
            value = HookError(plugin, "agent_commands", f"{type(exc).__name__}: {exc}")
        if value is not None:
            out.append((plugin, value))
    return out


def _coerce(item: object, plugin: str) -> AgentCommand | None:
    name: object
    description: object
    run: object
    if isinstance(item, AgentCommand):
        name, description, run = item.name, item.description, item.run
    elif isinstance(item, dict):
        name, description, run = item.get("name"), item.get("description", ""), item.get("run")
    else:
        return None
    if not (isinstance(name, str) and _NAME.match(name) and isinstance(description, str) and callable(run)):
        return None
    return AgentCommand(name, description, run, plugin)
