"""A plugin the bridge tests drive through the environment.

``CC_TEST_LOG``: a file that gets one JSON line per hook call (hook, event, has_ui).
``CC_TEST_SCRIPT``: JSON ``{hook: action}``; an action may hold ``answer`` (returned), ``raise``
(message of a RuntimeError), ``ask`` (call ``ctx.ui.confirm`` first), ``print`` (written to
stdout by the plugin and by a child process), ``notify`` and ``send`` (``ctx.ui.notify``,
``ctx.send_message``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from agent_hooks_core import hookimpl


def _log(entry: dict[str, Any]) -> None:
    path = os.environ.get("CC_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def _act(hook: str, event: Any, ctx: Any) -> Any:
    _log({"hook": hook, "event": dict(event), "has_ui": ctx.has_ui, "host": ctx.host,
          "session_id": ctx.session_id})
    action = json.loads(os.environ.get("CC_TEST_SCRIPT") or "{}").get(hook)
    if not action:
        return None
    if "print" in action:
        print(action["print"])
        subprocess.run([sys.executable, "-c", f"print({action['print']!r})"], check=True)
    if "raise" in action:
        raise RuntimeError(action["raise"])
    if action.get("ask"):
        ctx.ui.confirm("scripted", "may I?")
    if "notify" in action:
        ctx.ui.notify(action["notify"], "warning")
    if "send" in action:
        ctx.send_message(action["send"])
    return action.get("answer")


@hookimpl
def pre_tool(event, ctx):
    return _act("pre_tool", event, ctx)


@hookimpl
def pre_shell_exec(event, ctx):
    return _act("pre_shell_exec", event, ctx)


@hookimpl
def pre_file_write(event, ctx):
    return _act("pre_file_write", event, ctx)


@hookimpl
def pre_file_read(event, ctx):
    return _act("pre_file_read", event, ctx)


@hookimpl
def pre_fetch_url(event, ctx):
    return _act("pre_fetch_url", event, ctx)


@hookimpl
def pre_tool_output(event, ctx):
    return _act("pre_tool_output", event, ctx)


@hookimpl
def post_tool(event, ctx):
    return _act("post_tool", event, ctx)


@hookimpl
def post_tool_batch(event, ctx):
    return _act("post_tool_batch", event, ctx)


@hookimpl
def pre_message(event, ctx):
    return _act("pre_message", event, ctx)


@hookimpl
def pre_system_prompt(event, ctx):
    return _act("pre_system_prompt", event, ctx)


@hookimpl
def on_start(event, ctx):
    return _act("on_start", event, ctx)


@hookimpl
def session_start(event, ctx):
    return _act("session_start", event, ctx)


@hookimpl
def on_end(event, ctx):
    return _act("on_end", event, ctx)


@hookimpl
def pre_compact(event, ctx):
    return _act("pre_compact", event, ctx)


@hookimpl
def post_compact(event, ctx):
    return _act("post_compact", event, ctx)


@hookimpl
def agent_end(event, ctx):
    return _act("agent_end", event, ctx)


@hookimpl
def pre_spawn_agent(event, ctx):
    return _act("pre_spawn_agent", event, ctx)


@hookimpl
def post_spawn_agent(event, ctx):
    return _act("post_spawn_agent", event, ctx)


@hookimpl
def host_event(host, name, payload, ctx):
    _log({"hook": "host_event", "host": host, "name": name, "payload": payload, "plugin": ctx.plugin})
    action = json.loads(os.environ.get("CC_TEST_SCRIPT") or "{}").get("host_event")
    if action and "raise" in action:
        raise RuntimeError(action["raise"])


@hookimpl
def stop_gate(event, ctx):
    return _act("stop_gate", event, ctx)


@hookimpl
def permission_request(event, ctx):
    return _act("permission_request", event, ctx)


def __getattr__(name: str) -> Any:
    # CC_TEST_APPROVER=1 makes this plugin declare that its permission_request allow counts
    if name == "agent_hooks_approver":
        return os.environ.get("CC_TEST_APPROVER") == "1"
    raise AttributeError(name)
