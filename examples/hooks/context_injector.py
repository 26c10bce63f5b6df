"""context_injector: put the current time in front of every prompt (seed 000/001, chibi's prompt modifier)."""

from __future__ import annotations

from datetime import datetime

from agent_hooks_core import hookimpl


@hookimpl
def pre_message(event):
    return {"prompt": f"[{datetime.now().isoformat()}]\n{event.prompt}"}
