"""One tool call through the canonical gating hooks: ``pre_tool``, then the permission hook that
fits the tool (``pre_shell_exec``, ``pre_file_write``…), as every host adapter does it.

A permission hook is fired only when some plugin implements it: with no handler its rule would
deny (fail-safe), which is right inside an agent that calls the hook for its own actions, but a
host bridge fires it on the host's behalf for every tool, so "nobody cares" must stay an allow.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...runtime import Outcome, Runtime

#: (permission hook, payload) pairs a tool call amounts to
Calls = list[tuple[str, dict[str, object]]]


@dataclass
class Gate:
    """The verdict on one tool call."""

    blocked: bool = False
    reason: str = ""
    #: the arguments after every ``pre_tool`` rewrite (the original object when unchanged)
    arguments: dict[str, Any] = field(default_factory=dict)
    changed: bool = False
    #: plugins that rewrote the arguments, or the one that blocked
    by: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def stopper(out: Outcome) -> str | None:
    """The plugin whose answer stopped the call (``Outcome.stopped_by`` once the runtime has it)."""
    name = getattr(out, "stopped_by", None)
    if isinstance(name, str):
        return name
    return out.answered[-1] if out.answered else None


def gate(rt: Runtime, tool: str, arguments: dict[str, Any], call_id: str | None,
         permission_calls: Callable[[dict[str, Any]], Calls]) -> Gate:
    """Fire ``pre_tool`` and the permission hooks ``permission_calls(arguments)`` names."""
    verdict = Gate(arguments=arguments)
    original = copy.deepcopy(arguments)
    out = rt.fire("pre_tool", {"tool_name": tool, "arguments": arguments, "tool_call_id": call_id})
    verdict.errors.extend(str(e) for e in out.errors)
    if out.decision == "blocked":
        who = stopper(out)
        verdict.blocked, verdict.by = True, [who] if who else []
        verdict.reason = out.reason or f"blocked by {who or 'a plugin'}"
        return verdict
    new = (out.data or {}).get("arguments")
    if isinstance(new, dict) and new != original:
        verdict.arguments, verdict.changed, verdict.by = new, True, list(out.answered)
    for hook, payload in permission_calls(verdict.arguments):
        if not rt.implementers(hook):
            continue
        perm = rt.fire(hook, payload)
        verdict.errors.extend(str(e) for e in perm.errors)
        data = perm.data or {}
        if data.get("denied"):
            who = stopper(perm)
            verdict.blocked, verdict.by = True, [who] if who else []
            verdict.reason = str(data.get("reason") or f"denied by {who or 'a plugin'} ({hook})")
            return verdict
    return verdict


def absolute(path: str, cwd: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(cwd, path))


def shell(command: object, tool: str) -> Calls:
    return [("pre_shell_exec", {"command": command, "tool_name": tool})] if isinstance(command, str) else []


def writes(paths: Iterable[tuple[object, str | None]], tool: str, cwd: str) -> Calls:
    """``pre_file_write`` for each (path, new content or None)."""
    calls: Calls = []
    for path, content in paths:
        if isinstance(path, str) and path:
            payload: dict[str, object] = {"path": absolute(path, cwd), "tool_name": tool}
            if content is not None:
                payload["content"] = content
            calls.append(("pre_file_write", payload))
    return calls


def reads(paths: Iterable[object], tool: str, cwd: str) -> Calls:
    return [("pre_file_read", {"path": absolute(p, cwd), "tool_name": tool})
            for p in paths if isinstance(p, str) and p]


_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")


def fetches(text: object, tool: str) -> Calls:
    """``pre_fetch_url`` for every URL in ``text`` (a URL argument, or a prompt with URLs in it)."""
    if not isinstance(text, str):
        return []
    urls = _URL.findall(text)
    if not urls:
        return [("pre_fetch_url", {"tool_name": tool, "safety": "no_url", "summary": text[:200]})]
    return [("pre_fetch_url", {"url": u.rstrip(".,;:"), "tool_name": tool}) for u in urls]


# -- apply_patch (Codex, OpenCode) ------------------------------------------------------------

_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$")


def patch_files(patch: str) -> list[tuple[str, str | None]]:
    """(path, new content for added files else None) for every file an apply_patch body touches."""
    files: list[tuple[str, str | None]] = []
    adding: list[str] | None = None
    for line in patch.splitlines():
        m = _PATCH_FILE.match(line)
        if m:
            if adding is not None:
                files[-1] = (files[-1][0], "\n".join(adding) + ("\n" if adding else ""))
            adding = None
            kind, path, moved = m.group(1), m.group(2), m.group(3)
            files.append((moved or path, None))
            if kind == "Add":
                adding = []
            continue
        if adding is not None:
            if line.startswith("+"):
                adding.append(line[1:])
            elif line.startswith("*** "):
                files[-1] = (files[-1][0], "\n".join(adding) + ("\n" if adding else ""))
                adding = None
    if adding is not None and files:
        files[-1] = (files[-1][0], "\n".join(adding) + ("\n" if adding else ""))
    return files
