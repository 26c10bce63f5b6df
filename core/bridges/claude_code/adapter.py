"""Claude Code's host adapter: its command line, its runtime options, its answers and failures.

Claude Code runs one command per hook event (or POSTs the same JSON to an ``http`` hook), and reads
the answer from the exit code and stdout (or the response body): docs/hosts/claude-code.md. The
transports (``agent_hooks_core.transports``) do the I/O; this module only decides.

Rules kept here:

* exit code 0 with JSON on stdout, or nothing, for every answer we mean; exit 1 (Claude Code's
  "non-blocking error") with one line on stderr when our side fails on an event that is not a
  permission decision; never exit 2 (on ``Stop`` that would make Claude continue);
* ``PreToolUse`` and ``PermissionRequest`` fail closed: malformed input, a plugin load failure, a
  plugin error or a bug answers a deny with the reason;
* every string we emit respects Claude Code's 10,000-character cap.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..base import CommandOptions, HostAnswer, UsageError
from ..hostkit.adapter import Adapter
from .events import FAIL_CLOSED_EVENTS, HOST, Bridge
from .reply import Reply, cap
from .ui import ClaudeCodeUI

if TYPE_CHECKING:
    from ...runtime import Runtime

USAGE = """\
usage: agenthooks claude-code [--hook PATH]... [--settings PATH] [--event NAME] [--ask]
                              [--on-rewrite ask|allow]

Claude Code's hook command: reads one hook event (JSON) on stdin, runs it through the enabled
agent-hooks plugins and answers in Claude Code's format. Wire it with
`agenthooks install claude-code`; see docs/hosts/claude-code.md.

  --hook PATH          also load this local plugin file (repeatable)
  --settings PATH      use this agent-hooks settings file
  --event NAME         the event this entry was installed for (used when stdin is unreadable)
  --ask                on PreToolUse, tell plugins a UI is there (ctx.has_ui): plugins that ask
                       instead of blocking then make Claude Code ask the user
  --on-rewrite MODE    permissionDecision sent with changed tool input: ask (default) or allow
