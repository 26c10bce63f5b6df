"""The marker pair for project ``agent_hooks``: what plugin authors import."""

from __future__ import annotations

import pluggy

PROJECT = "agent_hooks"

#: Marks a function as the specification of a hook (used by agent_hooks_core only).
hookspec = pluggy.HookspecMarker(PROJECT)
#: Marks a plugin function as an implementation: ``@hookimpl`` or ``@hookimpl(tryfirst=True)``.
hookimpl = pluggy.HookimplMarker(PROJECT)
