"""OpenHands CLI (1.16): command hooks in ``.openhands/hooks.json``, answered by every enabled plugin.

``adapter`` maps OpenHands' events to canonical hooks; ``install`` writes our handlers into
``~/.openhands/hooks.json`` or ``.openhands/hooks.json``; see docs/hosts/openhands.md.
"""

from __future__ import annotations

from .adapter import ADAPTER, OpenHandsAdapter

__all__ = ["ADAPTER", "OpenHandsAdapter", "main"]


def main(argv: list[str]) -> int:
    """``agenthooks openhands``: one OpenHands hook event on stdin, the answer on stdout."""
    from ..hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "OpenHands CLI")
