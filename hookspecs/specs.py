"""Hook specifications: one per canonical hook, plus the runtime's own hooks.

Each canonical hook is declared here and only here: :func:`~.hookdef.canonical` on its hookspec
carries its category, combination rule, seed aliases and the names of its models; the first
paragraph of the docstring is its summary. The catalogue (:mod:`.catalogue`), ``agenthooks hooks``,
docs/hooks.md and every count are derived from these declarations.

Every lifecycle hook takes ``event`` (a :class:`~agent_hooks_core.event.HookEvent`: the payload
as a dict with attribute access; ``event.model()`` gives the pydantic model named below) and
optionally ``ctx`` (the plugin's :class:`~agent_hooks_core.context.HookContext`). Implement only
the arguments you need: ``def pre_tool(event)`` is fine.

A handler returns a dict, the hook's result model, or None (= no opinion). ``{}`` is no opinion
too. How the answers of several plugins combine is stated under *Combination*; the precise rules
are in ``docs/hooks.md`` and :mod:`agent_hooks_core.reducer`.

Payload fields are listed on the event models (``agenthooks hooks HOOK`` shows them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .hookdef import canonical
from .markers import hookspec

if TYPE_CHECKING:
    import typer
    from pydantic import BaseModel

    from ..bridges.record import Host
    from ..context import HookContext
    from ..event import HookEvent
    from ..runtime import Outcome

    #: what a handler returns: a dict, the hook's result model, or None (no opinion)
    Answer = dict[str, object] | BaseModel | None

# ======================================================================================
# Session lifecycle
# ======================================================================================


@canonical("session", "observe", event="OnStartEvent", aliases={"chibi": ("on_start",)})
def on_start(event: HookEvent, ctx: HookContext) -> None:
    """The agent process starts, before any processing.

    :param event: :class:`OnStartEvent`.
    :returns: nothing; the return value is ignored.

    Combination: observe — every handler runs.
    """


@canonical(
    "session", "observe", event="OnEndEvent",
    aliases={
        "chibi": ("on_end",), "omp": ("session_shutdown",), "pi-ext": ("session_shutdown",),
        "pi-agent": ("session:shutdown",),
    },
)
def on_end(event: HookEvent, ctx: HookContext) -> None:
    """The agent process exits, after all processing.

    Keep it fast: the process is exiting.

    :param event: :class:`OnEndEvent` (``reason`` when the host gives one).
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "session", "observe", event="SessionStartEvent",
    aliases={"omp": ("session_start",), "pi-ext": ("session_start",), "pi-agent": ("session:start",)},
)
def session_start(event: HookEvent, ctx: HookContext) -> None:
    """A session is loaded: at startup, after ``/reload``, and after a switch or fork.

    Use it to restore state from session entries.

    :param event: :class:`SessionStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "session", "short-circuit(cancel), else last-wins", event="PreSessionSwitchEvent",
    result="PreSessionSwitchResult", stop_on=("cancel",),
    aliases={
        "omp": ("session_before_switch",), "pi-ext": ("session_before_switch",),
        "pi-agent": ("session:before_switch",),
    },
)
def pre_session_switch(event: HookEvent, ctx: HookContext) -> Answer:
    """Before the session is switched (``/new``, ``/resume``).

    :param event: :class:`PreSessionSwitchEvent`.
    :returns: :class:`PreSessionSwitchResult` — ``{"cancel": true}`` prevents the switch.

    Combination: short-circuit(cancel) — the first cancel ends the call; else last-wins.
    """


@canonical(
    "session", "observe", event="PostSessionSwitchEvent",
    aliases={
        "chibi": ("on_context_switch",), "omp": ("session_switch",), "pi-ext": ("session_switch",),
        "pi-agent": ("session:switch",),
    },
)
def post_session_switch(event: HookEvent, ctx: HookContext) -> None:
    """After the session or context was switched.

    :param event: :class:`PostSessionSwitchEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "session", "short-circuit(cancel), else last-wins(skip_conversation_restore)",
    event="PreSessionForkEvent", result="PreSessionForkResult", stop_on=("cancel",),
    last_wins=("skip_conversation_restore",),
    aliases={
        "omp": ("session_before_branch",), "pi-ext": ("session_before_fork",),
        "pi-agent": ("session:before_branch",),
    },
)
def pre_session_fork(event: HookEvent, ctx: HookContext) -> Answer:
    """Before the session is forked or branched (``/fork``, ``/branch``).

    :param event: :class:`PreSessionForkEvent`.
    :returns: :class:`PreSessionForkResult` — ``cancel`` prevents the fork;
        ``skip_conversation_restore`` forks without restoring messages (e.g. a checkpoint plugin
        restores files itself).

    Combination: short-circuit(cancel), else last-wins(skip_conversation_restore).
    """


@canonical(
    "session", "observe", event="PostSessionForkEvent",
    aliases={"omp": ("session_branch",), "pi-ext": ("session_fork",), "pi-agent": ("session:branch",)},
)
def post_session_fork(event: HookEvent, ctx: HookContext) -> None:
    """After the session was forked or branched.

    :param event: :class:`PostSessionForkEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "session", "short-circuit(cancel), else last-wins(summary, label)", event="PreSessionTreeEvent",
    result="PreSessionTreeResult", stop_on=("cancel",), last_wins=("summary", "label"),
    aliases={"omp": ("session_before_tree",), "pi-ext": ("session_before_tree",)},
)
def pre_session_tree(event: HookEvent, ctx: HookContext) -> Answer:
    """Before navigating the session tree (``/tree``).

    :param event: :class:`PreSessionTreeEvent`.
    :returns: :class:`PreSessionTreeResult` — ``cancel``, or a custom ``summary`` and ``label``.

    Combination: short-circuit(cancel), else last-wins(summary, label).
    """


