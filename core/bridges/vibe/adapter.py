"""Mistral Vibe events -> canonical hooks -> Vibe's structured answers.

Vibe reads one JSON object on stdout after exit 0: ``{"decision": "deny", "reason": …}`` denies a
``pre_tool`` (the reason is the tool error the model sees), ``hook_specific_output.tool_input``
replaces the arguments (Vibe revalidates them), a ``post_tool`` deny replaces the text the model
sees, and a ``post_agent`` deny sends the reason as a retry message. Every other outcome (a
non-zero exit, a timeout, output that is not that object) lets the action proceed *unless* the hook
is ``strict = true``, which ``install`` always writes; our own failure on ``pre_tool`` is a deny as
JSON *and* exit 2 with the reason on stderr, so it blocks on either path. Facts: docs/hosts/vibe.md.
"""

from __future__ import annotations

import base64
from typing import Any

from ..base import HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.vibe import EVENTS

SHELL_TOOLS = frozenset({"bash", "git_bash", "windows_shell", "experimental_bash"})
WRITE_TOOLS = frozenset({"write_file", "edit"})
READ_TOOLS = frozenset({"read_file", "grep"})

_FIELDS = {
    **{t: needs("command") for t in SHELL_TOOLS},
    # 3.0.2 offers read_file and write_file with ``path``, edit with ``file_path``
    **{t: needs("path", "file_path") for t in WRITE_TOOLS},
    "read_file": needs("path", "file_path"), "grep": needs("path", optional=True),
    "web_fetch": needs("url"),
}
#: what a Vibe tool call must carry to be checked (built-in tools by their bare name and with the
#: ``file_system.`` prefix some builds report)
#: run_typescript's background processes (3.0.2): a started command and what is typed into it are
#: shell input like a ``bash`` call's command
PROCESS_START, PROCESS_WRITE = "process.start", "process.write"
TOOL_SHAPE = ToolShape(fields={**_FIELDS, **{f"file_system.{t}": n for t, n in _FIELDS.items()},
                               PROCESS_START: needs("command")})


def bare(tool: str) -> str:
    """Vibe's own tool name: some builds prefix the toolset (``file_system.bash``)."""
    return tool.rsplit(".", 1)[-1]


def _typed(args: dict[str, Any]) -> str | None:
    """The text a ``process.write`` sends to a running process (base64 bytes decoded)."""
    if isinstance(args.get("text"), str):
        return str(args["text"])
    raw = args.get("bytesBase64")
    if isinstance(raw, str):
        try:
            return base64.b64decode(raw, validate=True).decode("utf-8", "replace")
        except ValueError:
            return raw  # not base64: checked as it is, never skipped
    return None


def permission_calls(tool: str, args: dict[str, Any], cwd: str) -> g.Calls:
    if tool == PROCESS_START:
        return g.shell(args.get("command"), tool)
    if tool == PROCESS_WRITE:
        return g.shell(_typed(args), tool)
    name = bare(tool)
    if name in SHELL_TOOLS:
        return g.shell(args.get("command"), tool)
    path = args.get("path") or args.get("file_path")
    if name == "write_file":
        content = args.get("content")
        return g.writes([(path, content if isinstance(content, str) else None)], tool, cwd)
    if name == "edit":
        return g.writes([(path, None)], tool, cwd)
    if name == "read_file":
        return g.reads([path], tool, cwd)
    if name == "grep":
        return g.reads([args.get("path") or cwd], tool, cwd)
    if name == "web_fetch":
        return g.fetches(args.get("url"), tool)
    return []


class VibeAdapter(Adapter):
    name = "vibe"
    TITLE = "Mistral Vibe"
    GATING = frozenset({"pre_tool"})
    SHAPES = {"pre_tool": TOOL_SHAPE}
    EVENTS = EVENTS

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in self.GATING or event_name is None:
            reason = fail_reason(problem)
            return HostAnswer(body={"decision": "deny", "reason": reason}, stderr=[reason], exit_code=2, blocked=True)
        if event_name == "post_tool":
            # strict post_tool clears the output on any failure: say why instead of an empty result
            return HostAnswer(body={"decision": "deny", "reason": f"agent-hooks could not check this tool's output, "
                                                                  f"so it is withheld: {problem}"}, blocked=True)
        return HostAnswer(stderr=[f"agenthooks vibe: error ({event_name}): {problem}"], exit_code=1)

    @staticmethod
    def _note(turn: Turn, body: dict[str, Any] | None) -> HostAnswer:
        texts = turn.messages()
        if texts:
            body = dict(body or {})
            body["system_message"] = "\n".join(texts)
        return HostAnswer(body=body)

    def on_pre_tool(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        cwd = turn.rt.cwd
        verdict = g.gate(turn.rt, tool, arguments, turn.text("tool_call_id"),
                         lambda args: permission_calls(tool, args, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            return HostAnswer(body={"decision": "deny", "reason": verdict.reason.strip() or "blocked by agent-hooks"},
                              blocked=True)
        body = None
        if verdict.changed:
            body = {"hook_specific_output": {"tool_input": verdict.arguments}}
        return self._note(turn, body)

    def on_post_tool(self, turn: Turn) -> HostAnswer:
        tool, arguments = turn.tool()
        failed = turn.text("tool_status") == "failure"
        result = turn.event.get("tool_output_text")
        if result is None:
            result = turn.event.get("tool_output") if not failed else turn.event.get("tool_error")
        change = output(turn.rt, tool, arguments, result, is_error=failed, call_id=turn.text("tool_call_id"),
                        errors=turn.errors)
        if change is None:
            return self._note(turn, None)
        # a post_tool deny replaces the text the model sees with the reason
        return self._note(turn, {"decision": "deny", "reason": change.text})

    def on_post_agent(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {})
        reason = turn.stop_gate(subagent=bool(turn.text("parent_session_id")))
        return self._note(turn, {"decision": "deny", "reason": reason} if reason else None)


ADAPTER = VibeAdapter()

__all__ = ["ADAPTER", "EVENTS", "VibeAdapter", "permission_calls"]
