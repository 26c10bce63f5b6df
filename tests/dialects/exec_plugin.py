"""An in-process agent-hooks plugin for the ``agenthooks chibi`` tests.

Every call appends ``{"hook", "event", "host"}`` to the file named by ``CHIBI_TEST_LOG``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agent_hooks_core import hookimpl


def _log(hook: str, event: Any, ctx: Any) -> None:
    path = os.environ.get("CHIBI_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"hook": hook, "event": dict(event), "host": ctx.host}) + "\n")


@hookimpl
def pre_tool(event: Any, ctx: Any) -> Any:
    _log("pre_tool", event, ctx)
    if "rm -rf" in str(event.arguments.get("command", "")):
        return {"block": True, "message": "agent-hooks says no"}
    return None


@hookimpl
def pre_message(event: Any, ctx: Any) -> Any:
    _log("pre_message", event, ctx)
    return {"prompt": event.prompt + " (checked)"}


@hookimpl
def post_session_switch(event: Any, ctx: Any) -> None:
    _log("post_session_switch", event, ctx)


@hookimpl
def pre_file_read(event: Any, ctx: Any) -> Any:
    _log("pre_file_read", event, ctx)
    return {"denied": True, "reason": "secret"} if event.path.endswith("shadow") else None


@hookimpl
def pre_api_tools(event: Any, ctx: Any) -> Any:
    return {"exclude": ["file_grep"]}


@hookimpl
def session_start(event: Any, ctx: Any) -> None:
    """Not a chibi hook: must not appear in the chibi schema."""