@canonical(
    "session", "observe", event="PostSessionTreeEvent",
    aliases={"omp": ("session_tree",), "pi-ext": ("session_tree",)},
)
def post_session_tree(event: HookEvent, ctx: HookContext) -> None:
    """After navigating the session tree.

    :param event: :class:`PostSessionTreeEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "context", "short-circuit(cancel)", event="PreClearEvent", result="PreClearResult", stop_on=("cancel",),
    aliases={"chibi": ("pre_clear",), "pi-agent": ("session:before_clear",)},
)
def pre_clear(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a context or session is cleared.

    :param event: :class:`PreClearEvent`.
    :returns: :class:`PreClearResult` — ``{"cancel": true}`` keeps the conversation.

    Combination: short-circuit(cancel).
    """


@canonical(
    "context", "observe", event="PostClearEvent",
    aliases={"chibi": ("post_clear",), "pi-agent": ("session:clear",)},
)
def post_clear(event: HookEvent, ctx: HookContext) -> None:
    """After a context or session was cleared.

    :param event: :class:`PostClearEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "context", "short-circuit(cancel), else last-wins(compaction)", event="PreCompactEvent",
    result="PreCompactResult", stop_on=("cancel",), last_wins=("compaction",),
    aliases={
        "chibi": ("pre_compact",), "omp": ("session_before_compact",), "pi-ext": ("session_before_compact",),
    },
)
def pre_compact(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a full compaction of the conversation (manual or automatic).

    :param event: :class:`PreCompactEvent`.
    :returns: :class:`PreCompactResult` — ``cancel`` prevents it; ``compaction`` supplies a custom
        one (``{summary, first_kept_entry_id, tokens_before}``).

    Combination: short-circuit(cancel), else last-wins(compaction).
    """


@canonical(
    "context", "last-wins", event="OnCompactingEvent", result="OnCompactingResult",
    last_wins=("context", "prompt", "preserve_data"),
    aliases={"omp": ("session.compacting",)},
)
def on_compacting(event: HookEvent, ctx: HookContext) -> Answer:
    """While compaction builds its prompt; may add context or replace it.

    :param event: :class:`OnCompactingEvent`.
    :returns: :class:`OnCompactingResult` — extra ``context`` lines, a replacement ``prompt``,
        ``preserve_data`` to keep.

    Combination: last-wins, per field.
    """


@canonical(
    "context", "observe", event="PostCompactEvent",
    aliases={"chibi": ("post_compact",), "omp": ("session_compact",), "pi-ext": ("session_compact",)},
)
def post_compact(event: HookEvent, ctx: HookContext) -> None:
    """After a full compaction.

    :param event: :class:`PostCompactEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("context", "observe", event="PreRollingCompactEvent", aliases={"chibi": ("pre_rolling_compact",)})
def pre_rolling_compact(event: HookEvent, ctx: HookContext) -> None:
    """Before rolling compaction archives old messages.

    :param event: :class:`PreRollingCompactEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "context", "observe", event="PostRollingCompactEvent",
    aliases={"chibi": ("post_rolling_compact",)},
)
def post_rolling_compact(event: HookEvent, ctx: HookContext) -> None:
    """After rolling compaction archived old messages.

    :param event: :class:`PostRollingCompactEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "context", "observe", event="AutoCompactionStartEvent",
    aliases={"omp": ("auto_compaction_start",)},
)
def auto_compaction_start(event: HookEvent, ctx: HookContext) -> None:
    """Automatic compaction starts.

    :param event: :class:`AutoCompactionStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("context", "observe", event="AutoCompactionEndEvent", aliases={"omp": ("auto_compaction_end",)})
def auto_compaction_end(event: HookEvent, ctx: HookContext) -> None:
    """Automatic compaction ended.

    :param event: :class:`AutoCompactionEndEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("agent", "observe", event="AutoRetryStartEvent", aliases={"omp": ("auto_retry_start",)})
def auto_retry_start(event: HookEvent, ctx: HookContext) -> None:
    """An automatic retry of a failed model call starts.

    :param event: :class:`AutoRetryStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("agent", "observe", event="AutoRetryEndEvent", aliases={"omp": ("auto_retry_end",)})
