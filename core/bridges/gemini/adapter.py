"""Gemini CLI events -> canonical hooks -> Gemini's answers (top-level ``decision``).

Gemini reads JSON on stdout whatever the exit code, ignores Claude-style ``permissionDecision``,
and blocks on non-JSON output with an exit code other than 0 or 1. A deny is therefore
``{"decision": "deny", "reason": …}``, and our own failure on BeforeTool is that JSON *and* exit 2
with the reason on stderr (if the JSON were lost, the exit code still blocks). Facts:
docs/hosts/gemini.md.
"""

from __future__ import annotations

from typing import Any

from ..base import HostAnswer
from ..hostkit import gate as g
from ..hostkit.adapter import Adapter, Turn, fail_reason
from ..hostkit.output import output
from ..hostkit.shape import ToolShape, needs
from ..hosts.gemini import EVENTS

#: Gemini CLI 0.61's built-in tools (``llm_request`` carries no tool list, so BeforeToolSelection
#: hands plugins these names)
BUILTIN_TOOLS = (
    "run_shell_command", "read_file", "read_many_files", "write_file", "replace", "list_directory", "glob",
    "search_file_content", "web_fetch", "google_web_search", "save_memory", "write_todos",
)

#: what a Gemini tool call must carry to be checked
TOOL_SHAPE = ToolShape(fields={
    "run_shell_command": needs("command"),
    "write_file": needs("file_path"), "replace": needs("file_path"), "read_file": needs("file_path"),
    "read_many_files": needs("paths", "include", many=True),
    "list_directory": needs("dir_path", "path"),
    "glob": needs("dir_path", "path", optional=True), "search_file_content": needs("dir_path", "path", optional=True),
    "grep_search": needs("dir_path", "path", optional=True),
    "web_fetch": needs("prompt", "url"), "google_web_search": needs("query"),
})


def permission_calls(tool: str, args: dict[str, Any], cwd: str) -> g.Calls:
    if tool == "run_shell_command":
        return g.shell(args.get("command"), tool)
    if tool in ("write_file", "replace"):
        content = args.get("content") if tool == "write_file" and isinstance(args.get("content"), str) else None
        return g.writes([(args.get("file_path"), content)], tool, cwd)
    if tool == "read_file":
        return g.reads([args.get("file_path")], tool, cwd)
    if tool == "read_many_files":
        paths = args.get("paths") or args.get("include") or []
        return g.reads(paths if isinstance(paths, list) else [], tool, cwd)
    if tool in ("list_directory", "glob", "search_file_content", "grep_search"):
        return g.reads([args.get("dir_path") or args.get("path")], tool, cwd)
    if tool == "web_fetch":
        return g.fetches(args.get("prompt") or args.get("url"), tool)
    if tool == "google_web_search":
        query = args.get("query")
        return [("pre_fetch_url", {"tool_name": tool, "safety": "no_url", "summary": f"web search: {query}"})]
    return []


