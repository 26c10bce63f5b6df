"""What each host bridge can do with each canonical hook: the data behind ``agenthooks hosts``.

Each :class:`~agent_hooks_core.bridges.record.Host` record declares its capabilities: canonical
hook -> :class:`Cap`. A hook that is not listed is one the host cannot fire through its bridge; the
matrix shows it as such. ``block``: a plugin's block/deny stops the host's action; ``rewrite``: a
plugin's changed value reaches the host; ``closed``: a failure of ours (a crash, bad input, a
plugin that fails to load) blocks rather than allows. The tests check every declared hook against
what the adapter really fires on recorded host payloads (tests/bridges/test_capabilities.py).
"""

from __future__ import annotations

from .record import Cap

__all__ = ["Cap", "of", "sandbox"]


def of(host: str) -> dict[str, Cap]:
    """The capabilities of ``host`` from its record ({} for an unknown host)."""
    from .registry import capabilities

    return capabilities(host)


def sandbox(host: str) -> tuple[bool, str]:
    """Can a ``pre_tool`` rewrite (what agent-hooks-sandbox does to a shell command) reach ``host``?

    (True, the host events it rides on) or (False, why not).
    """
    cap = of(host).get("pre_tool")
    if cap is None:
        return False, "it does not fire pre_tool"
    if not cap.rewrite:
        return False, f"its {cap.via} cannot rewrite a tool's input"
    return True, cap.via