def auto_retry_end(event: HookEvent, ctx: HookContext) -> None:
    """An automatic retry of a failed model call ended.

    :param event: :class:`AutoRetryEndEvent`.
    :returns: nothing.

    Combination: observe.
    """


# ======================================================================================
# Messages and the agent loop
# ======================================================================================


@canonical(
    "message", "chain(prompt, images) + short-circuit(handled, block)", event="PreMessageEvent",
    result="PreMessageResult", chain=("prompt", "images"), stop_on=("handled", "block"),
    aliases={"chibi": ("pre_message",), "pi-ext": ("input",)},
)
def pre_message(event: HookEvent, ctx: HookContext) -> Answer:
    """The user's prompt is submitted, before it goes to the model.

    :param event: :class:`PreMessageEvent` — ``prompt`` as changed by earlier handlers.
    :returns: :class:`PreMessageResult` — a new ``prompt`` (and ``images``) to transform it;
        ``handled`` when the plugin dealt with the input itself (no model call); ``block`` with a
        ``reason`` to reject it.

    Combination: chain(prompt, images) + short-circuit(handled, block).
    """


@canonical("message", "observe", event="PostMessageEvent", aliases={"chibi": ("post_message",)})
def post_message(event: HookEvent, ctx: HookContext) -> None:
    """The model's response to a prompt was received.

    :param event: :class:`PostMessageEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "message", "concat(inject)", event="PreSystemPromptEvent", result="PreSystemPromptResult",
    concat=("inject",),
    aliases={"chibi": ("pre_system_prompt",)},
)
def pre_system_prompt(event: HookEvent, ctx: HookContext) -> Answer:
    """Before the system prompt is built; may inject content.

    :param event: :class:`PreSystemPromptEvent`.
    :returns: :class:`PreSystemPromptResult` — ``inject``: text to add.

    Combination: concat(inject) — every handler's text, newline-joined in handler order.
    """


@canonical(
    "message", "concat(inject)", event="PostSystemPromptEvent", result="PostSystemPromptResult",
    concat=("inject",),
    aliases={"chibi": ("post_system_prompt",)},
)
def post_system_prompt(event: HookEvent, ctx: HookContext) -> Answer:
    """After the system prompt is built; may inject content.

    :param event: :class:`PostSystemPromptEvent`.
    :returns: :class:`PostSystemPromptResult` — ``inject``: text to add.

    Combination: concat(inject).
    """


@canonical(
    "agent", "chain(system_prompt) + accumulate(messages)", event="BeforeAgentStartEvent",
    result="BeforeAgentStartResult", chain=("system_prompt",),
    accumulate=(("message", "messages"), ("messages", "messages")),
    aliases={"omp": ("before_agent_start",), "pi-ext": ("before_agent_start",)},
)
def before_agent_start(event: HookEvent, ctx: HookContext) -> Answer:
    """After the prompt is expanded, before the agent loop starts; once per prompt.

    :param event: :class:`BeforeAgentStartEvent` — ``system_prompt`` as changed by earlier handlers.
    :returns: :class:`BeforeAgentStartResult` — a new ``system_prompt``; a custom ``message``
        (or ``messages``) to inject after the user's message.

    Combination: chain(system_prompt) + accumulate(messages). In the omp dialect only the first
    message is kept.
    """


@canonical(
    "message", "chain(messages), first handler gets a deep copy", event="PreLlmContextEvent",
    result="PreLlmContextResult", chain=("messages",), deep_copy=("messages",),
    aliases={"omp": ("context",), "pi-ext": ("context",)},
)
def pre_llm_context(event: HookEvent, ctx: HookContext) -> Answer:
    """Before every model call: the last chance to change the messages the model sees.

    :param event: :class:`PreLlmContextEvent` — ``messages``, a deep copy: safe to mutate.
    :returns: :class:`PreLlmContextResult` — replacement ``messages``.

    Combination: chain(messages); the first handler gets a deep copy.
    """


@canonical(
    "agent", "observe", event="AgentStartEvent",
    aliases={"omp": ("agent_start",), "pi-ext": ("agent_start",), "pi-agent": ("agent_start",)},
)
def agent_start(event: HookEvent, ctx: HookContext) -> None:
    """The agent loop begins (once per prompt).

    :param event: :class:`AgentStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "agent", "observe", event="AgentEndEvent",
    aliases={"omp": ("agent_end",), "pi-ext": ("agent_end",), "pi-agent": ("agent_end",)},
)
def agent_end(event: HookEvent, ctx: HookContext) -> None:
    """The agent loop finished: the reply is complete.

    :param event: :class:`AgentEndEvent` — the ``messages`` of this run.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "agent", "short-circuit(continue), bounded by stop_gate_limit", event="StopGateEvent",
    result="StopGateResult", stop_on=("continue",), computed=("limit_reached",), bounded=True,
)
def stop_gate(event: HookEvent, ctx: HookContext) -> Answer:
    """The agent is about to stop; a plugin may answer that it is not done yet.

    A quality gate: "the tests must pass before you stop". Fires where the host lets a hook keep
    the agent working (Claude Code Stop and SubagentStop, Codex Stop, Gemini CLI AfterAgent, Cursor
    stop, omp), after ``agent_end``.

    :param event: :class:`StopGateEvent` — ``last_assistant_message``, ``subagent``, and from the
        runtime ``continuations`` (in a row so far, this session) and ``limit``.
    :returns: :class:`StopGateResult` — ``{"continue": true, "reason": "run the tests: 2 fail"}``
        keeps the agent working, with ``reason`` as its next instruction.

    Combination: short-circuit(continue) — the first continue wins, with its reason. Bounded: after
    ``stop_gate_limit`` continuations in a row (settings; default 3) the runtime overrules a
    continue and sets ``limit_reached``, so an agent cannot loop forever; the count starts again
    when the agent is let stop.
    """


@canonical(
    "agent", "observe", event="TurnStartEvent",
    aliases={"omp": ("turn_start",), "pi-ext": ("turn_start",), "pi-agent": ("turn_start",)},
)
def turn_start(event: HookEvent, ctx: HookContext) -> None:
    """A turn (one model call plus its tool calls) begins.

    :param event: :class:`TurnStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "agent", "observe", event="TurnEndEvent",
    aliases={"omp": ("turn_end",), "pi-ext": ("turn_end",), "pi-agent": ("turn_end",)},
)
def turn_end(event: HookEvent, ctx: HookContext) -> None:
    """A turn ended: the model answered and its tool calls completed.

    :param event: :class:`TurnEndEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("message", "observe", event="MessageStartEvent", aliases={"pi-ext": ("message_start",)})
def message_start(event: HookEvent, ctx: HookContext) -> None:
    """A message (user, assistant, tool result, custom) starts.

    :param event: :class:`MessageStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("message", "observe", event="MessageUpdateEvent", aliases={"pi-ext": ("message_update",)})
def message_update(event: HookEvent, ctx: HookContext) -> None:
    """A streamed assistant message received more tokens.

    :param event: :class:`MessageUpdateEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("message", "observe", event="MessageEndEvent", aliases={"pi-ext": ("message_end",)})
