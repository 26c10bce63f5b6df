"""logger: append every lifecycle event to a log file (seed 000/001, chibi's ``logger`` example).

Settings: ``[plugins.logger] path = "..."`` (default ``.agent-hooks/hook.log`` in the project).
Load it with ``agenthooks --hook examples/hooks/logger.py ...`` or list it in ``hooks = [...]``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from agent_hooks_core import hookimpl


def _log(hook: str, event: dict, ctx) -> None:
    path = Path(ctx.config.get("path") or Path(ctx.cwd) / ".agent-hooks" / "hook.log").expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(f"[{datetime.now():%Y-%m-%d %H:%M:%S}] {hook}\n")
        fh.write(json.dumps(dict(event), indent=2, default=str) + "\n")


@hookimpl
def on_start(event, ctx):
    _log("on_start", event, ctx)


@hookimpl
def on_end(event, ctx):
    _log("on_end", event, ctx)


@hookimpl
def pre_message(event, ctx):
    _log("pre_message", event, ctx)  # returns None: no modification


@hookimpl
def post_message(event, ctx):
    _log("post_message", event, ctx)
