"""Small builders for runtime tests: plugins from plain functions."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from agent_hooks_core import hookimpl


def plugin(name: str, **impls: Callable[..., Any] | tuple[Callable[..., Any], dict[str, Any]]) -> types.ModuleType:
    """A module-like plugin ``name`` whose hooks are ``impls`` (hook -> function, or (function, marker options))."""
    module = types.ModuleType(name)
    for hook, impl in impls.items():
        options: dict[str, Any] = {}
        if isinstance(impl, tuple):
            impl, options = impl
        func = _renamed(impl, hook)
        setattr(module, hook, hookimpl(**options)(func) if options else hookimpl(func))
    return module


def _renamed(func: Callable[..., Any], hook: str) -> Callable[..., Any]:
    """pluggy reads the hook name from the attribute; a lambda keeps its own signature."""
    try:
        func.__name__ = hook
    except (AttributeError, TypeError):
        pass
    return func


def answering(name: str, hook: str, answer: Any, log: list[str] | None = None, **options: Any) -> types.ModuleType:
    """A plugin whose ``hook`` handler appends ``name`` to ``log`` and returns ``answer``."""

    def handler(event: Any) -> Any:
        if log is not None:
            log.append(name)
        return answer

    return plugin(name, **{hook: (handler, options) if options else handler})