def message_end(event: HookEvent, ctx: HookContext) -> None:
    """A message is complete and persisted.

    :param event: :class:`MessageEndEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("agent", "observe", event="ModelSelectEvent", aliases={"pi-ext": ("model_select",)})
def model_select(event: HookEvent, ctx: HookContext) -> None:
    """The model was changed.

    :param event: :class:`ModelSelectEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("agent", "observe", event="TtsrTriggeredEvent", aliases={"omp": ("ttsr_triggered",)})
def ttsr_triggered(event: HookEvent, ctx: HookContext) -> None:
    """A time-traveling stream rule matched the model's output (omp).

    :param event: :class:`TtsrTriggeredEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("agent", "observe", event="TodoReminderEvent", aliases={"omp": ("todo_reminder",)})
def todo_reminder(event: HookEvent, ctx: HookContext) -> None:
    """The agent is reminded of unfinished todos (omp).

    :param event: :class:`TodoReminderEvent`.
    :returns: nothing.

    Combination: observe.
    """


# ======================================================================================
# Tools
# ======================================================================================


@canonical(
    "tool", "chain(arguments) + short-circuit(block) + fail-closed", event="PreToolEvent",
    result="PreToolResult", chain=("arguments",), stop_on=("block",), fail_closed=True, timeout=False,
    aliases={
        "chibi": ("pre_tool",), "omp": ("tool_call",), "pi-ext": ("tool_call",), "pi-agent": ("tool_call",),
    },
)
def pre_tool(event: HookEvent, ctx: HookContext) -> Answer:
    """The model asked for a tool call; before the tool runs.

    :param event: :class:`PreToolEvent` — ``tool_name``, ``arguments`` as changed by earlier handlers.
    :returns: :class:`PreToolResult` — new ``arguments`` to rewrite the call; ``block`` with a
        ``message`` (or ``reason``) to stop it.

    Combination: chain(arguments) + short-circuit(block) + fail-closed: a handler that raises or
    answers nonsense blocks the call, and the reason names the plugin. No timeout by default (a
    handler may ask the user). In the omp dialect the last result wins unless a handler blocks.
    """


