"""Pydantic v2 models of every event payload and every result, keyed by canonical hook name.

Events are the *superset* of the seed systems' payloads, in snake_case, and keep unknown extra
fields (hosts add fields over time). Results forbid unknown fields: a plugin that answers
``{"blocked": true}`` instead of ``{"block": true}`` gets an error, not a silent allow.

The runtime does not import this module on its hot path; it checks payloads and answers against
the table generated from these models (``_fields.py``). Use the models for typing, JSON Schema
(``agenthooks hooks HOOK --schema``) and ``Outcome.result``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: a JSON object as a host sends it; its values are whatever the host put there
Json = dict[str, object]


class EventModel(BaseModel):
    """Base of every event payload: extra fields are kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ResultModel(BaseModel):
    """Base of every result: unknown fields are an error."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CancelResult(ResultModel):
    cancel: bool | None = Field(None, description="true cancels the action; ends the call")


# --- session lifecycle ------------------------------------------------------------------


class OnStartEvent(EventModel):
    chibi_home: str | None = Field(None, description="the agent's home directory")
    project_root: str | None = Field(None, description="project root directory")
    tool_count: int | None = Field(None, description="number of loaded tools")
    current_context: str | None = Field(None, description="active context name (older chibi)")
    verbose: bool | None = Field(None, description="verbose mode (older chibi)")


class OnEndEvent(EventModel):
    reason: str | None = Field(None, description="why the process ends, when the host says")


class SessionStartEvent(EventModel):
    reason: str | None = Field(None, description="startup, reload, new, resume or fork")
    session_file: str | None = Field(None, description="current session file; null when ephemeral")
    previous_session_file: str | None = Field(None, description="the session file before, if any")
    entries: list[object] | None = Field(None, description="session entries")


class PreSessionSwitchEvent(EventModel):
    reason: str | None = Field(None, description="new or resume")
    target_session_file: str | None = Field(None, description="the session to resume")
    session_file: str | None = Field(None, description="current session file")
    entries: list[object] | None = Field(None, description="session entries")


class PreSessionSwitchResult(CancelResult):
    pass


class PostSessionSwitchEvent(EventModel):
    reason: str | None = Field(None, description="new or resume")
    session_file: str | None = Field(None, description="current session file")
    previous_session_file: str | None = Field(None, description="the session switched away from")
    from_context: str | None = Field(None, description="chibi: the context switched away from")
    to_context: str | None = Field(None, description="chibi: the context switched to")
    is_transient: bool | None = Field(None, description="chibi: the new context is transient")


class PreSessionForkEvent(EventModel):
    entry_id: str | None = Field(None, description="the entry being forked from (pi)")
    target_turn_index: int | None = Field(None, description="the turn being branched from (pi-agent)")
    session_file: str | None = Field(None, description="current session file")
    entries: list[object] | None = Field(None, description="session entries")


class PreSessionForkResult(CancelResult):
    skip_conversation_restore: bool | None = Field(
        None, description="fork without restoring the conversation (last wins)"
    )


class PostSessionForkEvent(EventModel):
    entry_id: str | None = Field(None, description="the entry forked from")
    target_turn_index: int | None = Field(None, description="the turn branched from")
    session_file: str | None = Field(None, description="the new session file")
    previous_session_file: str | None = Field(None, description="the session forked from")


class PreSessionTreeEvent(EventModel):
    preparation: Json | None = Field(None, description="the tree navigation being prepared")


class PreSessionTreeResult(CancelResult):
    summary: object = Field(None, description="custom branch summary: a string or {summary, details} (last wins)")
    label: str | None = Field(None, description="label for the branch (last wins)")


class PostSessionTreeEvent(EventModel):
    new_leaf_id: str | None = Field(None, description="the entry navigated to")
    old_leaf_id: str | None = Field(None, description="the entry navigated from")


class ContextCountEvent(EventModel):
    context_name: str | None = Field(None, description="the context concerned")
    message_count: int | None = Field(None, description="number of messages before the action")
    summary: str | None = Field(None, description="conversation summary")


class PreClearEvent(ContextCountEvent):
    pass


class PreClearResult(CancelResult):
    pass


class PostClearEvent(ContextCountEvent):
    pass


class PreCompactEvent(ContextCountEvent):
    preparation: Json | None = Field(None, description="pi: the compaction being prepared")
    branch_entries: list[object] | None = Field(None, description="pi: entries of the current branch")
    custom_instructions: str | None = Field(None, description="instructions given with /compact")
    trigger: str | None = Field(None, description="manual or auto")


class PreCompactResult(CancelResult):
    compaction: Json | None = Field(
        None, description="a custom compaction {summary, first_kept_entry_id, tokens_before} (last wins)"
    )


class OnCompactingEvent(EventModel):
    messages: list[object] | None = Field(None, description="messages being compacted")


class OnCompactingResult(ResultModel):
    context: list[str] | None = Field(None, description="extra context lines for the summary (last wins)")
    prompt: str | None = Field(None, description="replacement compaction prompt (last wins)")
    preserve_data: Json | None = Field(None, description="data to keep across compaction (last wins)")


class PostCompactEvent(ContextCountEvent):
    compaction_entry: Json | None = Field(None, description="pi: the compaction entry written")
    from_hook: bool | None = Field(None, description="pi: the compaction came from a hook")
    trigger: str | None = Field(None, description="manual or auto")
    compact_summary: str | None = Field(None, description="the summary produced")


class PreRollingCompactEvent(ContextCountEvent):
    non_system_count: int | None = Field(None, description="non-system message count")


class PostRollingCompactEvent(ContextCountEvent):
    messages_archived: int | None = Field(None, description="number of messages archived")


class AutoCompactionStartEvent(EventModel):
    reason: str | None = Field(None, description="why compaction started (threshold, overflow)")


class AutoCompactionEndEvent(EventModel):
    result: object = Field(None, description="the compaction result, if any")
    aborted: bool | None = Field(None, description="compaction was aborted")


class AutoRetryStartEvent(EventModel):
    attempt: int | None = Field(None, description="1-based attempt number")
    max_attempts: int | None = Field(None, description="attempts allowed")
    delay_ms: int | None = Field(None, description="delay before the retry")
    error_message: str | None = Field(None, description="the error being retried")


class AutoRetryEndEvent(EventModel):
    success: bool | None = Field(None, description="the retry succeeded")
    attempt: int | None = Field(None, description="attempts made")
    final_error: str | None = Field(None, description="the last error, on failure")


# --- messages and the agent loop ---------------------------------------------------------


class PreMessageEvent(EventModel):
    prompt: str = Field(description="the user's prompt (pi: `text`), as changed by earlier handlers")
    images: list[object] | None = Field(None, description="attached images (pi)")
    source: str | None = Field(None, description="interactive, rpc or extension (pi)")
    context_name: str | None = Field(None, description="active context name (chibi)")
    summary: str | None = Field(None, description="conversation summary (chibi)")


class PreMessageResult(ResultModel):
    prompt: str | None = Field(None, description="replacement prompt (chained)")
    images: list[object] | None = Field(None, description="replacement images (chained)")
    handled: bool | None = Field(None, description="the plugin handled the input: no model call; ends the call")
    block: bool | None = Field(None, description="reject the prompt; ends the call")
    reason: str | None = Field(None, description="why it was blocked or handled")
    message: str | None = Field(None, description="message shown when blocked")


class PostMessageEvent(EventModel):
    prompt: str | None = Field(None, description="the original prompt")
    response: str | None = Field(None, description="the model's response")
    context_name: str | None = Field(None, description="active context name")


class SystemPromptEvent(EventModel):
    context_name: str | None = Field(None, description="active context name")
    summary: str | None = Field(None, description="conversation summary")
    flock_goals: list[object] | None = Field(None, description="array of {flock, goals} objects (chibi)")
    goals: str | None = Field(None, description="current goals (older chibi)")
    todos: str | None = Field(None, description="current todos (older chibi)")


class InjectResult(ResultModel):
    inject: str | None = Field(None, description="content added to the system prompt (concatenated)")


class PreSystemPromptEvent(SystemPromptEvent):
    pass


class PreSystemPromptResult(InjectResult):
    pass


class PostSystemPromptEvent(SystemPromptEvent):
    pass


class PostSystemPromptResult(InjectResult):
    pass


class BeforeAgentStartEvent(EventModel):
    prompt: str | None = Field(None, description="the expanded user prompt")
    images: list[object] | None = Field(None, description="attached images")
    system_prompt: str | None = Field(None, description="the system prompt, as changed by earlier handlers")


class BeforeAgentStartResult(ResultModel):
    system_prompt: str | None = Field(None, description="replacement system prompt (chained)")
    message: Json | None = Field(
        None, description="a custom message {custom_type, content, display, details} to inject (accumulated)"
    )
    messages: list[Json] | None = Field(None, description="custom messages to inject (accumulated)")


class PreLlmContextEvent(EventModel):
    messages: list[object] = Field(description="the messages the model will see (a deep copy)")


class PreLlmContextResult(ResultModel):
    messages: list[object] | None = Field(None, description="replacement messages (chained)")


class AgentStartEvent(EventModel):
    pass


class AgentEndEvent(EventModel):
    messages: list[object] | None = Field(None, description="the messages produced by this run")
    last_assistant_message: str | None = Field(None, description="the final assistant text, when known")


class TurnStartEvent(EventModel):
    turn_index: int | None = Field(None, description="0-based index of the turn in this run")
    timestamp: float | None = Field(None, description="when the turn started")


class TurnEndEvent(EventModel):
    turn_index: int | None = Field(None, description="0-based index of the turn")
    message: object = Field(None, description="the assistant's response message")
    tool_results: list[object] | None = Field(None, description="tool results of this turn")


class MessageEvent(EventModel):
    message: object = Field(None, description="the message (user, assistant, tool result or custom)")


class MessageStartEvent(MessageEvent):
    pass


class MessageUpdateEvent(MessageEvent):
    assistant_message_event: object = Field(None, description="the streaming token event")


class MessageEndEvent(MessageEvent):
    pass


class ModelSelectEvent(EventModel):
    model: object = Field(None, description="the new model")
    previous_model: object = Field(None, description="the model before, if any")
    source: str | None = Field(None, description="set, cycle or restore")


class TtsrTriggeredEvent(EventModel):
    rules: list[object] | None = Field(None, description="the rules that matched")


class TodoReminderEvent(EventModel):
    todos: list[object] | None = Field(None, description="the unfinished todos")
    attempt: int | None = Field(None, description="reminder number")


# --- tools ------------------------------------------------------------------------------


class PreToolEvent(EventModel):
    tool_name: str = Field(description="the tool about to run")
    arguments: Json = Field(default_factory=dict, description="its arguments, as changed by earlier handlers")
    tool_call_id: str | None = Field(None, description="the call's id, when the host has one")


class PreToolResult(ResultModel):
    arguments: Json | None = Field(None, description="replacement arguments (chained)")
    block: bool | None = Field(None, description="true blocks the call; ends the call")
    message: str | None = Field(None, description="why it was blocked (chibi); mirrored into `reason`")
    reason: str | None = Field(None, description="why it was blocked (pi); mirrored into `message`")


class PostToolEvent(EventModel):
    tool_name: str = Field(description="the tool that ran")
    arguments: Json = Field(default_factory=dict, description="its arguments")
    result: object = Field(None, description="the tool's output")
    cached: bool | None = Field(None, description="the output was cached because of its size")
    is_error: bool | None = Field(None, description="the tool failed")
    tool_call_id: str | None = Field(None, description="the call's id")


class PreToolOutputEvent(EventModel):
    tool_name: str = Field(description="the tool that ran")
    arguments: Json = Field(default_factory=dict, description="its arguments")
    output: str | None = Field(None, description="raw text output (chibi)")
    content: list[object] | None = Field(None, description="content blocks [{type, text|data}] (pi)")
    details: object = Field(None, description="tool-specific details (pi)")
    is_error: bool = Field(False, description="the tool failed; the output is the error")
    tool_call_id: str | None = Field(None, description="the call's id")


class PreToolOutputResult(ResultModel):
    output: str | None = Field(None, description="replacement text output (chained)")
    content: list[object] | None = Field(None, description="replacement content blocks (chained)")
    details: object = Field(None, description="replacement details (chained)")
    is_error: bool | None = Field(None, description="replacement error flag (chained)")
    block: bool | None = Field(None, description="replace the output by `message` entirely; ends the call")
    message: str | None = Field(None, description="what the model sees instead, when blocked")


class PostToolOutputEvent(EventModel):
    tool_name: str | None = Field(None, description="the tool that ran")
    arguments: Json | None = Field(None, description="its arguments")
    output: str | None = Field(None, description="output after pre_tool_output changes")
    final_output: str | None = Field(None, description="what the model will see (may be truncated)")
    cached: bool | None = Field(None, description="the output was cached")


class ToolExecutionStartEvent(EventModel):
    tool_call_id: str | None = Field(None, description="the call's id")
    tool_name: str | None = Field(None, description="the tool")
    args: Json | None = Field(None, description="its arguments")


class ToolExecutionUpdateEvent(ToolExecutionStartEvent):
    partial_result: object = Field(None, description="streaming progress")


class ToolExecutionEndEvent(EventModel):
    tool_call_id: str | None = Field(None, description="the call's id")
    tool_name: str | None = Field(None, description="the tool")
    result: object = Field(None, description="the tool's result")
    is_error: bool | None = Field(None, description="the tool failed")


class UserBashEvent(EventModel):
    command: str = Field(description="the shell command typed by the user")
    exclude_from_context: bool | None = Field(None, description="true for `!!`: keep the output out of context")
    cwd: str | None = Field(None, description="working directory")


class UserBashResult(ResultModel):
    operations: Json | None = Field(None, description="custom execution operations (first result wins)")
    result: Json | None = Field(
        None, description="a full replacement {output, exit_code, cancelled, truncated} (first result wins)"
    )


# --- API request ------------------------------------------------------------------------


class PreApiToolsEvent(EventModel):
    tools: list[Json] = Field(description="the tools offered to the model: [{name, type}]")
    context_name: str | None = Field(None, description="active context name")
    fuel_remaining: int | None = Field(None, description="remaining tool-call budget")
    fuel_total: int | None = Field(None, description="total tool-call budget")
    recursion_depth: int | None = Field(None, description="sub-agent depth (older chibi)")


class PreApiToolsResult(ResultModel):
    include: list[str] | None = Field(None, description="allowlist: only these remain (intersected)")
    exclude: list[str] | None = Field(None, description="tool names to remove (unioned)")
    tools: list[Json] | None = Field(None, description="combined result only: the filtered tool list")


class PreApiRequestEvent(EventModel):
    request_body: Json = Field(description="the full request body (model, messages, tools, ...)")
    context_name: str | None = Field(None, description="active context name")
    fuel_remaining: int | None = Field(None, description="remaining tool-call budget")
    fuel_total: int | None = Field(None, description="total tool-call budget")
    recursion_depth: int | None = Field(None, description="sub-agent depth (older chibi)")


class PreApiRequestResult(ResultModel):
    request_body: Json | None = Field(
        None,
        description="answer: an RFC 7386 merge patch; combined result: the body with every patch applied",
    )


# --- agentic loop -----------------------------------------------------------------------

Fallback = Literal["call_agent", "call_user"]


class LoopEvent(EventModel):
    context_name: str | None = Field(None, description="active context name")
    fuel_remaining: int | None = Field(None, description="remaining tool-call budget")
    fuel_total: int | None = Field(None, description="total tool-call budget")
    current_fallback: Fallback | None = Field(None, description="the configured fallback target")


class PreAgenticLoopEvent(LoopEvent):
    message: str | None = Field(None, description="the user message for this loop")


class PreAgenticLoopResult(ResultModel):
    fallback: Fallback | None = Field(None, description="override the fallback (last wins)")
    fuel: int | None = Field(None, ge=0, description="set the remaining fuel to this (last wins)")
    fallback_source: str | None = Field(None, description="combined result only: which level set `fallback`")


class PostToolBatchEvent(LoopEvent):
    tool_calls: list[Json] = Field(default_factory=list, description="[{name, arguments}] of the tools that ran")


class PostToolBatchResult(ResultModel):
    fallback: Fallback | None = Field(None, description="override the fallback (last wins)")
    fuel_delta: int | None = Field(None, description="adjust fuel by this amount (summed, saturating at 0)")
    fuel: int | None = Field(None, description="combined result only: fuel_remaining + sum of deltas, >= 0")
    fallback_source: str | None = Field(
        None, description="combined result only: post_tool_batch, pre_agentic_loop or default"
    )


# --- permissions ------------------------------------------------------------------------


class PermissionResult(ResultModel):
    denied: bool | None = Field(None, description="true denies (any denial wins; ends the call)")
    reason: str | None = Field(None, description="why; the first denial's reason is kept")


class PreFileReadEvent(EventModel):
    path: str = Field(description="absolute path being read")
    tool_name: str | None = Field(None, description="the reading tool")


class PreFileReadResult(PermissionResult):
    pass


class PreFileWriteEvent(EventModel):
    path: str = Field(description="absolute path being written")
    tool_name: str | None = Field(None, description="the writing tool")
    content: str | None = Field(None, description="new content (null for edits)")


class PreFileWriteResult(PermissionResult):
    pass


class PreShellExecEvent(EventModel):
    command: str = Field(description="the shell command")
    tool_name: str | None = Field(None, description="the shell tool")


class PreShellExecResult(PermissionResult):
    pass


class PreFetchUrlEvent(EventModel):
    tool_name: str | None = Field(None, description="the tool making the network call")
    url: str | None = Field(None, description="the URL (absent when safety is no_url)")
    safety: str | None = Field(None, description="sensitive, or no_url for network tools without a URL")
    reason: str | None = Field(None, description="the host's classification reason")
    summary: str | None = Field(None, description="human-readable summary (no_url only)")


class PreFetchUrlResult(PermissionResult):
    pass


# --- sub-agents, caching, delivery, index ------------------------------------------------


class PreSpawnAgentEvent(EventModel):
    system_prompt: str | None = Field(None, description="system prompt for the sub-agent")
    input: str | None = Field(None, description="input content to process")
    model: str | None = Field(None, description="model identifier")
    temperature: float | None = Field(None, description="sampling temperature")
    max_tokens: int | None = Field(None, description="max tokens for the response")


class PreSpawnAgentResult(ResultModel):
    response: str | None = Field(None, description="a response to use instead of the model call (first wins)")
    block: bool | None = Field(None, description="block the sub-agent call (first wins)")
    message: str | None = Field(None, description="why it was blocked")


class PostSpawnAgentEvent(EventModel):
    system_prompt: str | None = Field(None, description="system prompt used")
    input: str | None = Field(None, description="input content")
    model: str | None = Field(None, description="model identifier")
    response: str | None = Field(None, description="the sub-agent's response")


class PreCacheOutputEvent(EventModel):
    tool_name: str | None = Field(None, description="tool whose output is cached")
    arguments: Json | None = Field(None, description="its arguments")
    content: str | None = Field(None, description="the full output")
    char_count: int | None = Field(None, description="characters in the output")
    line_count: int | None = Field(None, description="lines in the output")


class PreCacheOutputResult(ResultModel):
    summary: str | None = Field(None, description="the summary shown instead of the content (first wins)")


class PostCacheOutputEvent(EventModel):
    tool_name: str | None = Field(None, description="tool whose output was cached")
    cache_id: str | None = Field(None, description="the cache entry's name")
    output_size: int | None = Field(None, description="size of the cached output in bytes")
    preview_size: int | None = Field(None, description="size of the preview shown")
    char_count: int | None = Field(None, description="characters (older chibi)")
    token_estimate: int | None = Field(None, description="estimated tokens (older chibi)")
    line_count: int | None = Field(None, description="lines (older chibi)")


class PreSendMessageEvent(EventModel):
    from_: str | None = Field(None, alias="from", description="sending context")
    to: str | None = Field(None, description="recipient context")
    content: str | None = Field(None, description="the message")
    context_name: str | None = Field(None, description="active context name")


class PreSendMessageResult(ResultModel):
    delivered: bool | None = Field(None, description="true claims the delivery (first claim wins)")
    via: str | None = Field(None, description="delivery mechanism, for logs")


class PostSendMessageEvent(PreSendMessageEvent):
    delivery_result: str | None = Field(None, description="delivery outcome")


class PostIndexFileEvent(EventModel):
    path: str | None = Field(None, description="relative path of the indexed file")
    lang: str | None = Field(None, description="detected language")
    symbol_count: int | None = Field(None, description="symbols indexed")
    ref_count: int | None = Field(None, description="references indexed")


class PreVfsWriteEvent(EventModel):
    tool_name: str | None = Field(None, description="write_file or file_edit")
    path: str | None = Field(None, description="VFS path being written")
    content: str | None = Field(None, description="new content (null for edits)")
    caller: str | None = Field(None, description="the context writing")


class PostVfsWriteEvent(EventModel):
    tool_name: str | None = Field(None, description="write_file or file_edit")
    path: str | None = Field(None, description="VFS path written")
    caller: str | None = Field(None, description="the context that wrote")


class StopGateEvent(EventModel):
    last_assistant_message: str | None = Field(None, description="the agent's last reply, when the host gives it")
    subagent: bool | None = Field(None, description="true when a sub-agent (not the main agent) is stopping")
    agent_type: str | None = Field(None, description="the sub-agent's type, when the host gives it")
    stop_hook_active: bool | None = Field(
        None, description="the host says this stop follows a continuation a stop hook asked for")
    continuations: int | None = Field(
        None, ge=0, description="set by the runtime: continuations in a row so far in this session")
    limit: int | None = Field(
        None, ge=0, description="set by the runtime: the user's stop_gate_limit (continuations in a row)")


class StopGateResult(ResultModel):
    continue_: bool | None = Field(
        None, alias="continue", description="true: the agent is not done; keep working (the first one wins)")
    reason: str | None = Field(None, description="what the agent is told to do before it stops again")
    limit_reached: bool | None = Field(
        None, description="computed: a continue was overruled because the session reached its limit")


class PermissionRequestEvent(EventModel):
    tool_name: str = Field(..., description="the tool the host asks permission for")
    arguments: Json = Field(default_factory=dict, description="the tool's input")
    permission_suggestions: list[object] | None = Field(
        None, description="the host's suggested permission rules, when it gives them")
    tool_call_id: str | None = Field(None, description="the host's id for the call, when it gives one")


class PermissionRequestResult(ResultModel):
    decision: Literal["allow", "deny", "ask"] | None = Field(
        None, description="deny wins, then ask (the host prompts), then allow (approvers only); null: no opinion")
    reason: str | None = Field(None, description="why; shown with a deny (first deny's reason kept)")
    arguments: Json | None = Field(None, description="updated tool input (chain); used with an allow")


class ResourcesDiscoverEvent(EventModel):
    cwd: str | None = Field(None, description="working directory")
    reason: str | None = Field(None, description="startup or reload")


class ResourcesDiscoverResult(ResultModel):
    skill_paths: list[str] | None = Field(None, description="skill files (accumulated)")
    prompt_paths: list[str] | None = Field(None, description="prompt templates (accumulated)")
    theme_paths: list[str] | None = Field(None, description="themes (accumulated)")


# --- the index ---------------------------------------------------------------------------


def _collect() -> tuple[dict[str, type[EventModel]], dict[str, type[ResultModel] | None]]:
    """The models each hook's declaration names (``event=``, ``result=`` on its hookspec)."""
    from .catalogue import HOOKS

    ns = globals()
    events: dict[str, type[EventModel]] = {}
    results: dict[str, type[ResultModel] | None] = {}
    for h in HOOKS:
        for name in (h.event_model, h.result_model):
            if name is not None and name not in ns:
                raise TypeError(f"hook {h.name!r} names the model {name!r}, which models.py does not define")
        events[h.name] = ns[h.event_model]
        results[h.name] = ns[h.result_model] if h.result_model else None
    return events, results


#: canonical hook -> its event model
EVENTS: dict[str, type[EventModel]]
#: canonical hook -> its result model (None for observe hooks)
RESULTS: dict[str, type[ResultModel] | None]
EVENTS, RESULTS = _collect()
