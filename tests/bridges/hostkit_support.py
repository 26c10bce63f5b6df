"""Helpers for the host adapter tests: recorded payloads, a scripted plugin object, the guard."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from agent_hooks_core import Runtime, hookimpl

PAYLOADS = Path(__file__).with_name("payloads")


def payloads(host: str) -> dict[str, dict[str, Any]]:
    """``{"Event" or "Event/variant": event}`` for every recorded or schema-built sample of ``host``."""
    doc = json.loads((PAYLOADS / f"{host}.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for section in ("recorded", "schema"):
        for key, value in doc.get(section, {}).items():
            out[key] = value
    return copy.deepcopy(out)


class Scripted:
    """A plugin answering each hook from ``answers`` (a dict, or an exception to raise), logging calls."""

    def __init__(self, **answers: Any) -> None:
        self.answers = answers
        self.calls: list[tuple[str, dict[str, Any]]] = []
        for hook in answers:
            setattr(self, hook, self._handler(hook))

    def _handler(self, hook: str) -> Any:
        def handler(event: Any) -> Any:
            self.calls.append((hook, dict(event)))
            answer = self.answers[hook]
            if isinstance(answer, BaseException):
                raise answer
            return answer() if callable(answer) else answer

        handler.__name__ = hook
        return hookimpl(handler)

    def hooks(self) -> list[str]:
        return [h for h, _ in self.calls]


class Recorder:
    """Observes every tool-related canonical hook (answers nothing)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        for hook in ("pre_tool", "pre_shell_exec", "pre_file_write", "pre_file_read", "pre_fetch_url",
                     "pre_tool_output", "post_tool", "pre_message", "on_start", "session_start", "on_end",
                     "agent_end", "pre_compact", "post_compact", "pre_spawn_agent", "post_spawn_agent",
                     "pre_api_request", "pre_api_tools", "post_message"):
            setattr(self, hook, self._handler(hook))

    def _handler(self, hook: str) -> Any:
        def handler(event: Any) -> None:
            self.calls.append((hook, dict(event)))

        handler.__name__ = hook
        return hookimpl(handler)

    def hooks(self) -> list[str]:
        return [h for h, _ in self.calls]


def runtime(*plugins: Any, cwd: str = "/") -> Runtime:
    named = [(f"p{i}" if not isinstance(p, tuple) else p[0], p if not isinstance(p, tuple) else p[1])
             for i, p in enumerate(plugins)]
    return Runtime(plugins=named, cwd=cwd)


def guard_runtime(cwd: str, *more: Any) -> Runtime:
    import agent_hooks_guard

    return runtime(("guard", agent_hooks_guard), *more, cwd=cwd)


SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