@canonical("tool", "observe", event="PostToolEvent", aliases={"chibi": ("post_tool",)})
def post_tool(event: HookEvent, ctx: HookContext) -> None:
    """A tool ran (successfully or not).

    :param event: :class:`PostToolEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "tool", "chain(output, content, details, is_error) + short-circuit(block)", event="PreToolOutputEvent",
    result="PreToolOutputResult", chain=("output", "content", "details", "is_error"), stop_on=("block",),
    aliases={
        "chibi": ("pre_tool_output",), "omp": ("tool_result",), "pi-ext": ("tool_result",),
        "pi-agent": ("tool_result",),
    },
)
def pre_tool_output(event: HookEvent, ctx: HookContext) -> Answer:
    """A tool returned (also on error), before its output is cached or shown to the model.

    :param event: :class:`PreToolOutputEvent` — ``output`` (text) and/or ``content`` blocks,
        ``details``, ``is_error``, as changed by earlier handlers.
    :returns: :class:`PreToolOutputResult` — replacement ``output``, ``content``, ``details`` or
        ``is_error``; or ``block`` with a ``message`` that replaces the output entirely.

    Combination: chain(output, content, details, is_error) + short-circuit(block). In the omp
    dialect the last override wins instead of chaining.
    """


@canonical("tool", "observe", event="PostToolOutputEvent", aliases={"chibi": ("post_tool_output",)})
def post_tool_output(event: HookEvent, ctx: HookContext) -> None:
    """After tool output processing and caching.

    :param event: :class:`PostToolOutputEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("tool", "observe", event="ToolExecutionStartEvent", aliases={"pi-ext": ("tool_execution_start",)})
def tool_execution_start(event: HookEvent, ctx: HookContext) -> None:
    """A tool's execution starts.

    :param event: :class:`ToolExecutionStartEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "tool", "observe", event="ToolExecutionUpdateEvent",
    aliases={"pi-ext": ("tool_execution_update",)},
)
def tool_execution_update(event: HookEvent, ctx: HookContext) -> None:
    """A running tool reported progress.

    :param event: :class:`ToolExecutionUpdateEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("tool", "observe", event="ToolExecutionEndEvent", aliases={"pi-ext": ("tool_execution_end",)})
def tool_execution_end(event: HookEvent, ctx: HookContext) -> None:
    """A tool's execution ended.

    :param event: :class:`ToolExecutionEndEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "tool", "first-result(operations or result)", event="UserBashEvent", result="UserBashResult",
    first_result=True, first_result_needs=("operations", "result"),
    aliases={"pi-ext": ("user_bash",)},
)
def user_bash(event: HookEvent, ctx: HookContext) -> Answer:
    """The user ran a shell command from the editor (``!cmd``).

    :param event: :class:`UserBashEvent`.
    :returns: :class:`UserBashResult` — custom ``operations`` (e.g. run over SSH) or a full
        replacement ``result``.

    Combination: first-result. Stops at the first answer that sets ``operations`` or ``result``.
    """


# ======================================================================================
# API request
# ======================================================================================


@canonical(
    "api", "include-intersection + exclude-union", event="PreApiToolsEvent", result="PreApiToolsResult",
    tool_filter=True, computed=("tools",),
    aliases={"chibi": ("pre_api_tools",)},
)
def pre_api_tools(event: HookEvent, ctx: HookContext) -> Answer:
    """Before the tool list is sent to the model API; may filter tools.

    :param event: :class:`PreApiToolsEvent` — ``tools``: ``[{name, type}]``.
    :returns: :class:`PreApiToolsResult` — ``include`` (allowlist) *or* ``exclude`` (denylist);
        an answer with both is invalid and ignored.

    Combination: include-intersection + exclude-union; the combined result carries ``tools``,
    the filtered list, and the ``include``/``exclude`` that produced it.
    """


@canonical(
    "api", "merge-patch(request_body) in order", event="PreApiRequestEvent", result="PreApiRequestResult",
    merge_patch="request_body",
    aliases={"chibi": ("pre_api_request",)},
)
def pre_api_request(event: HookEvent, ctx: HookContext) -> Answer:
    """After tool filtering, before the HTTP request; may patch the body.

    :param event: :class:`PreApiRequestEvent` — ``request_body`` with earlier patches applied.
    :returns: :class:`PreApiRequestResult` — ``request_body``: a partial body merged into the
        request (``null`` removes a key).

    Combination: merge-patch(request_body), RFC 7386, in handler order; the combined result's
    ``request_body`` is the full body with every patch applied.
    """


# ======================================================================================
# The agentic loop
# ======================================================================================


@canonical(
    "loop", "last-wins(fallback, fuel)", event="PreAgenticLoopEvent", result="PreAgenticLoopResult",
    last_wins=("fallback", "fuel"), fuel=True, computed=("fallback_source",),
    aliases={"chibi": ("pre_agentic_loop",)},
)
def pre_agentic_loop(event: HookEvent, ctx: HookContext) -> Answer:
    """Before each agentic loop iteration; may override fallback and fuel.

    :param event: :class:`PreAgenticLoopEvent`.
    :returns: :class:`PreAgenticLoopResult` — ``fallback`` (``call_agent`` | ``call_user``) and
        ``fuel`` (set the remaining budget).

    Combination: last-wins(fallback, fuel). The fallback chosen here is remembered for the
    iteration: post_tool_batch > pre_agentic_loop > configured default.
    """


@canonical(
    "loop", "last-wins(fallback) + saturating-sum(fuel_delta)", event="PostToolBatchEvent",
    result="PostToolBatchResult", last_wins=("fallback",), fuel=True, computed=("fuel", "fallback_source"),
    aliases={"chibi": ("post_tool_batch",)},
)
def post_tool_batch(event: HookEvent, ctx: HookContext) -> Answer:
    """After a batch of tool calls; may override fallback and adjust fuel.

    :param event: :class:`PostToolBatchEvent` — ``tool_calls``: ``[{name, arguments}]``.
    :returns: :class:`PostToolBatchResult` — ``fallback`` to override, ``fuel_delta`` to adjust
        the budget (negative consumes).

    Combination: last-wins(fallback) + saturating-sum(fuel_delta); the combined result carries
    the summed ``fuel_delta`` and the resulting ``fuel`` (never below 0), and the effective
    ``fallback`` with ``fallback_source``.
    """


# ======================================================================================
# Permissions (deny-only)
# ======================================================================================


@canonical(
    "permission", "deny-wins + fail-safe deny when no handler + fail-closed", event="PreFileReadEvent",
    result="PreFileReadResult", stop_on=("denied",), permission=True, deny_without_handler=True,
    fail_closed=True,
    aliases={"chibi": ("pre_file_read",)},
)
def pre_file_read(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a file is read (outside the allowed paths).

    :param event: :class:`PreFileReadEvent` — ``path`` (absolute), ``tool_name``.
    :returns: :class:`PreFileReadResult` — ``{"denied": true, "reason": ...}`` to refuse.

    Combination: deny-wins (first reason kept) + fail-closed; with no handler at all the read is
    denied (fail-safe); handlers but no denial: not denied (the host asks its own way).
    """


@canonical(
    "permission", "deny-wins + fail-safe deny when no handler + fail-closed", event="PreFileWriteEvent",
    result="PreFileWriteResult", stop_on=("denied",), permission=True, deny_without_handler=True,
    fail_closed=True,
    aliases={"chibi": ("pre_file_write",)},
)
def pre_file_write(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a file is written or edited.

    :param event: :class:`PreFileWriteEvent` — ``path``, ``content`` (null for edits).
    :returns: :class:`PreFileWriteResult` — ``{"denied": true, "reason": ...}`` to refuse.

    Combination: deny-wins + fail-safe deny when no handler + fail-closed.
    """


@canonical(
    "permission", "deny-wins + fail-safe deny when no handler + fail-closed", event="PreShellExecEvent",
    result="PreShellExecResult", stop_on=("denied",), permission=True, deny_without_handler=True,
    fail_closed=True,
    aliases={"chibi": ("pre_shell_exec",)},
)
def pre_shell_exec(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a shell command runs.

    :param event: :class:`PreShellExecEvent` — ``command``.
    :returns: :class:`PreShellExecResult` — ``{"denied": true, "reason": ...}`` to refuse.

    Combination: deny-wins + fail-safe deny when no handler + fail-closed.
    """


@canonical(
    "permission", "deny-wins + fail-closed", event="PreFetchUrlEvent", result="PreFetchUrlResult",
    stop_on=("denied",), permission=True, fail_closed=True,
    aliases={"chibi": ("pre_fetch_url",)},
)
def pre_fetch_url(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a sensitive URL is fetched or a network tool without a URL runs.

    :param event: :class:`PreFetchUrlEvent` — ``url`` (absent when ``safety`` is ``no_url``).
    :returns: :class:`PreFetchUrlResult` — ``{"denied": true, "reason": ...}`` to refuse.

    Combination: deny-wins + fail-closed (no fail-safe deny: with no handler the host decides).
    """


@canonical(
    "permission", "verdict: deny-wins, then ask, then allow (approvers only) + chain(arguments) + fail-closed",
    event="PermissionRequestEvent", result="PermissionRequestResult", chain=("arguments",), fail_closed=True,
    verdict=True,
)
def permission_request(event: HookEvent, ctx: HookContext) -> Answer:
    """The host is about to ask the user to approve a tool call; a plugin may decide instead.

    Fires where the host has a permission prompt a hook can answer (Claude Code and Codex
    PermissionRequest). ``pre_tool`` still runs first for every call.

    :param event: :class:`PermissionRequestEvent` — ``tool_name``, ``arguments``.
    :returns: :class:`PermissionRequestResult` — ``decision``: ``"deny"`` (with a ``reason``),
        ``"ask"`` (the host prompts as usual) or ``"allow"`` (only from a plugin that declares
        ``agent_hooks_approver = True`` on its module or class); ``arguments`` rewrites the input
        of an allowed call. None is no opinion.

    Combination: verdict — any deny wins (first reason kept), else any ask, else an allow from an
    approver; no opinion from anyone passes through to the host's own prompt, never an allow.
    chain(arguments). fail-closed: a handler that raises, hangs or answers nonsense (an allow from
    a plugin that is not an approver included) denies.
    """


# ======================================================================================
# Sub-agents, caching, delivery, index
# ======================================================================================


@canonical(
    "subagent", "first-result(response or block)", event="PreSpawnAgentEvent", result="PreSpawnAgentResult",
    first_result=True, first_result_needs=("response", "block"),
    aliases={"chibi": ("pre_spawn_agent",)},
)
def pre_spawn_agent(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a sub-agent model call; may answer it or block it.

    :param event: :class:`PreSpawnAgentEvent`.
    :returns: :class:`PreSpawnAgentResult` — a ``response`` to use instead of calling the model,
        or ``block`` with a ``message``.

    Combination: first-result. Stops at the first answer that sets ``response`` or ``block``.
    """


@canonical("subagent", "observe", event="PostSpawnAgentEvent", aliases={"chibi": ("post_spawn_agent",)})
def post_spawn_agent(event: HookEvent, ctx: HookContext) -> None:
    """A sub-agent returned.

    :param event: :class:`PostSpawnAgentEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "cache", "first-result(summary)", event="PreCacheOutputEvent", result="PreCacheOutputResult",
    first_result=True, first_result_needs=("summary",),
    aliases={"chibi": ("pre_cache_output",)},
)
def pre_cache_output(event: HookEvent, ctx: HookContext) -> Answer:
    """Before a large tool output is cached; may supply the summary.

    :param event: :class:`PreCacheOutputEvent`.
    :returns: :class:`PreCacheOutputResult` — the ``summary`` the model sees instead.

    Combination: first-result. Stops at the first answer that sets ``summary``.
    """


