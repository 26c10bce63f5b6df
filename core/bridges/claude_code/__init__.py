"""Claude Code: the host adapter (``ADAPTER``) and ``agenthooks claude-code``.

* :mod:`.adapter`: the command line, runtime options, answers and failures (the HostAdapter);
* :mod:`.events`: each Claude Code event mapped to canonical hooks;
* :mod:`.tools`: tool families, permission hooks, reading and replacing tool output;
* :mod:`.ui`: the ``ctx.ui`` plugins see (asks become Claude Code's own permission dialog);
* :mod:`.reply`: the answer in Claude Code's JSON, with its 10,000-character cap.

The installer is ``agent_hooks_core.bridges.claude_code_install``; the protocol facts this relies on
are in docs/hosts/claude-code.md.

Import discipline: ``agenthooks claude-code`` imports this package before typer, rich or pydantic.
It imports only the standard library and the runtime (never ``cli``, ``hookspecs.models``,
``typer`` or ``rich``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from ..base import BridgeInputError, UsageError
from ..hosts.claude_code import MAPPED_EVENTS
from .adapter import ADAPTER, USAGE, BridgeOptions, ClaudeCodeAdapter, parse_args
from .events import CONTEXT_EVENTS, FAIL_CLOSED_EVENTS, HOST, Bridge
from .reply import MAX_TEXT, Reply, cap
from .tools import (
    FETCH_TOOLS,
    READ_TOOLS,
    SHELL_TOOLS,
    WRITE_TOOLS,
    permission_call,
    replace_text,
    response_text,
)
from .ui import Ask, ClaudeCodeUI

if TYPE_CHECKING:
    from ...runtime import Runtime

__all__ = [
    "ADAPTER",
    "CONTEXT_EVENTS",
    "FAIL_CLOSED_EVENTS",
    "FETCH_TOOLS",
    "HOST",
    "MAPPED_EVENTS",
    "MAX_TEXT",
    "READ_TOOLS",
    "SHELL_TOOLS",
    "USAGE",
    "WRITE_TOOLS",
    "Ask",
    "Bridge",
    "BridgeInputError",
    "BridgeOptions",
    "ClaudeCodeAdapter",
    "ClaudeCodeUI",
    "Reply",
    "UsageError",
    "cap",
    "main",
    "parse_args",
    "permission_call",
    "replace_text",
    "response_text",
]

#: ``factory(cwd=..., host=..., session_id=..., session_file=..., ui=..., has_ui=..., hooks=[...],
#: settings=...) -> Runtime``; tests inject one that returns ``Runtime(plugins=[...])``.
RuntimeFactory = Callable[..., "Runtime"]


def main(argv: list[str] | None = None, *, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None, runtime_factory: RuntimeFactory | None = None) -> int:
    """``agenthooks claude-code``: answer one Claude Code hook event (the per-event process transport)."""
    from ...transports import process

    return process.main(ADAPTER, argv, stdin=stdin, stdout=stdout, stderr=stderr,
                        runtime_factory=runtime_factory)
