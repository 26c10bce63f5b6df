"""The ``ctx.ui`` plugins see inside the Claude Code bridge: asks are recorded, Claude Code asks the user."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ...context import NoUI

if TYPE_CHECKING:
    from ...runtime import Runtime


class Ask:
    """One ``confirm()`` call: which plugin asked, and what."""

    __slots__ = ("message", "plugin", "title")

    def __init__(self, plugin: str | None, title: str, message: str) -> None:
        self.plugin = plugin
        self.title = title
        self.message = message


class ClaudeCodeUI(NoUI):
    """The ``ctx.ui`` plugins see inside the bridge.

    A hook process has no terminal, so ``ctx.has_ui`` is False (``--ask`` makes it True on
    PreToolUse), but Claude Code has its own permission dialog. So ``confirm()`` does not ask
    anybody: it records that the calling plugin wanted to ask, and returns False, as a UI-less host
    does, so the plugin goes on to block or deny. When the call was stopped by a plugin that asked,
    the bridge answers ``permissionDecision: "ask"`` (Claude Code asks the user, showing the
    reason) instead of ``"deny"``. A plugin that denies without asking still gets a deny, and deny
    beats ask. A plugin that asks only ``if ctx.has_ui`` (the guard) therefore denies by default,
    and asks through Claude Code with ``--ask``.

    The asking plugin is found by the handler function on the call stack (the runtime calls
    handlers in this thread; an async handler's frame is on the stack while it runs). An ask whose
    plugin cannot be found counts for nobody, so it never softens a deny.

    ``notify()`` messages are shown to the user as ``systemMessage``; everything else behaves as
    :class:`~agent_hooks_core.context.NoUI` (``select``/``input``/``editor`` answer None).
    """

    #: ``confirm()`` answers False now and Claude Code asks the user afterwards, showing the
    #: plugin's reason: a plugin can read this to word its reason as a question, not a refusal
    host_asks = True

    def __init__(self) -> None:
        super().__init__()
        self.asks: list[Ask] = []
        self.runtime: Runtime | None = None
        self._codes: dict[Any, str] | None = None

    def confirm(self, title: str, message: str) -> bool:
        self.asks.append(Ask(self._calling_plugin(), str(title), str(message)))
        return False

    # bookkeeping for the bridge
    def mark(self) -> int:
        return len(self.asks)

    def asked(self, plugin: str | None, since: int) -> bool:
        """True when ``plugin`` called ``confirm`` after :meth:`mark` returned ``since``."""
        return plugin is not None and any(a.plugin == plugin for a in self.asks[since:])

    def _calling_plugin(self) -> str | None:
        if self._codes is None:
            self._codes = _handler_codes(self.runtime) if self.runtime is not None else {}
        frame = sys._getframe(2)
        while frame is not None:
            plugin = self._codes.get(frame.f_code)
            if plugin is not None:
                return plugin
            frame = frame.f_back  # type: ignore[assignment]
        return None


def _handler_codes(rt: Runtime) -> dict[Any, str]:
    from ...hookspecs.catalogue import BY_NAME

    codes: dict[Any, str] = {}
    for hook in BY_NAME:
        for h in rt.handlers(hook):
            func = h.func
            code = getattr(func, "__code__", None) or getattr(getattr(func, "__func__", None), "__code__", None)
            if code is not None:
                codes.setdefault(code, h.plugin)
    return codes
