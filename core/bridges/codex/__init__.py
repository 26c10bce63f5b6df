"""OpenAI Codex CLI (0.169): command hooks in ``hooks.json``, answered by every enabled plugin.

``adapter`` maps Codex's events to canonical hooks and answers only in shapes Codex accepts;
``install`` writes ``hooks.json`` and records Codex's hash-pinned hook trust; see
docs/hosts/codex.md.
"""

from __future__ import annotations

from .adapter import ADAPTER, CodexAdapter

__all__ = ["ADAPTER", "CodexAdapter", "main"]


def main(argv: list[str]) -> int:
    """``agenthooks codex``: one Codex hook event on stdin, the answer on stdout / exit code."""
    from ..hostkit.command import main as command_main

    return command_main(ADAPTER, argv, "Codex")