@canonical("cache", "observe", event="PostCacheOutputEvent", aliases={"chibi": ("post_cache_output",)})
def post_cache_output(event: HookEvent, ctx: HookContext) -> None:
    """A large tool output was cached.

    :param event: :class:`PostCacheOutputEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "delivery", "first-result(delivered=true claims)", event="PreSendMessageEvent",
    result="PreSendMessageResult", first_result=True, first_result_needs=("delivered",),
    aliases={"chibi": ("pre_send_message",)},
)
def pre_send_message(event: HookEvent, ctx: HookContext) -> Answer:
    """Before an inter-context message is delivered; a plugin may claim the delivery.

    :param event: :class:`PreSendMessageEvent` — ``from`` (read it as ``event["from"]`` or
        ``event.from_``), ``to``, ``content``.
    :returns: :class:`PreSendMessageResult` — ``{"delivered": true, "via": ...}`` claims it.

    Combination: first-result. Stops at the first answer with ``delivered: true``.
    """


@canonical("delivery", "observe", event="PostSendMessageEvent", aliases={"chibi": ("post_send_message",)})
def post_send_message(event: HookEvent, ctx: HookContext) -> None:
    """An inter-context message was delivered.

    :param event: :class:`PostSendMessageEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("index", "observe", event="PostIndexFileEvent", aliases={"chibi": ("post_index_file",)})
def post_index_file(event: HookEvent, ctx: HookContext) -> None:
    """The code indexer indexed a file.

    :param event: :class:`PostIndexFileEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical("index", "observe (advisory)", event="PreVfsWriteEvent", aliases={"chibi": ("pre_vfs_write",)})
