"""``--trace`` / ``AGENT_HOOKS_TRACE=1``: what discovery did and every hook call, on stderr."""

from __future__ import annotations

import sys
from typing import Any

from ..hookspecs.markers import hookimpl
from ..plugininfo import PluginInfo


def load_line(info: PluginInfo) -> str:
    """One line per candidate: loaded (with its time), or skipped and why (pytest --trace-config)."""
    if info.load_ms is not None:
        state = info.status if info.status == "loaded" else f"{info.status}: {info.reason}"
        return f"agenthooks: trace: load {info.name} ({info.source}) {info.load_ms:.2f}ms {state}"
    return f"agenthooks: trace: skip {info.name} ({info.source}) {info.status}: {info.reason or '-'}"


class TracePlugin:
    """One line per hook call on stderr, with timings."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream

    @hookimpl
    def hook_called(self, outcome: Any) -> None:
        stream = self.stream or sys.stderr
        line = (f"agenthooks: trace: {outcome.hook} {outcome.duration * 1000:.2f}ms "
                f"decision={outcome.decision} handlers={','.join(outcome.handlers) or '-'} "
                f"answered={','.join(outcome.answered) or '-'}")
        for err in outcome.errors:
            line += f"\n  error: {err}"
        print(line, file=stream, flush=True)
