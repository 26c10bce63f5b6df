"""``agenthooks claude-code``: Claude Code's command hook, answered by every enabled plugin.

Claude Code starts this command once per hook event (a fresh process: its start-up time is the
hook's latency), writes the event JSON to stdin, and reads the answer from the exit code and
stdout (host-protocols.md, section A). :func:`main` maps the event to canonical hooks, fires them
through a :class:`~agent_hooks_core.runtime.Runtime` and renders the combined outcome in Claude
Code's contract. The mapping and its reasons are in ``docs/hosts/claude-code.md``.

Import discipline: this module is imported by ``agent_hooks_core.__main__`` before typer, rich or
pydantic. It must only import the standard library and the runtime (never ``cli``,
``hookspecs.models``, ``typer`` or ``rich``).

Rules kept here:

* exit code 0 with JSON on stdout, or nothing, for every answer we mean; exit 1 (Claude Code's
  "non-blocking error") with one line on stderr when our side fails on an event that is not a
  permission decision; never exit 2 (on ``Stop`` that would make Claude continue) and never a
  traceback;
* ``PreToolUse`` fails closed: malformed input, a plugin load failure, a plugin error or a bug
  here answers ``permissionDecision: "deny"`` with the reason;
* a plugin's ``print()`` (or a child process it starts) cannot corrupt the JSON answer: stdout is
  pointed at stderr while plugins run;
* every string we emit respects Claude Code's 10,000-character cap.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any

from ..context import NoUI

if TYPE_CHECKING:
    from ..runtime import Outcome, Runtime

HOST = "claude-code"
#: Claude Code caps hook output strings (reasons, additionalContext, systemMessage) at this length
MAX_TEXT = 10_000

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

# -- tool families ------------------------------------------------------------------------

SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob"})
FETCH_TOOLS = frozenset({"WebFetch", "WebSearch"})

#: the events that decide whether a tool runs: our failure there must not become an allow
FAIL_CLOSED_EVENTS = frozenset({"PreToolUse"})

#: events whose reply may carry ``hookSpecificOutput.additionalContext`` (host-protocols.md A4)
CONTEXT_EVENTS = frozenset({
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart",
    "Stop", "SubagentStart", "SubagentStop", "Notification", "Setup",
})

#: Claude Code events with a canonical counterpart (the rest go to the ``host_event`` hook)
MAPPED_EVENTS = (
    "SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse",
    "PostToolUseFailure", "PostToolBatch", "PreCompact", "PostCompact", "Stop", "SubagentStart",
    "SubagentStop",
)


class BridgeInputError(Exception):
    """The event from Claude Code is not what its protocol promises."""


class _LoadFailure(Exception):
    """A plugin that should run could not be loaded (PreToolUse denies then)."""


# -- the UI Claude Code's hook process offers ---------------------------------------------


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
    from ..hookspecs.catalogue import BY_NAME

    codes: dict[Any, str] = {}
    for hook in BY_NAME:
        for h in rt.handlers(hook):
            func = h.func
            code = getattr(func, "__code__", None) or getattr(getattr(func, "__func__", None), "__code__", None)
            if code is not None:
                codes.setdefault(code, h.plugin)
    return codes


# -- options and the runtime factory -----------------------------------------------------


class Options:
    """The command line of ``agenthooks claude-code`` (plain class: dataclasses cost import time)."""

    def __init__(self) -> None:
        self.hooks: list[str] = []
        self.settings: str | None = None
        self.event: str | None = None
        self.on_rewrite = "ask"
        self.ask = False
        self.help = False


class UsageError(Exception):
    pass


def parse_args(argv: Iterable[str]) -> Options:
    opts = Options()
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


#: ``factory(cwd=..., host=..., session_id=..., session_file=..., ui=..., has_ui=..., hooks=[...],
#: settings=...) -> Runtime``; tests inject one that returns ``Runtime(plugins=[...])``.
RuntimeFactory = Callable[..., "Runtime"]


def default_runtime_factory(*, cwd: str, hooks: list[str], settings: str | None, **options: Any) -> Runtime:
    """The installed plugins and local hook files, with the user's and the project's settings."""
    from ..runtime import BRIDGE_GATE_TIMEOUT, Runtime

    options.setdefault("gate_timeout", BRIDGE_GATE_TIMEOUT)  # pre_tool answers before the host gives up
    if hooks:
        options["hook_paths"] = list(hooks)
    if settings:
        options["settings_path"] = settings
    return Runtime.from_settings(cwd=cwd, **options)


# -- the reply ---------------------------------------------------------------------------


class Reply:
    """What we answer Claude Code: exit code, the JSON object on stdout, lines for stderr."""

    def __init__(self, event: str, code: int = 0) -> None:
        self.event = event
        self.code = code
        self.output: dict[str, Any] = {}
        self.stderr: list[str] = []
        #: additionalContext parts, joined when rendered
        self.context: list[str] = []
        #: systemMessage parts (shown to the user)
        self.messages: list[str] = []

    def specific(self, **fields: Any) -> None:
        out = self.output.setdefault("hookSpecificOutput", {"hookEventName": self.event})
        out.update({k: v for k, v in fields.items() if v is not None})

    def block(self, reason: str) -> None:
        self.output["decision"] = "block"
        self.output["reason"] = cap(reason)

    def render(self) -> str:
        if self.context:
            self.specific(additionalContext=cap("\n\n".join(self.context)))
        if self.messages:
            self.output["systemMessage"] = cap("\n".join(self.messages))
        return json.dumps(self.output, ensure_ascii=False) if self.output else ""


def cap(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to Claude Code's limit, saying how much was cut."""
    if len(text) <= limit:
        return text
    note = f"\n[… {{}} more characters cut by agent-hooks to fit Claude Code's {limit:,}-character limit]"
    cut = len(text) - limit
    for _ in range(3):  # the note's length depends on the number it states
        keep = max(limit - len(note.format(cut)), 0)
        cut = len(text) - keep
    return (text[:keep] + note.format(cut))[:limit]


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- tool input and output translation --------------------------------------------------


