"""The guard's view of agent-hooks' control plane: which paths hold what decides what runs, and
which ways of running our own CLI weaken the policy.

Both come from ``agent_hooks_core.controlplane`` (derived from the runtime's own configuration).
With a core that predates it, a smaller set derived the same way is used: the user directory,
the project's ``.agent-hooks/`` and the installed packages of agent-hooks, so the guard never
runs without the protection.
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Covered:
    path: str
    kind: str
    """settings, organisation, trust, hooks, environment, run or host-config"""
    why: str


def _core() -> Any:
    try:
        from agent_hooks_core import controlplane  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    return controlplane


_ENV_PREFIXES = ("AGENT_HOOKS_", "XDG_")
_ENV_SUFFIXES = ("HOME", "_DIR", "PATH")


def relevant_env() -> dict[str, str]:
    """The variables the protected set is derived from (roots of settings, hosts' configuration
    directories, PATH): a small mapping, so a lookup does not walk the whole environment. The
    core names them; looked up one by one (walking ``os.environ`` costs ~100 µs)."""
    core = _core()
    keys = getattr(core, "ENV_KEYS", None)
    if keys is None:
        return {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES) or k.endswith(_ENV_SUFFIXES)}
    get = os.environ.get
    return {k: v for k in keys if (v := get(k)) is not None}


def covering(path: str, cwd: str, env: Mapping[str, str] | None = None, recursive: bool = False) -> Covered | None:
    """What protects ``path`` (absolute, or relative to ``cwd``), or None; ``recursive``: the change
    reaches everything below ``path`` too."""
    core = _core()
    if core is not None:
        hit = core.covering(path, cwd=cwd, env=env, recursive=recursive)
        return Covered(hit.path, hit.kind, hit.why) if hit is not None else None
    full = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    roots = tuple(os.environ.get(k) for k in ("AGENT_HOOKS_HOME", "XDG_CONFIG_HOME", "HOME"))
    for root, tree, kind, why in _fallback_set(cwd, roots):
        if full == root or (tree and full.startswith(root.rstrip("/") + "/")) or (
                recursive and root.startswith(full.rstrip("/") + "/")):
            return Covered(root, kind, why)
    return None


def below(path: str, cwd: str, env: Mapping[str, str] | None = None) -> list[tuple[str, bool, str]]:
    """The protected paths inside the directory ``path`` as ``(path, tree, kind)`` ([] without the core's set)."""
    core = _core()
    if core is None:
        return []
    full = os.path.realpath(os.path.join(cwd, path))
    prefix = full.rstrip("/") + "/"
    return [(p.path, p.tree, p.kind) for p in core.protected_paths(cwd=cwd, env=env) if p.path.startswith(prefix)]


def exact_paths(cwd: str, env: Mapping[str, str] | None = None) -> frozenset[str] | None:
    """Every protected path itself (files and tree roots), or None without the core's set."""
    core = _core()
    if core is None:
        return None
    return frozenset(p.path for p in core.protected_paths(cwd=cwd, env=env))


def protected_sets(cwd: str, env: Mapping[str, str] | None = None) -> tuple[frozenset[str], frozenset[str]] | None:
    """``(every protected path, the roots of protected trees)``, or None without the core's set."""
    core = _core()
    if core is None:
        return None
    items = core.protected_paths(cwd=cwd, env=env)
    return frozenset(p.path for p in items), frozenset(p.path for p in items if p.tree)


def heads(cwd: str) -> frozenset[str] | None:
    """The names in ``cwd`` that are, or lead to, a protected path (None without the core's set)."""
    core = _core()
    if core is None or not hasattr(core, "heads"):
        return None
    got: frozenset[str] = core.heads(cwd)
    return got


def weakening_subcommand(args: Sequence[str]) -> str | None:
    """Why running our CLI with ``args`` weakens the policy, or None."""
    core = _core()
    if core is not None:
        got = core.weakening_subcommand(list(args))
        return str(got) if got else None
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return None
    if words[0] == "plugins" and len(words) > 1 and words[1] in ("disable", "uninstall", "install", "enable"):
        return f"plugins {words[1]} changes which plugins run"
    if words[0] in ("trust", "uninstall"):
        return f"{words[0]} changes what runs or what is trusted"
    if words[0] == "install" and any(a.startswith("--transport") for a in args):
        return "install --transport changes how hooks reach agent-hooks"
    return None


def nested_agent_weakening(program: str, args: Sequence[str]) -> str | None:
    """Why starting the agent ``program`` with ``args`` drops or replaces agent-hooks' hooks there, or None."""
    core = _core()
    if core is None or not hasattr(core, "nested_agent_weakening"):
        return None
    got = core.nested_agent_weakening(program, list(args))
    return str(got) if got else None


def agent_program(program: str) -> str | None:
    """The agent host ``program`` starts (a program or an npm package name), or None."""
    core = _core()
    if core is None or not hasattr(core, "agent_program"):
        return None
    got = core.agent_program(program)
    return str(got) if got else None


def relocates_nested_agent(variable: str) -> bool:
    """Whether ``variable``, set for a nested agent, can drop or replace agent-hooks' hooks there."""
    core = _core()
    if core is None or not hasattr(core, "relocates_nested_agent"):
        return variable.startswith("AGENT_HOOKS_")
    return bool(core.relocates_nested_agent(variable))


def never_exported(variable: str) -> bool:
    """Whether ``export VARIABLE=...`` is itself a change of agent-hooks' control plane."""
    core = _core()
    if core is None or not hasattr(core, "never_exported"):
        return variable.startswith("AGENT_HOOKS_")
    return bool(core.never_exported(variable))


@lru_cache(maxsize=1)
def our_programs() -> tuple[str, ...]:
    """Absolute paths that run our CLI here (console scripts and interpreters)."""
    core = _core()
    if core is not None:
        return tuple(core.our_programs())
    out = [sys.executable, os.path.realpath(sys.executable)]
    bindir = os.path.dirname(sys.executable)
    for name in ("agenthooks", "agent-hooks"):
        out.append(os.path.join(bindir, name))
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=16)
def _fallback_set(cwd: str, roots: tuple[str | None, ...]) -> tuple[tuple[str, bool, str, str], ...]:
    """The protected set of ``cwd`` (``roots``: the environment it is derived from, the cache key)."""
    out: list[tuple[str, bool, str, str]] = []
    try:
        from agent_hooks_core.settings import find_project_root, user_dir

        out.append((os.path.realpath(str(user_dir())), True, "settings", "agent-hooks user settings, trust and hooks"))
        root = find_project_root(cwd)
        if root is not None:
            out.append((os.path.realpath(str(root / ".agent-hooks")), True, "settings", "agent-hooks project settings"))
    except Exception:  # an older core: the usual place
        out.append((os.path.realpath(os.path.expanduser("~/.config/agent-hooks")), True, "settings",
                    "agent-hooks user settings"))
    for sp in {*site.getsitepackages(), site.getusersitepackages()}:
        out.append((os.path.realpath(sp), True, "environment", "the Python environment agent-hooks runs in"))
    return tuple(out)
