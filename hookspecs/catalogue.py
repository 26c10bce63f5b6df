"""The canonical hook catalogue, collected from the hookspecs.

One :class:`HookDef` per canonical hook: when it fires, how the answers of several plugins
combine (the structured rule the reducer executes), and the names the seed systems use for it.
Nothing here is written by hand: each hook is declared once, with :func:`.hookdef.canonical` on
its hookspec in :mod:`.specs`. This module imports nothing heavy: the runtime, the bridges and
``agenthooks hooks`` read it on their hot paths.
"""

from __future__ import annotations

from . import specs
from .hookdef import ATTRIBUTE, Category, HookDef, declared

__all__ = [
    "BY_NAME", "HOOKS", "RUNTIME_HOOKS", "SYSTEMS", "Category", "HookDef", "alias_index", "get", "resolve",
    "unknown_hook_message",
]

#: The seed systems whose hook names map onto the catalogue: every (system, seed hook, canonical
#: hook, rule) row is in the repository's ``docs/seed-hooks.tsv`` (not shipped), from the
#: seed hook systems described in docs/hosts/protocols.md and docs/design.md.
SYSTEMS = ("chibi", "omp", "pi-ext", "pi-agent")

#: Every canonical hook, in declaration order (the order of docs/hooks.md).
HOOKS: tuple[HookDef, ...] = declared(vars(specs))

BY_NAME: dict[str, HookDef] = {h.name: h for h in HOOKS}

#: The runtime's own hooks: not agent lifecycle moments but services of the runtime.
RUNTIME_HOOKS: tuple[str, ...] = tuple(
    name for name, obj in vars(specs).items()
    if hasattr(obj, "agent_hooks_spec") and not hasattr(obj, ATTRIBUTE)
)


def get(name: str) -> HookDef:
    """The hook named ``name``; :class:`KeyError` with a suggestion otherwise."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(unknown_hook_message(name)) from None


def unknown_hook_message(name: str) -> str:
    """One line: what is wrong with ``name`` and the canonical hook meant, when one is close."""
    import difflib

    idx = alias_index()
    canonical = idx.get(name)
    if canonical is not None and name not in BY_NAME:
        systems = sorted({key.partition(":")[0] for key, value in idx.items()
                          if ":" in key and key.partition(":")[2] == name and value == canonical})
        return (f"unknown hook {name!r}: that is the {'/'.join(systems)} name of {canonical!r}; "
                f"use {canonical!r} (or fire it with dialect=)")
    names = [*BY_NAME, *(n for n in idx if ":" not in n)]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean {idx.get(close[0], close[0])!r}?)" if close else ""
    return f"unknown hook {name!r}{hint}; `agenthooks hooks` lists them"


_ALIASES: dict[str, str] | None = None


def alias_index() -> dict[str, str]:
    """Every seed name (``system:name`` and bare ``name``) -> canonical hook."""
    global _ALIASES
    if _ALIASES is None:
        idx: dict[str, str] = {}
        for h in HOOKS:
            for system, names in h.aliases.items():
                for n in names:
                    idx[f"{system}:{n}"] = h.name
                    idx.setdefault(n, h.name)
        _ALIASES = idx
    return _ALIASES


def resolve(name: str, system: str | None = None) -> HookDef:
    """A canonical name, or a seed name (optionally of ``system``), -> its :class:`HookDef`."""
    if name in BY_NAME:
        return BY_NAME[name]
    idx = alias_index()
    key = f"{system}:{name}" if system else name
    if key in idx:
        return BY_NAME[idx[key]]
    raise KeyError(unknown_hook_message(name))
