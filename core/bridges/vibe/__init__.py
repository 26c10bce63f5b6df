"""Mistral Vibe (3.0): command hooks in ``hooks.toml``, answered by every enabled plugin.

``adapter`` maps Vibe's three hook types to canonical hooks; ``install`` writes our ``[[hooks]]``
into ``~/.vibe/hooks.toml`` or ``.vibe/hooks.toml``; see docs/hosts/vibe.md.
"""

from __future__ import annotations

from .adapter import ADAPTER, VibeAdapter

__all__ = ["ADAPTER", "VibeAdapter", "main"]


def main(argv: list[str]) -> int:
    """``agenthooks vibe``: one Mistral Vibe hook event on stdin, the answer on stdout."""
    from ..hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Mistral Vibe")
