"""Cursor (hooks.json, 2026 docs): command hooks answered by every enabled plugin.

Cursor has no CLI that can be installed here, so this bridge is tested against the documented
protocol only (docs/hosts/cursor.md says so).
"""

from __future__ import annotations

from .adapter import ADAPTER, CursorAdapter

__all__ = ["ADAPTER", "CursorAdapter", "main"]


def main(argv: list[str]) -> int:
    """``agenthooks cursor``: one Cursor hook event on stdin, the answer on stdout."""
    from ..hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Cursor")
