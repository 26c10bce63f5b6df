"""The gate: when a plugin the user relies on is not loaded, every gating hook denies.

A plugin named in ``required`` (user, project or organisation settings) that fails to import,
register or configure, or is disabled or missing; any plugin that implements a gating hook (or
may: an import error hides its hooks) and fails to load or configure; a name in
``AGENT_HOOKS_PLUGINS`` that is not installed; an organisation policy that cannot be had: each
means the runtime is not what the user asked for, and a gating decision made without it would be an allow nobody
chose. Discovery then registers :class:`RequiredGate`, which answers every gating hook
(``pre_tool`` and the permission hooks, the ones that fail closed) with a deny naming the reason.
It is an ordinary ``tryfirst`` plugin, so every path through the runtime (``fire``, ``afire``,
bridges, tool wrappers) sees it without the runtime knowing about it.
"""

from __future__ import annotations

from typing import Any

from ..hookspecs.catalogue import HOOKS
from ..hookspecs.markers import hookimpl

NAME = "required-gate"
#: the hooks that fail closed: a deny there stops the action
GATING_HOOKS = tuple(h.name for h in HOOKS if h.fail_closed)


class RequiredGate:
    """Denies every gating hook with ``reason``."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = list(reasons)

    @property
    def reason(self) -> str:
        return "agent-hooks is not running as configured: " + "; ".join(self.reasons)

    @hookimpl(tryfirst=True)
    def pre_tool(self) -> dict[str, Any]:
        return {"block": True, "message": self.reason, "reason": self.reason}

    @hookimpl(tryfirst=True)
    def pre_file_read(self) -> dict[str, Any]:
        return {"denied": True, "reason": self.reason}

    @hookimpl(tryfirst=True)
    def pre_file_write(self) -> dict[str, Any]:
        return {"denied": True, "reason": self.reason}

    @hookimpl(tryfirst=True)
    def pre_shell_exec(self) -> dict[str, Any]:
        return {"denied": True, "reason": self.reason}

    @hookimpl(tryfirst=True)
    def pre_fetch_url(self) -> dict[str, Any]:
        return {"denied": True, "reason": self.reason}

    @hookimpl(tryfirst=True)
    def permission_request(self) -> dict[str, Any]:
        # a deny, not "no opinion": the host's own prompt would otherwise decide with a plugin missing
        return {"decision": "deny", "reason": self.reason}


def refusal(hook: str, reason: str) -> dict[str, Any] | None:
    """The answer to a gating ``hook`` whose input was refused before any plugin saw it, as
    ``Outcome.to_dict`` gives it (a deny naming ``reason``); None for a hook that does not gate
    (its caller answers the input as malformed)."""
    if hook not in GATING_HOOKS:
        return None
    from ..reducer import decide

    gate = RequiredGate([])
    data: dict[str, Any] = getattr(gate, hook)()
    data.update({"reason": reason, **({"message": reason} if "message" in data else {})})
    return {"hook": hook, "decision": decide(hook, data), "result": data, "answered": [], "stopped_by": None,
            "errors": [], "duration_ms": 0.0}
