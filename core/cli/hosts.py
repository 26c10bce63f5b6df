"""Placeholder: the owner of this command replaces it (see docs/architecture.md)."""

from __future__ import annotations

from typing import Any


def register(app: Any) -> None:
    """Add this module's commands to the typer app."""