class GeminiAdapter(Adapter):
    name = "gemini"
    TITLE = "Gemini CLI"
    GATING = frozenset({"BeforeTool"})
    SHAPES = {"BeforeTool": TOOL_SHAPE}
    EVENTS = EVENTS

    @staticmethod
    def _specific(event: str, **fields: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": event, **fields}}

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        if event_name in self.GATING or event_name is None:
            reason = fail_reason(problem)
            return HostAnswer(body={"decision": "deny", "reason": reason}, stderr=[reason], exit_code=2, blocked=True)
        # exit 1 with text: Gemini goes on and shows a warning
        return HostAnswer(stderr=[f"agenthooks gemini: error ({event_name}): {problem}"], exit_code=1)

    @staticmethod
    def _with_context(turn: Turn, body: dict[str, Any] | None, extra: list[str]) -> HostAnswer:
        texts = [*extra, *turn.messages()]
        if texts:
            body = body or {}
            spec = body.setdefault("hookSpecificOutput", {"hookEventName": turn.name})
            spec["additionalContext"] = "\n\n".join(texts)
        return HostAnswer(body=body)

    # -- tools -----------------------------------------------------------------------------

    def on_BeforeTool(self, turn: Turn) -> HostAnswer:
        tool, args = turn.tool()
        cwd = turn.rt.cwd
        verdict = g.gate(turn.rt, tool, args, None, lambda a: permission_calls(tool, a, cwd))
        turn.errors.extend(verdict.errors)
        if verdict.blocked:
            return HostAnswer(body={"decision": "deny", "reason": verdict.reason.strip() or "blocked by agent-hooks"},
                              blocked=True)
        if verdict.changed:
            # Gemini CLI 0.61 replaces the arguments with tool_input and validates them against the
            # tool's schema: the whole new input, a removed key simply absent (a null would fail)
            return HostAnswer(body=self._specific("BeforeTool", tool_input=verdict.arguments))
        return HostAnswer()

    def on_AfterTool(self, turn: Turn) -> HostAnswer:
        tool, args = turn.tool()
        response = turn.event.get("tool_response")
        is_error = isinstance(response, dict) and bool(response.get("error"))
        result = response.get("llmContent") if isinstance(response, dict) and "llmContent" in response else response
        change = output(turn.rt, tool, args, result, is_error=is_error, errors=turn.errors)
        if change is None:
            return self._with_context(turn, None, [])
        # AfterTool deny: the reason replaces the tool's result for the model
        return HostAnswer(body={"decision": "deny", "reason": change.feedback(tool)})

    # -- model and agent ----------------------------------------------------------------------

    def on_BeforeAgent(self, turn: Turn) -> HostAnswer:
        blocked, context = turn.user_prompt("deny")
        return blocked or self._with_context(turn, None, context)

    def on_AfterAgent(self, turn: Turn) -> HostAnswer:
        turn.fire("agent_end", {"last_assistant_message": turn.text("prompt_response")})
        reason = turn.stop_gate(message_key="prompt_response")
        # Gemini CLI sends the reason of an AfterAgent deny as a new prompt: the agent goes on
        return HostAnswer(body={"decision": "deny", "reason": reason}) if reason else HostAnswer()

    def on_BeforeModel(self, turn: Turn) -> HostAnswer:
        request = turn.obj("llm_request")
        if not turn.rt.implementers("pre_api_request"):
            return HostAnswer()
        out = turn.fire("pre_api_request", {"request_body": request})
        body = (out.data or {}).get("request_body")
        if isinstance(body, dict) and body != request:
            return HostAnswer(body=self._specific("BeforeModel", llm_request=body))
        return HostAnswer()

    def on_BeforeToolSelection(self, turn: Turn) -> HostAnswer:
        if not turn.rt.implementers("pre_api_tools"):
            return HostAnswer()
        offered = [{"name": n, "type": "function"} for n in BUILTIN_TOOLS]
        out = turn.fire("pre_api_tools", {"tools": offered})
        data = out.data or {}
        if "include" not in data and "exclude" not in data:
            return HostAnswer()
        kept = [t["name"] for t in data.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("name"), str)]
        # an allowlist only: Gemini unions the names every hook allows, so another hook can add back
        # a tool a plugin excluded, and MCP tools (not in our list) are left out while it applies
        mode = "AUTO" if kept else "NONE"
        return HostAnswer(body=self._specific("BeforeToolSelection",
                                              toolConfig={"mode": mode, "allowedFunctionNames": kept}))

    # -- session ------------------------------------------------------------------------------

    def on_SessionStart(self, turn: Turn) -> HostAnswer:
        source = turn.text("source")
        turn.fire("on_start", {"project_root": turn.rt.cwd})
        turn.fire("session_start", {"reason": source, "session_file": turn.text("transcript_path")})
        answer = self._with_context(turn, None, [])
        notes = [f"agent-hooks: {e}" for e in getattr(turn.rt, "load_errors", ())]
        if notes:
            answer.body = {**(answer.body or {}), "systemMessage": "\n".join(notes)}
        return answer

    def on_SessionEnd(self, turn: Turn) -> HostAnswer:
        turn.fire("on_end", {"reason": turn.text("reason")})
        return HostAnswer()

    def on_PreCompress(self, turn: Turn) -> HostAnswer:
        turn.fire("pre_compact", {"trigger": turn.text("trigger")})  # advisory: Gemini cannot cancel it
        return HostAnswer()


ADAPTER = GeminiAdapter()