def pre_vfs_write(event: HookEvent, ctx: HookContext) -> None:
    """Before a virtual-filesystem write by a tool (advisory, cannot block).

    :param event: :class:`PreVfsWriteEvent`.
    :returns: nothing.

    Combination: observe (advisory).
    """


@canonical("index", "observe", event="PostVfsWriteEvent", aliases={"chibi": ("post_vfs_write",)})
def post_vfs_write(event: HookEvent, ctx: HookContext) -> None:
    """After a virtual-filesystem write by a tool.

    :param event: :class:`PostVfsWriteEvent`.
    :returns: nothing.

    Combination: observe.
    """


@canonical(
    "resources", "accumulate(skill_paths, prompt_paths, theme_paths)", event="ResourcesDiscoverEvent",
    result="ResourcesDiscoverResult",
    accumulate=(("skill_paths", "skill_paths"), ("prompt_paths", "prompt_paths"), ("theme_paths", "theme_paths")),
    aliases={"pi-ext": ("resources_discover",)},
)
def resources_discover(event: HookEvent, ctx: HookContext) -> Answer:
    """At startup and ``/reload``; plugins contribute skill, prompt and theme paths.

    :param event: :class:`ResourcesDiscoverEvent`.
    :returns: :class:`ResourcesDiscoverResult` — ``skill_paths``, ``prompt_paths``, ``theme_paths``.

    Combination: accumulate — lists from every handler, in order.
    """


