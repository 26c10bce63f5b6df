"""The native fast client of agent-hooks: where its executable is.

``agenthooks install`` writes :func:`executable` into the hook commands of command-only hosts when
this package is installed in agent-hooks' environment; without it the pure-Python fast client
(``python -S -I fastclient.py``) is written. Both speak the same protocol with the same
fail-closed exits (see ``src/agenthooks-client.c``).
"""

from __future__ import annotations

import os

NAME = "agenthooks-client"


def executable() -> str | None:
    """The absolute path of the client executable, or None when this install lacks a usable one."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), NAME)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
