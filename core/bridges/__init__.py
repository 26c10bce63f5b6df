"""Bridges to real agent hosts: one module or package per host, registered here.

Each host has a :class:`~agent_hooks_core.bridges.base.HostAdapter` (events in, answers out, no
I/O) and an installer (wires the host's config to us; ``agenthooks install <host>``, ``uninstall``
and the host's ``doctor`` lines). Transports (``agent_hooks_core.transports``) carry events to
adapters. Adding a host means: one adapter, one installer, one docs page (docs/hosts/<host>.md),
tests, and one line in each table below. Imports are lazy: a bridge process loads one adapter.
"""

from __future__ import annotations

import importlib
from typing import Any

#: host name -> "module:attribute" of its HostAdapter object
ADAPTERS: dict[str, str] = {
    "claude-code": "agent_hooks_core.bridges.claude_code:ADAPTER",
    "pi": "agent_hooks_core.bridges.pi:ADAPTER",
    "omp": "agent_hooks_core.bridges.pi:OMP_ADAPTER",
    "codex": "agent_hooks_core.bridges.codex:ADAPTER",
    "gemini": "agent_hooks_core.bridges.gemini:ADAPTER",
    "cursor": "agent_hooks_core.bridges.cursor:ADAPTER",
    "opencode": "agent_hooks_core.bridges.opencode:ADAPTER",
    "vibe": "agent_hooks_core.bridges.vibe:ADAPTER",
    "kimi": "agent_hooks_core.bridges.kimi:ADAPTER",
}

#: host name -> installer module; it provides ``install(scope, project_dir, dry_run, out, **options) -> int``,
#: ``uninstall(scope, project_dir, dry_run, out) -> int``, ``SCOPES`` (the first is the default),
#: ``status(cwd) -> list[str]`` (doctor lines, each starting "ok: ", "warning: " or "problem: ") and
#: ``config_targets(project_dir, environ) -> list[Path]`` (every file it may write: the control plane)
INSTALLERS: dict[str, str] = {
    "claude-code": "agent_hooks_core.bridges.claude_code_install",
    "pi": "agent_hooks_core.bridges.pi.install:PI",
    "omp": "agent_hooks_core.bridges.pi.install:OMP",
    "codex": "agent_hooks_core.bridges.codex.install",
    "gemini": "agent_hooks_core.bridges.gemini.install",
    "cursor": "agent_hooks_core.bridges.cursor.install",
    "opencode": "agent_hooks_core.bridges.opencode.install",
    "vibe": "agent_hooks_core.bridges.vibe.install",
    "kimi": "agent_hooks_core.bridges.kimi.install",
}


def load(spec: str) -> Any:
    """The object named by ``"module:attribute"`` (or the module for a plain module path)."""
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module


def adapter(host: str) -> Any:
    """The adapter of ``host``; KeyError for an unknown host."""
    return load(ADAPTERS[host])