"""

#: the installed entries give Claude Code this many seconds (claude_code_install.TIMEOUT); our own
#: deadline is below it, so a hung plugin ends in our deny, not in Claude Code's timeout
ANSWER_DEADLINE = 55.0


class BridgeOptions(CommandOptions):
    """The command line of ``agenthooks claude-code`` (plain class: dataclasses cost import time)."""

    def __init__(self) -> None:
        super().__init__()
        self.on_rewrite = "ask"
        self.ask = False


def parse_args(argv: Iterable[str]) -> BridgeOptions:
    opts = BridgeOptions()
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help", "--ask"):
            if arg == "--ask":
                opts.ask = True
            else:
                opts.help = True
            i += 1
            continue
        if name not in ("--hook", "--settings", "--event", "--on-rewrite"):
            raise UsageError(f"unknown option {arg!r} (try --help)")
        if not eq:
            if i + 1 >= len(args):
                raise UsageError(f"{name} needs a value")
            value = args[i + 1]
            i += 1
        i += 1
        if name == "--hook":
            opts.hooks.append(value)
        elif name == "--settings":
            opts.settings = value
        elif name == "--event":
            opts.event = value
        else:
            if value not in ("ask", "allow"):
                raise UsageError(f"--on-rewrite must be ask or allow, not {value!r}")
            opts.on_rewrite = value
    return opts


_EVENT_NAME = re.compile(rb'"hook_event_name"\s*:\s*"([A-Za-z]+)"')


class ClaudeCodeAdapter(Adapter):
    """Claude Code on the shared event loop (:meth:`hostkit.adapter.Adapter.handle`): each event
    is rendered by a :class:`~.events.Bridge` into a :class:`~.reply.Reply`."""

    name = HOST
    answer_deadline = ANSWER_DEADLINE
    EVENT_KEY = "hook_event_name"
    GATING = FAIL_CLOSED_EVENTS

    def __init__(self, options: BridgeOptions | None = None) -> None:
        self.options = options if options is not None else BridgeOptions()

    @property
    def usage(self) -> str:
        return USAGE

    def parse_args(self, argv: Iterable[str]) -> BridgeOptions:
        return parse_args(argv)

    def configure(self, options: CommandOptions) -> ClaudeCodeAdapter:
        if not isinstance(options, BridgeOptions):  # the common options only: Claude Code's own keep defaults
            common, options = options, BridgeOptions()
            options.hooks, options.settings, options.event, options.help = (
                common.hooks, common.settings, common.event, common.help)
        return ClaudeCodeAdapter(options)

    def sniff_event_name(self, raw: bytes) -> str | None:
        match = _EVENT_NAME.search(raw)
        return match.group(1).decode() if match else None

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        cwd = event.get("cwd")
        if not (isinstance(cwd, str) and os.path.isdir(cwd)):
            cwd = os.getcwd()
        session_id, transcript = event.get("session_id"), event.get("transcript_path")
        return {"cwd": cwd, "host": HOST, "session_id": session_id if isinstance(session_id, str) else None,
                "session_file": transcript if isinstance(transcript, str) else None, "ui": ClaudeCodeUI(),
                "has_ui": self.options.ask and self.event_name(event) == "PreToolUse"}

    def handle(self, rt: Runtime, event: dict[str, Any]) -> HostAnswer:
        if _cursor_runs_its_own(event) or _copilot_runs_its_own(event):
            return HostAnswer()
        return super().handle(rt, event)

    def _bridge(self, rt: Runtime, event: dict[str, Any]) -> Bridge:
        ui = rt.ui if isinstance(rt.ui, ClaudeCodeUI) else ClaudeCodeUI()
        ui.runtime = rt
        return Bridge(rt, event, ui, self.options)

    def unplugged(self, rt: Runtime, event: dict[str, Any], name: str) -> HostAnswer:
        bridge = self._bridge(rt, event)
        if name == "SessionStart":  # plugins that failed to load are said once per session
            bridge.load_errors()
        return bridge.reply.answer()

    def dispatch(self, rt: Runtime, event: dict[str, Any], name: str) -> HostAnswer:
        return self._bridge(rt, event).answer()

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        """Our side failed: deny where a tool's permission depends on us, else a clear message."""
        if event_name in FAIL_CLOSED_EVENTS:
            reply = Reply(event_name)
            reason = f"agent-hooks could not check this tool call, so it is denied (fail-closed): {problem}"
            if event_name == "PermissionRequest":
                reply.specific(decision={"behavior": "deny", "message": cap(reason)})
            else:
                reply.specific(permissionDecision="deny", permissionDecisionReason=cap(reason))
            reply.stderr.append(f"agenthooks claude-code: {problem}")
            return reply.answer()
        reply = Reply(event_name or "unknown", code=1)
        where = f" ({event_name})" if event_name else ""
        reply.stderr.append(f"agenthooks claude-code: error{where}: {problem}")
        return reply.answer()


def _cursor_runs_its_own(event: Mapping[str, Any]) -> bool:
    """Cursor (its third-party hooks setting) also runs the hooks in ``~/.claude/settings.json``:
    when its own user hooks already run our Cursor bridge, answering here too would run every
    plugin twice. Only Cursor puts ``cursor_version`` in an event; Claude Code never does."""
    if not isinstance(event.get("cursor_version"), str):
        return False
    from ..cursor.install import runs_our_own_hooks

    return runs_our_own_hooks()


def _copilot_runs_its_own(event: Mapping[str, Any]) -> bool:
    """GitHub Copilot CLI also runs a trusted repository's ``.claude/settings(.local).json`` hooks:
    when the user's Copilot hooks already run our Copilot bridge on this event, answering here too
    would run every plugin twice. Copilot starts its hooks with ``COPILOT_CLI=1`` and sends no
    ``transcript_path``; Claude Code always sends one (so a COPILOT_CLI inherited by Claude Code
    changes nothing)."""
    if os.environ.get("COPILOT_CLI") != "1" or "transcript_path" in event:
        return False
    name = event.get("hook_event_name")
    if not isinstance(name, str):
        return False
    from ..copilot import runs_our_own_hooks

    return runs_our_own_hooks(name)


ADAPTER = ClaudeCodeAdapter()
