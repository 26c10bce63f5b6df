"""The environment a test's subprocess gets when it must not see this run's own variables."""

from __future__ import annotations

import os


def without(*prefixes: str, drop: tuple[str, ...] = ()) -> dict[str, str]:
    """``os.environ`` without our variables (``AGENT_HOOKS*``), ``prefixes`` and ``drop``, with the
    warm server's autostart off: a per-event command such a test runs must not leave a server
    behind (the autostart tests turn it on themselves)."""
    skip = ("AGENT_HOOKS", *prefixes)
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip) and k not in drop}
    env["AGENT_HOOKS_SERVE_AUTOSTART"] = "0"
    return env
