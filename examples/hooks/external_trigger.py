"""external_trigger: wake the agent when a trigger file gets text (seed 004, pi's file watcher).

On ``session_start`` a background thread watches the trigger file; whatever is written to it is
injected into the session with ``ctx.send_message`` and the file is emptied. ``on_end`` stops the
watcher. To trigger: ``echo "Run the tests" > /tmp/agent-trigger.txt``.

Settings: ``[plugins.external_trigger] trigger_file = "..."``, ``interval = 0.5`` (seconds).
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path

from agent_hooks_core import hookimpl

DEFAULT_TRIGGER_FILE = "/tmp/agent-trigger.txt"

_watchers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def trigger_file(ctx) -> Path:
    return Path(ctx.config.get("trigger_file") or DEFAULT_TRIGGER_FILE).expanduser()


def check(ctx) -> str | None:
    """Read the trigger file once: send its text as a message and empty it; returns the text."""
    path = trigger_file(ctx)
    try:
        content = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None  # the file might not exist yet
    if not content:
        return None
    ctx.send_message(f"External trigger: {content}")
    path.write_text("", encoding="utf-8")
    return content


def _watch(ctx, stop: threading.Event, interval: float) -> None:
    while not stop.wait(interval):
        check(ctx)


@hookimpl
def session_start(event, ctx):
    if event.reason not in (None, "start", "startup"):
        return
    if ctx.runtime in _watchers:
        return
    stop = threading.Event()
    thread = threading.Thread(target=_watch, args=(ctx, stop, float(ctx.config.get("interval", 0.5))),
                              name="external-trigger", daemon=True)
    _watchers[ctx.runtime] = (stop, thread)
    thread.start()
    ctx.ui.notify(f"Watching {trigger_file(ctx)}", "info")


@hookimpl
def on_end(event, ctx):
    watcher = _watchers.pop(ctx.runtime, None)
    if watcher is not None:
        stop, thread = watcher
        stop.set()
        thread.join(timeout=5)