def permission_call(tool: str, arguments: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]] | None:
    """The permission hook (and its payload) that fits a Claude Code tool call, if any."""
    if tool in SHELL_TOOLS:
        command = arguments.get("command")
        if isinstance(command, str):
            return "pre_shell_exec", {"command": command, "tool_name": tool}
        return None
    if tool in WRITE_TOOLS:
        path = arguments.get("file_path") or arguments.get("notebook_path")
        if isinstance(path, str) and path:
            payload: dict[str, Any] = {"path": _absolute(path, cwd), "tool_name": tool}
            if tool == "Write" and isinstance(arguments.get("content"), str):
                payload["content"] = arguments["content"]
            return "pre_file_write", payload
        return None
    if tool in READ_TOOLS:
        path = arguments.get("file_path") if tool == "Read" else arguments.get("path")
        if isinstance(path, str) and path:
            return "pre_file_read", {"path": _absolute(path, cwd), "tool_name": tool}
        return None
    if tool == "WebFetch":
        url = arguments.get("url")
        if isinstance(url, str):
            return "pre_fetch_url", {"url": url, "tool_name": tool}
        return None
    if tool == "WebSearch":
        query = arguments.get("query")
        summary = f"web search: {query}" if isinstance(query, str) else "web search"
        return "pre_fetch_url", {"tool_name": tool, "safety": "no_url", "summary": summary}
    return None


def _absolute(path: str, cwd: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(cwd, path))


