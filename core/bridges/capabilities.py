"""What each host bridge can do with each canonical hook: the data behind ``agenthooks hosts``.

A host adapter declares ``CAPABILITIES``: canonical hook -> :class:`Cap`. A hook that is not
listed is one the host cannot fire through its bridge; the matrix shows it as such. ``block``:
a plugin's block/deny stops the host's action; ``rewrite``: a plugin's changed value reaches the
host; ``closed``: a failure of ours (a crash, bad input, a plugin that fails to load) blocks
rather than allows. The tests check every declared hook against what the adapter really fires on
recorded host payloads (tests/bridges/test_capabilities.py).

Adapters written before this table (Claude Code) are described in :data:`DECLARED`
until they carry their own ``CAPABILITIES``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cap:
    #: the host events that fire it
    via: str
    block: bool = False
    rewrite: bool = False
    closed: bool = False
    #: what is partial or different about it on this host
    note: str = ""

    def flags(self) -> str:
        """``F``ire ``B``lock ``R``ewrite ``C``losed, ``-`` where the host cannot."""
        return "F" + ("B" if self.block else "-") + ("R" if self.rewrite else "-") + ("C" if self.closed else "-")

    def to_dict(self) -> dict[str, Any]:
        return {"fire": True, "block": self.block, "rewrite": self.rewrite, "fail_closed": self.closed,
                "via": self.via, "note": self.note}


#: Claude Code (command transport; docs/hosts/claude-code.md), until its adapter declares them
DECLARED: dict[str, dict[str, Cap]] = {
    "claude-code": {
        "on_start": Cap("SessionStart"),
        "session_start": Cap("SessionStart"),
        "on_end": Cap("SessionEnd"),
        "pre_message": Cap("UserPromptSubmit", block=True, rewrite=True,
                           note="a rewritten prompt reaches the model as additionalContext"),
        "pre_system_prompt": Cap("SessionStart, UserPromptSubmit", rewrite=True, note="as additionalContext"),
        "pre_tool": Cap("PreToolUse", block=True, rewrite=True, closed=True),
        "pre_shell_exec": Cap("PreToolUse Bash|PowerShell", block=True, closed=True),
        "pre_file_write": Cap("PreToolUse Write|Edit|NotebookEdit", block=True, closed=True),
        "pre_file_read": Cap("PreToolUse Read|Grep|Glob", block=True, closed=True),
        "pre_fetch_url": Cap("PreToolUse WebFetch|WebSearch", block=True, closed=True),
        "post_tool": Cap("PostToolUse, PostToolUseFailure"),
        "pre_tool_output": Cap("PostToolUse", block=True, rewrite=True),
        "post_tool_batch": Cap("PostToolBatch", block=True, note="fallback call_user only"),
        "pre_compact": Cap("PreCompact", block=True),
        "post_compact": Cap("PostCompact"),
        "agent_end": Cap("Stop"),
        "stop_gate": Cap("Stop, SubagentStop", block=True,
                         note="continue = decision block, the reason as the next instruction"),
        "permission_request": Cap("PermissionRequest", block=True, rewrite=True, closed=True,
                                  note="deny; allow (approvers) skips the prompt, with updatedInput"),
        "pre_spawn_agent": Cap("SubagentStart", note="cannot stop the sub-agent: told as context"),
        "post_spawn_agent": Cap("SubagentStop"),
        "host_event": Cap("every other wired event",
                          note="not wired: MessageDisplay, FileChanged (cost), WorktreeCreate/Remove (answering "
                               "replaces Claude Code's own worktree handling)"),
    },
}


def of(host: str) -> dict[str, Cap]:
    """The capabilities of ``host`` (its adapter's, else :data:`DECLARED`, else none)."""
    from . import ADAPTERS, adapter

    if host in ADAPTERS:
        try:
            caps = getattr(adapter(host), "CAPABILITIES", None)
        except Exception:
            caps = None
        if isinstance(caps, dict):
            return caps
    return DECLARED.get(host, {})


def sandbox(host: str) -> tuple[bool, str]:
    """Can a ``pre_tool`` rewrite (what agent-hooks-sandbox does to a shell command) reach ``host``?

    (True, the host events it rides on) or (False, why not).
    """
    cap = of(host).get("pre_tool")
    if cap is None:
        return False, "it does not fire pre_tool"
    if not cap.rewrite:
        return False, f"its {cap.via} cannot rewrite a tool's input"
    return True, cap.via
