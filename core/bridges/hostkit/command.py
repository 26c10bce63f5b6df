"""The per-event command of a command-hook host: ``agenthooks <host> [--event NAME] [--hook PATH]…``,
run by :func:`agent_hooks_core.transports.process.main` (one answer whatever a plugin does, bad
input answered as ``adapter.failure``: a deny on the host's gating events)."""

from __future__ import annotations

from typing import Any

USAGE = """\
usage: agenthooks {host} [--event NAME] [--hook PATH]... [--settings PATH]

{title}'s hook command: reads one hook event (JSON) on stdin, runs it through the enabled
agent-hooks plugins and answers in {title}'s format. Wire it with `agenthooks install {host}`;
see docs/hosts/{host}.md.

  --event NAME     the event this entry was installed for (used when stdin is unreadable)
  --hook PATH      also load this local plugin file (repeatable)
  --settings PATH  use this agent-hooks settings file
"""


def usage(host: str, title: str) -> str:
    return USAGE.format(host=host, title=title)


def main(adapter: Any, argv: list[str], title: str) -> int:
    from ...transports.process import main as process_main

    code: int = process_main(adapter, argv)
    return code
