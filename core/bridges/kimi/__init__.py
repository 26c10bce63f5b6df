"""Kimi CLI (1.51): ``[[hooks]]`` command hooks in ``~/.kimi/config.toml``, answered by every
enabled plugin.

``adapter`` maps Kimi's events to canonical hooks; ``install`` writes our ``[[hooks]]`` into
Kimi's config.toml; see docs/hosts/kimi.md.
"""

from __future__ import annotations

from .adapter import ADAPTER, KimiAdapter

__all__ = ["ADAPTER", "KimiAdapter", "main"]


def main(argv: list[str]) -> int:
    """``agenthooks kimi``: one Kimi CLI hook event on stdin, the answer on stdout."""
    from ..hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Kimi CLI")
