"""The contract plugin authors code against: markers, the catalogue, hookspecs and models.

``models`` (pydantic) is imported lazily: ``agent_hooks_core.hookspecs.models``.

Layout: this folder, ``hookspecs/``, is the sub-package ``agent_hooks_core.hookspecs``; its parent
package ``agent_hooks_core`` is the ``core/`` folder (pyproject.toml's ``package-dir``), so ``..``
in these modules means ``core/``. See docs/architecture.md.
"""

from .catalogue import BY_NAME, HOOKS, HookDef
from .markers import PROJECT, hookimpl, hookspec

__all__ = ["BY_NAME", "HOOKS", "PROJECT", "HookDef", "hookimpl", "hookspec"]
