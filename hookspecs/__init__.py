"""The contract plugin authors code against: markers, the catalogue, hookspecs and models.

``models`` (pydantic) is imported lazily: ``agent_hooks_core.hookspecs.models``.
"""

from .catalogue import BY_NAME, HOOKS, HookDef
from .markers import PROJECT, hookimpl, hookspec

__all__ = ["BY_NAME", "HOOKS", "PROJECT", "HookDef", "hookimpl", "hookspec"]