# ======================================================================================
# The runtime's own hooks
# ======================================================================================


@hookspec
def hook_called(outcome: Outcome, ctx: HookContext) -> None:
    """After every hook call: observe what happened. Audit and metrics plugins build on it.

    :param outcome: the :class:`~agent_hooks_core.runtime.Outcome`: ``hook``, ``event``, the
        combined ``data``/``result``, ``decision``, ``answered`` (plugins whose answer counted),
        ``handlers`` (plugins called), ``errors``, ``duration`` (seconds).
    :param ctx: the plugin's context (``ctx.host``, ``ctx.session_id``, ``ctx.cwd``).
    :returns: nothing. Errors are recorded on the outcome; hooks fired from here do not re-enter it.
    """


@hookspec
def host_event(host: str, name: str, payload: dict[str, object], ctx: HookContext) -> None:
    """A bridged host sent an event that has no canonical hook (observe only).

    :param host: the host, e.g. ``claude-code``.
    :param name: the host's event name, e.g. ``Notification``.
    :param payload: the raw payload.
    :returns: nothing.
    """


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add subcommands to ``agenthooks`` (like llm's ``register_commands``).

    :param cli: the root :class:`typer.Typer` app; call ``cli.add_typer(...)`` or ``cli.command()``.
    :returns: nothing.
    """


@hookspec
def agent_commands(ctx: HookContext) -> object:
    """Declare slash commands for in-process agent hosts (pi, omp): ``/name args`` in the agent.

    :param ctx: the plugin's context; a command that needs it closes over it.
    :returns: a list of :class:`~agent_hooks_core.commands.AgentCommand` (or dicts with
        ``name``, ``description`` and ``run``); ``run(args: str)`` returns the text to show, or
        None. The first plugin to declare a name keeps it.
    """


@hookspec(firstresult=True)
def plugin_config_model() -> type[BaseModel] | None:
    """The pydantic model that validates this plugin's settings section.

    :returns: a pydantic model class. An invalid section is reported naming the plugin and the
        field, and the plugin is not loaded.
    """


@hookspec
def session_summary(ctx: HookContext) -> str | list[str] | None:
    """After ``agenthooks replay``: what this plugin has to say about the replayed session.

    :param ctx: the plugin's context (``ctx.session_id``, ``ctx.config``).
    :returns: a line, a list of lines, or None. A failure is reported as a line naming the plugin.
    """


@hookspec
def register_hosts() -> list[Host]:
    """Add agent hosts: one :class:`~agent_hooks_core.bridges.record.Host` record per host.

    Every place that lists hosts (``agenthooks <host>``, ``serve``, ``agenthooks hosts``,
    ``doctor``, ``install``/``uninstall``, the control plane) reads these records. The first-party
    hosts are default plugins implementing this hook, one module each; a distribution adds a host
    by naming its module in the ``agent_hooks.hosts`` entry-point group. Only those modules are
    asked (ordinary plugins are not loaded to list hosts), once per process, by
    :func:`agent_hooks_core.bridges.registry.hosts`.

    :returns: a list of records. A name or alias already taken is refused and reported by
        ``agenthooks doctor``; so is a module that fails to import or raises.
    """
    return []  # a specification: never called