def response_text(tool: str, response: Any) -> str | None:
    """The text of a tool's structured response, as the model would read it."""
    if response is None:
        return None
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        texts = [str(b["text"]) for b in response if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts or not response:
            return "\n".join(texts)
    if isinstance(response, dict):
        if tool in SHELL_TOOLS and isinstance(response.get("stdout"), str):
            stderr = response.get("stderr")
            return response["stdout"] + (f"\n{stderr}" if isinstance(stderr, str) and stderr else "")
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return str(file["content"])
        for key in ("result", "content", "output", "text"):
            if isinstance(response.get(key), str):
                return str(response[key])
        if isinstance(response.get("filenames"), list):
            return "\n".join(str(f) for f in response["filenames"])
    try:
        return json.dumps(response, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(response)


def replace_text(tool: str, response: Any, text: str) -> Any:
    """``response`` with its text replaced by ``text``, where the shape is known; else None."""
    if isinstance(response, str):
        return text
    if isinstance(response, list) and all(isinstance(b, dict) for b in response):
        return [{"type": "text", "text": text}]
    if isinstance(response, dict):
        if tool in SHELL_TOOLS and isinstance(response.get("stdout"), str):
            return {**response, "stdout": text, "stderr": ""}
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return {**response, "file": {**file, "content": text}}
        for key in ("result", "content", "output", "text"):
            if isinstance(response.get(key), str):
                return {**response, key: text}
    return None


# -- the bridge --------------------------------------------------------------------------


class Bridge:
    """One Claude Code event, fired through ``rt``, rendered into a :class:`Reply`."""

    def __init__(self, rt: Runtime, event: dict[str, Any], ui: ClaudeCodeUI, options: Options) -> None:
        self.rt = rt
        self.event = event
        self.name = str(event.get("hook_event_name"))
        self.ui = ui
        self.options = options
        self.reply = Reply(self.name)
        self._outbox_seen = 0

    def run(self) -> Reply:
        broken = list(getattr(self.rt, "load_errors", ()))
        if broken and self.name in FAIL_CLOSED_EVENTS:
            names = ", ".join(dict.fromkeys(e.plugin for e in broken))
            raise _LoadFailure(f"{'; '.join(str(e) for e in broken)}. Fix it, or disable it "
                               f"(`agenthooks plugins disable {names}`)")
        if not self.rt.plugins:  # nothing to ask: Claude Code decides as if we were not wired
            if self.name == "SessionStart":
                self._load_errors()
            return self.reply
        handler = getattr(self, f"on_{self.name}", None) if self.name in MAPPED_EVENTS else None
        if handler is None:
            self.host_event()
        else:
            handler()
        self._collect_messages()
        return self.reply

    # helpers ---------------------------------------------------------------------------

    def fire(self, hook: str, payload: dict[str, Any]) -> Outcome:
        out = self.rt.fire(hook, payload)
        for err in out.errors:
            self.reply.stderr.append(f"agent-hooks: {err}")
        return out

    def _tool(self) -> tuple[str, dict[str, Any]]:
        tool = self.event.get("tool_name")
        if not isinstance(tool, str) or not tool:
            raise BridgeInputError(f"{self.name} event without a tool_name")
        args = self.event.get("tool_input")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise BridgeInputError(f"{self.name} event: tool_input must be an object, not {type(args).__name__}")
        return tool, args

    def _str(self, key: str) -> str | None:
        value = self.event.get(key)
        return value if isinstance(value, str) else None

    def _outbox(self) -> list[str]:
        """Messages plugins sent with ``ctx.send_message`` since the last call."""
        box = self.rt.outbox[self._outbox_seen:]
        self._outbox_seen = len(self.rt.outbox)
        return [str(m.get("text", "")) for m in box if m.get("text")]

    def _collect_messages(self) -> None:
        texts = self._outbox()
        if texts:
            if self.name in CONTEXT_EVENTS:
                self.reply.context.extend(texts)
            else:
                self.reply.stderr.extend(f"agent-hooks: message not delivered ({self.name} takes no "
                                         f"additionalContext): {t}" for t in texts)
        self.reply.messages.extend(f"agent-hooks: {m}" if k == "info" else f"agent-hooks {k}: {m}"
                                   for k, m in self.ui.notifications)

    def _inject_system_prompt(self) -> None:
        if self.rt.implementers("pre_system_prompt"):
            out = self.fire("pre_system_prompt", {})
            inject = (out.data or {}).get("inject")
            if inject:
                self.reply.context.append(inject)

    # events ----------------------------------------------------------------------------

    def on_PreToolUse(self) -> None:
        tool, tool_input = self._tool()
        original = copy.deepcopy(tool_input)
        reply = self.reply
        mark = self.ui.mark()
        out = self.fire("pre_tool", {"tool_name": tool, "arguments": tool_input,
                                      "tool_call_id": self._str("tool_use_id")})
        data = out.data or {}
        arguments = data.get("arguments", original)
        decision: str | None = None
        reason: str | None = None
        if out.decision == "blocked":
            stopper = out.answered[-1] if out.answered else None
            reason = out.reason or f"blocked by {stopper or 'a plugin'}"
            if not self.ui.asked(stopper, mark):
                reply.specific(permissionDecision="deny", permissionDecisionReason=cap(reason))
                return
            decision = "ask"
        call = permission_call(tool, arguments, self.rt.cwd)
        if call is not None and self.rt.implementers(call[0]):
            hook, payload = call
            mark = self.ui.mark()
            perm = self.fire(hook, payload)
            pdata = perm.data or {}
            if pdata.get("denied"):
                stopper = perm.answered[-1] if perm.answered else None
                preason = pdata.get("reason") or f"denied by {stopper or 'a plugin'} ({hook})"
                if not self.ui.asked(stopper, mark):
                    reply.specific(permissionDecision="deny", permissionDecisionReason=cap(preason))
                    return
                if decision is None:
                    decision, reason = "ask", preason
        changed = arguments != original
        if changed and decision is None:
            decision = "allow" if (self.options.on_rewrite == "allow"
                                   or self.event.get("permission_mode") == "bypassPermissions") else "ask"
            changers = ", ".join(p for p in out.answered) or "a plugin"
            reason = f"agent-hooks: {changers} changed the {tool} input"
        if decision is not None:
            reply.specific(permissionDecision=decision, permissionDecisionReason=cap(reason or ""),
                           updatedInput=arguments if changed else None)

    def _post_tool(self, failed: bool) -> None:
        tool, tool_input = self._tool()
        call_id = self._str("tool_use_id")
        if failed:
            error = self.event.get("error")
            response: Any = error if isinstance(error, str) else (json.dumps(error) if error is not None else "")
            text = response
        else:
            response = self.event.get("tool_response")
            text = response_text(tool, response)
        payload: dict[str, Any] = {"tool_name": tool, "arguments": tool_input, "output": text,
                                   "details": response, "is_error": failed, "tool_call_id": call_id}
        if isinstance(response, list):
            payload["content"] = response
        out = self.fire("pre_tool_output", payload)
        self.fire("post_tool", {"tool_name": tool, "arguments": tool_input, "result": response,
                                "is_error": failed, "tool_call_id": call_id})
        data = out.data or {}
        reply = self.reply
        output_key = "updatedMCPToolOutput" if tool.startswith("mcp__") else "updatedToolOutput"
        changers = ", ".join(out.answered) or "a plugin"
        if data.get("block"):
            message = out.reason or f"{changers} withheld this tool's output"
            reply.block(message)
            replacement = None if failed else replace_text(tool, response, message)
            if replacement is not None:
                reply.specific(**{output_key: replacement})
            return
        replacement = None
        new_text: str | None = None
        if "details" in data and data["details"] != response:
            replacement = data["details"]
            new_text = response_text(tool, replacement)
        elif isinstance(response, list) and "content" in data and data["content"] != response:
            replacement = data["content"]  # the blocks themselves: keeps images and the block layout
            new_text = response_text(tool, replacement)
        elif "output" in data and data["output"] != text:
            new_text = data["output"]
            replacement = replace_text(tool, response, new_text) if new_text is not None else None
        elif "content" in data and data["content"] is not None:
            new_text = response_text(tool, data["content"])
        if replacement is not None and not failed:
            reply.specific(**{output_key: replacement})
        elif new_text is not None:
            what = "error" if failed else "output"
            reply.context.append(f"agent-hooks: {changers} changed this tool's {what}; use this version "
                                 f"instead of the original:\n{new_text}")

    def on_PostToolUse(self) -> None:
        self._post_tool(failed=False)

    def on_PostToolUseFailure(self) -> None:
        self._post_tool(failed=True)

    def on_PostToolBatch(self) -> None:
        calls = self.event.get("tool_calls")
        tool_calls = []
        for c in calls if isinstance(calls, list) else []:
            if isinstance(c, dict):
                tool_calls.append({"name": c.get("tool_name"), "arguments": c.get("tool_input") or {},
                                   "id": c.get("tool_use_id"), "result": c.get("tool_response")})
        out = self.fire("post_tool_batch", {"tool_calls": tool_calls})
        data = out.data or {}
        if data.get("fallback") == "call_user" and data.get("fallback_source") == "post_tool_batch":
            who = out.answered[-1] if out.answered else "a plugin"
            self.reply.block(f"agent-hooks: {who} returned control to the user (fallback call_user)")

    def on_UserPromptSubmit(self) -> None:
        prompt = self.event.get("prompt")
        if not isinstance(prompt, str):
            raise BridgeInputError("UserPromptSubmit event without a prompt")
        out = self.fire("pre_message", {"prompt": prompt, "source": self._str("source")})
        data = out.data or {}
        if out.decision == "blocked":
            who = out.answered[-1] if out.answered else "a plugin"
            verb = "handled" if data.get("handled") else "blocked"
            self.reply.block(out.reason or f"the prompt was {verb} by {who}")
            return
        new_prompt = data.get("prompt")
        if isinstance(new_prompt, str) and new_prompt != prompt:
            who = ", ".join(out.answered) or "a plugin"
            self.reply.context.append(f"agent-hooks: {who} rewrote the user's prompt; treat this as the "
                                      f"prompt:\n{new_prompt}")
        self._inject_system_prompt()

    def on_SessionStart(self) -> None:
        source = self._str("source")
        if source != "compact":
            self.fire("on_start", {"project_root": os.environ.get("CLAUDE_PROJECT_DIR") or self.rt.cwd})
        self.fire("session_start", {"reason": source, "session_file": self._str("transcript_path")})
        self._inject_system_prompt()
        self._load_errors()

    def _load_errors(self) -> None:
        """Plugins that failed to load: the user hears it once per session, not silently."""
        for err in getattr(self.rt, "load_errors", ()):
            self.reply.messages.append(f"agent-hooks: {err}")

    def on_SessionEnd(self) -> None:
        self.fire("on_end", {"reason": self._str("reason")})

    def on_PreCompact(self) -> None:
        out = self.fire("pre_compact", {"trigger": self._str("trigger"),
                                        "custom_instructions": self._str("custom_instructions")})
        if (out.data or {}).get("cancel"):
            who = out.answered[-1] if out.answered else "a plugin"
            self.reply.block(f"agent-hooks: {who} cancelled the compaction")

    def on_PostCompact(self) -> None:
        self.fire("post_compact", {"trigger": self._str("trigger"), "compact_summary": self._str("compact_summary")})

    def on_Stop(self) -> None:
        self.fire("agent_end", {"last_assistant_message": self._str("last_assistant_message")})

    def on_SubagentStart(self) -> None:
        out = self.fire("pre_spawn_agent", {"agent_id": self._str("agent_id"), "agent_type": self._str("agent_type")})
        data = out.data or {}
        who = out.answered[-1] if out.answered else "a plugin"
        if data.get("block"):
            why = data.get("message") or "no reason given"
            # Claude Code cannot stop a sub-agent here: tell the sub-agent, and the user
            self.reply.context.append(f"agent-hooks: {who} blocked this sub-agent: {why}. Do not do the task; "
                                      "reply with this reason.")
            self.reply.messages.append(f"agent-hooks: {who} blocked sub-agent {self._str('agent_type')}: {why}")
        elif data.get("response"):
            self.reply.context.append(f"agent-hooks: {who} answered this sub-agent's task; reply with exactly "
                                      f"this:\n{data['response']}")

    def on_SubagentStop(self) -> None:
        self.fire("post_spawn_agent", {"response": self._str("last_assistant_message"),
                                       "agent_id": self._str("agent_id"), "agent_type": self._str("agent_type"),
                                       "agent_transcript_path": self._str("agent_transcript_path")})

    def host_event(self) -> None:
        for item in self.rt.call_runtime_hook("host_event", host=HOST, name=self.name, payload=self.event):
            if _is_hook_error(item):
                self.reply.stderr.append(f"agent-hooks: {item}")


def _is_hook_error(item: Any) -> bool:
    from ..errors import HookError

    return isinstance(item, HookError)


# -- reading the event -------------------------------------------------------------------

_EVENT_NAME = re.compile(rb'"hook_event_name"\s*:\s*"([A-Za-z]+)"')


def read_event(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """(the event, None) or (None, what is wrong with stdin)."""
    if not raw.strip():
        return None, "no event on stdin (expected one JSON object)"
    try:
        event = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        return None, f"stdin is not valid JSON ({exc})"
    if not isinstance(event, dict):
        return None, f"stdin must hold a JSON object, not {type(event).__name__}"
    name = event.get("hook_event_name")
    if not isinstance(name, str) or not name:
        return None, "the event has no hook_event_name"
    return event, None


def sniff_event_name(raw: bytes) -> str | None:
    match = _EVENT_NAME.search(raw)
    return match.group(1).decode() if match else None


def failure(name: str | None, problem: str) -> Reply:
    """Our side failed: deny where a tool's permission depends on us, else a clear message."""
    if name in FAIL_CLOSED_EVENTS:
        reply = Reply(name)
        reason = f"agent-hooks could not check this tool call, so it is denied (fail-closed): {problem}"
        reply.specific(permissionDecision="deny", permissionDecisionReason=cap(reason))
        reply.stderr.append(f"agenthooks claude-code: {problem}")
        return reply
    reply = Reply(name or "unknown", code=1)
    where = f" ({name})" if name else ""
    reply.stderr.append(f"agenthooks claude-code: error{where}: {problem}")
    return reply


# -- entry point -------------------------------------------------------------------------


class _StdoutToStderr:
    """While plugins run, anything written to stdout (fd 1 included) goes to stderr."""

    def __init__(self, stdout: IO[str] | None) -> None:
        self.stdout = stdout
        self.saved_fd: int | None = None
        self.saved_obj: Any = None

    def __enter__(self) -> None:
        self.saved_obj = sys.stdout
        sys.stdout = sys.stderr
        if self.stdout is None:  # the real process streams: redirect at the fd level too
            try:
                sys.__stdout__.flush() if sys.__stdout__ else None
                self.saved_fd = os.dup(1)
                os.dup2(2, 1)
            except OSError:
                self.saved_fd = None

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self.saved_obj
        if self.saved_fd is not None:
            try:
                sys.stderr.flush()
                os.dup2(self.saved_fd, 1)
            finally:
                os.close(self.saved_fd)


def run(raw: bytes, options: Options, factory: RuntimeFactory | None = None,
        stdout: IO[str] | None = None) -> Reply:
    """The reply to one raw event (no I/O besides what plugins do)."""
    event, problem = read_event(raw)
    name = (event or {}).get("hook_event_name") or options.event or sniff_event_name(raw)
    if problem is not None or event is None:
        return failure(name, problem or "unreadable event")
    name = str(name)
    cwd = event.get("cwd")
    if not (isinstance(cwd, str) and os.path.isdir(cwd)):
        cwd = os.getcwd()
    session_id, transcript = event.get("session_id"), event.get("transcript_path")
    ui = ClaudeCodeUI()
    with _StdoutToStderr(stdout):
        try:
            rt = (factory or default_runtime_factory)(
                cwd=cwd, host=HOST, session_id=session_id if isinstance(session_id, str) else None,
                session_file=transcript if isinstance(transcript, str) else None, ui=ui,
                has_ui=options.ask and name in FAIL_CLOSED_EVENTS, hooks=options.hooks, settings=options.settings)
        except BaseException as exc:  # a broken plugin set must not become a silent allow
            return failure(name, f"could not load the plugins: {_describe(exc)}")
        ui.runtime = rt
        try:
            reply = Bridge(rt, event, ui, options).run()
        except BridgeInputError as exc:
            return failure(name, str(exc))
        except _LoadFailure as exc:
            return failure(name, f"a plugin failed to load: {exc}")
        except BaseException as exc:
            return failure(name, f"internal error: {_describe(exc)}")
    return reply


def main(argv: list[str] | None = None, *, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None, runtime_factory: RuntimeFactory | None = None) -> int:
    """Answer one Claude Code hook event; returns the exit code Claude Code should see."""
    err = stderr if stderr is not None else sys.stderr
    try:
        options = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        # exit 1, not 2: on Claude Code's blocking events 2 would block the action
        err.write(f"agenthooks claude-code: error: {exc}\n")
        return 1
    if options.help:
        (stdout if stdout is not None else sys.stdout).write(USAGE)
        return 0
    try:
        raw = (stdin if stdin is not None else sys.stdin.buffer).read()
    except (OSError, ValueError) as exc:
        raw = b""
        reply = failure(options.event, f"could not read stdin ({exc})")
    else:
        reply = run(raw, options, runtime_factory, stdout)
    text = reply.render()
    for line in reply.stderr:
        err.write(line.rstrip("\n") + "\n")
    err.flush()
    if text:
        if stdout is not None:
            stdout.write(text + "\n")
            stdout.flush()
        else:
            sys.stdout.buffer.write(text.encode("utf-8") + b"\n")
            sys.stdout.buffer.flush()
    return reply.code


if __name__ == "__main__":
    sys.exit(main())
