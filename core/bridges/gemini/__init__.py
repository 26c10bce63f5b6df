"""Gemini CLI (0.61): command hooks in ``settings.json``, answered by every enabled plugin.

``adapter`` maps Gemini's events to canonical hooks; ``install`` writes ``hooks`` into
``~/.gemini/settings.json`` or ``.gemini/settings.json``; see docs/hosts/gemini.md.
"""

from __future__ import annotations

from .adapter import ADAPTER, GeminiAdapter

__all__ = ["ADAPTER", "GeminiAdapter", "main"]


def main(argv: list[str]) -> int:
    """``agenthooks gemini``: one Gemini CLI hook event on stdin, the answer on stdout."""
    from ..hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Gemini CLI")
