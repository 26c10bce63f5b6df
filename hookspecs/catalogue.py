"""The canonical hook catalogue as plain data.

One :class:`HookDef` per canonical hook: when it fires, how the answers of several plugins
combine (the structured rule the reducer executes), and the names the seed systems use for it.
This module imports nothing heavy: the runtime, the bridges and ``agenthooks hooks`` read it on
their hot paths. The pydantic models in :mod:`agent_hooks_core.hookspecs.models` and the
hookspecs in :mod:`agent_hooks_core.hookspecs.specs` are keyed by the same names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Category = Literal[
    "session", "message", "agent", "tool", "api", "loop", "permission", "subagent", "cache",
    "delivery", "index", "context", "resources",
]

#: The seed systems whose hook names map onto the catalogue: every (system, seed hook, canonical
#: hook, rule) row is in the package's ``data/seed-hooks.tsv`` (:func:`seed_hooks_tsv`), from the
#: seed hook systems described in docs/hosts/protocols.md and docs/design.md.
SYSTEMS = ("chibi", "omp", "pi-ext", "pi-agent")


@dataclass(frozen=True)
class HookDef:
    """One canonical hook and the rule that combines its answers.

    The rule fields are read by :mod:`agent_hooks_core.reducer`; ``rule`` is the human text.
    """

    name: str
    category: Category
    summary: str
    rule: str
    chain: tuple[str, ...] = ()
    """Fields each handler may replace; the next handler sees the new value (chain)."""
    stop_on: tuple[str, ...] = ()
    """A truthy value in any of these fields ends the call; that answer wins (short-circuit)."""
    concat: tuple[str, ...] = ()
    """String fields joined in handler order (concat)."""
    accumulate: tuple[tuple[str, str], ...] = ()
    """(answer field, result list) pairs: values from every handler, in order (accumulate)."""
    last_wins: tuple[str, ...] = ()
    """The last handler that sets the field wins (last-wins)."""
    first_result: bool = False
    """The first non-empty answer wins and ends the call (pluggy ``firstresult``)."""
    first_result_needs: tuple[str, ...] = ()
    """For first-result hooks: an answer counts only if one of these fields is truthy."""
    merge_patch: str | None = None
    """A field applied in order as an RFC 7386 JSON merge patch."""
    permission: bool = False
    """deny-wins: any ``denied: true`` denies, first reason kept."""
    deny_without_handler: bool = False
    """No handler registered: denied (fail-safe)."""
    fail_closed: bool = False
    """A handler error or invalid answer blocks (or denies) instead of being skipped."""
    tool_filter: bool = False
    """include-intersection + exclude-union over ``tools``."""
    fuel: bool = False
    """saturating-sum of ``fuel_delta`` and the fallback precedence of the agentic loop."""
    deep_copy: tuple[str, ...] = ()
    """Payload fields deep-copied before the first handler sees them."""
    computed: tuple[str, ...] = ()
    """Result fields only the runtime sets in the combined result; an answer setting one is invalid."""
    timeout: bool = True
    """False: no default timeout (the hook may prompt the user), like pi's tool_call."""
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Seed system -> that system's names for this hook."""

    @property
    def observe(self) -> bool:
        """True when answers are ignored and every handler runs."""
        return not (
            self.chain or self.stop_on or self.concat or self.accumulate or self.last_wins
            or self.first_result or self.merge_patch or self.permission or self.tool_filter or self.fuel
        )


def _h(name: str, category: Category, summary: str, rule: str, **kw: object) -> HookDef:
    return HookDef(name, category, summary, rule, **kw)  # type: ignore[arg-type]


_CANCEL = dict(stop_on=("cancel",))

HOOKS: tuple[HookDef, ...] = (
    # --- session lifecycle -------------------------------------------------------------
    _h("on_start", "session", "The agent process starts, before any processing.", "observe",
       aliases={"chibi": ("on_start",)}),
    _h("on_end", "session", "The agent process exits, after all processing.", "observe",
       aliases={"chibi": ("on_end",), "omp": ("session_shutdown",), "pi-ext": ("session_shutdown",),
                "pi-agent": ("session:shutdown",)}),
    _h("session_start", "session",
       "A session is loaded: at startup, after /reload, and after a switch or fork.", "observe",
       aliases={"omp": ("session_start",), "pi-ext": ("session_start",), "pi-agent": ("session:start",)}),
    _h("pre_session_switch", "session", "Before the session is switched (/new, /resume).",
       "short-circuit(cancel), else last-wins", **_CANCEL,
       aliases={"omp": ("session_before_switch",), "pi-ext": ("session_before_switch",),
                "pi-agent": ("session:before_switch",)}),
    _h("post_session_switch", "session", "After the session or context was switched.", "observe",
       aliases={"chibi": ("on_context_switch",), "omp": ("session_switch",), "pi-ext": ("session_switch",),
                "pi-agent": ("session:switch",)}),
    _h("pre_session_fork", "session", "Before the session is forked or branched (/fork, /branch).",
       "short-circuit(cancel), else last-wins(skip_conversation_restore)", stop_on=("cancel",),
       last_wins=("skip_conversation_restore",),
       aliases={"omp": ("session_before_branch",), "pi-ext": ("session_before_fork",),
                "pi-agent": ("session:before_branch",)}),
    _h("post_session_fork", "session", "After the session was forked or branched.", "observe",
       aliases={"omp": ("session_branch",), "pi-ext": ("session_fork",), "pi-agent": ("session:branch",)}),
    _h("pre_session_tree", "session", "Before navigating the session tree (/tree).",
       "short-circuit(cancel), else last-wins(summary, label)", stop_on=("cancel",),
       last_wins=("summary", "label"),
       aliases={"omp": ("session_before_tree",), "pi-ext": ("session_before_tree",)}),
    _h("post_session_tree", "session", "After navigating the session tree.", "observe",
       aliases={"omp": ("session_tree",), "pi-ext": ("session_tree",)}),
    _h("pre_clear", "context", "Before a context or session is cleared.", "short-circuit(cancel)",
       **_CANCEL, aliases={"chibi": ("pre_clear",), "pi-agent": ("session:before_clear",)}),
    _h("post_clear", "context", "After a context or session was cleared.", "observe",
       aliases={"chibi": ("post_clear",), "pi-agent": ("session:clear",)}),
    _h("pre_compact", "context", "Before a full compaction of the conversation (manual or automatic).",
       "short-circuit(cancel), else last-wins(compaction)", stop_on=("cancel",), last_wins=("compaction",),
       aliases={"chibi": ("pre_compact",), "omp": ("session_before_compact",),
                "pi-ext": ("session_before_compact",)}),
    _h("on_compacting", "context", "While compaction builds its prompt; may add context or replace it.",
       "last-wins", last_wins=("context", "prompt", "preserve_data"),
       aliases={"omp": ("session.compacting",)}),
    _h("post_compact", "context", "After a full compaction.", "observe",
       aliases={"chibi": ("post_compact",), "omp": ("session_compact",), "pi-ext": ("session_compact",)}),
    _h("pre_rolling_compact", "context", "Before rolling compaction archives old messages.", "observe",
       aliases={"chibi": ("pre_rolling_compact",)}),
    _h("post_rolling_compact", "context", "After rolling compaction archived old messages.", "observe",
       aliases={"chibi": ("post_rolling_compact",)}),
    _h("auto_compaction_start", "context", "Automatic compaction starts.", "observe",
       aliases={"omp": ("auto_compaction_start",)}),
    _h("auto_compaction_end", "context", "Automatic compaction ended.", "observe",
       aliases={"omp": ("auto_compaction_end",)}),
    _h("auto_retry_start", "agent", "An automatic retry of a failed model call starts.", "observe",
       aliases={"omp": ("auto_retry_start",)}),
    _h("auto_retry_end", "agent", "An automatic retry of a failed model call ended.", "observe",
       aliases={"omp": ("auto_retry_end",)}),
    # --- messages and the agent loop ---------------------------------------------------
    _h("pre_message", "message",
       "The user's prompt is submitted, before it goes to the model.",
       "chain(prompt, images) + short-circuit(handled, block)", chain=("prompt", "images"),
       stop_on=("handled", "block"),
       aliases={"chibi": ("pre_message",), "pi-ext": ("input",)}),
    _h("post_message", "message", "The model's response to a prompt was received.", "observe",
       aliases={"chibi": ("post_message",)}),
    _h("pre_system_prompt", "message", "Before the system prompt is built; may inject content.",
       "concat(inject)", concat=("inject",), aliases={"chibi": ("pre_system_prompt",)}),
    _h("post_system_prompt", "message", "After the system prompt is built; may inject content.",
       "concat(inject)", concat=("inject",), aliases={"chibi": ("post_system_prompt",)}),
    _h("before_agent_start", "agent",
       "After the prompt is expanded, before the agent loop starts; once per prompt.",
       "chain(system_prompt) + accumulate(messages)", chain=("system_prompt",),
       accumulate=(("message", "messages"), ("messages", "messages")),
       aliases={"omp": ("before_agent_start",), "pi-ext": ("before_agent_start",)}),
    _h("pre_llm_context", "message",
       "Before every model call: the last chance to change the messages the model sees.",
       "chain(messages), first handler gets a deep copy", chain=("messages",), deep_copy=("messages",),
       aliases={"omp": ("context",), "pi-ext": ("context",)}),
    _h("agent_start", "agent", "The agent loop begins (once per prompt).", "observe",
       aliases={"omp": ("agent_start",), "pi-ext": ("agent_start",), "pi-agent": ("agent_start",)}),
    _h("agent_end", "agent", "The agent loop finished: the reply is complete.", "observe",
       aliases={"omp": ("agent_end",), "pi-ext": ("agent_end",), "pi-agent": ("agent_end",)}),
    _h("turn_start", "agent", "A turn (one model call plus its tool calls) begins.", "observe",
       aliases={"omp": ("turn_start",), "pi-ext": ("turn_start",), "pi-agent": ("turn_start",)}),
    _h("turn_end", "agent", "A turn ended: the model answered and its tool calls completed.", "observe",
       aliases={"omp": ("turn_end",), "pi-ext": ("turn_end",), "pi-agent": ("turn_end",)}),
    _h("message_start", "message", "A message (user, assistant, tool result, custom) starts.", "observe",
       aliases={"pi-ext": ("message_start",)}),
    _h("message_update", "message", "A streamed assistant message received more tokens.", "observe",
       aliases={"pi-ext": ("message_update",)}),
    _h("message_end", "message", "A message is complete and persisted.", "observe",
       aliases={"pi-ext": ("message_end",)}),
    _h("model_select", "agent", "The model was changed.", "observe", aliases={"pi-ext": ("model_select",)}),
    _h("ttsr_triggered", "agent", "A time-traveling stream rule matched the model's output (omp).", "observe",
       aliases={"omp": ("ttsr_triggered",)}),
    _h("todo_reminder", "agent", "The agent is reminded of unfinished todos (omp).", "observe",
       aliases={"omp": ("todo_reminder",)}),
    # --- tools ---------------------------------------------------------------------------
    _h("pre_tool", "tool", "The model asked for a tool call; before the tool runs.",
       "chain(arguments) + short-circuit(block) + fail-closed", chain=("arguments",), stop_on=("block",),
       fail_closed=True, timeout=False,
       aliases={"chibi": ("pre_tool",), "omp": ("tool_call",), "pi-ext": ("tool_call",),
                "pi-agent": ("tool_call",)}),
    _h("post_tool", "tool", "A tool ran (successfully or not).", "observe", aliases={"chibi": ("post_tool",)}),
    _h("pre_tool_output", "tool",
       "A tool returned (also on error), before its output is cached or shown to the model.",
       "chain(output, content, details, is_error) + short-circuit(block)",
       chain=("output", "content", "details", "is_error"), stop_on=("block",),
       aliases={"chibi": ("pre_tool_output",), "omp": ("tool_result",), "pi-ext": ("tool_result",),
                "pi-agent": ("tool_result",)}),
    _h("post_tool_output", "tool", "After tool output processing and caching.", "observe",
       aliases={"chibi": ("post_tool_output",)}),
    _h("tool_execution_start", "tool", "A tool's execution starts.", "observe",
       aliases={"pi-ext": ("tool_execution_start",)}),
    _h("tool_execution_update", "tool", "A running tool reported progress.", "observe",
       aliases={"pi-ext": ("tool_execution_update",)}),
    _h("tool_execution_end", "tool", "A tool's execution ended.", "observe",
       aliases={"pi-ext": ("tool_execution_end",)}),
    _h("user_bash", "tool", "The user ran a shell command from the editor (`!cmd`).",
       "first-result(operations or result)", first_result=True, first_result_needs=("operations", "result"),
       aliases={"pi-ext": ("user_bash",)}),
    # --- API request -------------------------------------------------------------------
    _h("pre_api_tools", "api", "Before the tool list is sent to the model API; may filter tools.",
       "include-intersection + exclude-union", tool_filter=True, computed=("tools",),
       aliases={"chibi": ("pre_api_tools",)}),
    _h("pre_api_request", "api", "After tool filtering, before the HTTP request; may patch the body.",
       "merge-patch(request_body) in order", merge_patch="request_body",
       aliases={"chibi": ("pre_api_request",)}),
    # --- agentic loop ------------------------------------------------------------------
    _h("pre_agentic_loop", "loop", "Before each agentic loop iteration; may override fallback and fuel.",
       "last-wins(fallback, fuel)", last_wins=("fallback", "fuel"), fuel=True, computed=("fallback_source",),
       aliases={"chibi": ("pre_agentic_loop",)}),
    _h("post_tool_batch", "loop", "After a batch of tool calls; may override fallback and adjust fuel.",
       "last-wins(fallback) + saturating-sum(fuel_delta)", last_wins=("fallback",), fuel=True,
       computed=("fuel", "fallback_source"), aliases={"chibi": ("post_tool_batch",)}),
    # --- permissions -------------------------------------------------------------------
    _h("pre_file_read", "permission", "Before a file is read (outside the allowed paths).",
       "deny-wins + fail-safe deny when no handler + fail-closed", permission=True, stop_on=("denied",),
       deny_without_handler=True, fail_closed=True, aliases={"chibi": ("pre_file_read",)}),
    _h("pre_file_write", "permission", "Before a file is written or edited.",
       "deny-wins + fail-safe deny when no handler + fail-closed", permission=True, stop_on=("denied",),
       deny_without_handler=True, fail_closed=True, aliases={"chibi": ("pre_file_write",)}),
    _h("pre_shell_exec", "permission", "Before a shell command runs.",
       "deny-wins + fail-safe deny when no handler + fail-closed", permission=True, stop_on=("denied",),
       deny_without_handler=True, fail_closed=True, aliases={"chibi": ("pre_shell_exec",)}),
    _h("pre_fetch_url", "permission",
       "Before a sensitive URL is fetched or a network tool without a URL runs.",
       "deny-wins + fail-closed", permission=True, stop_on=("denied",), fail_closed=True,
       aliases={"chibi": ("pre_fetch_url",)}),
    # --- sub-agents, caching, delivery ---------------------------------------------------
    _h("pre_spawn_agent", "subagent", "Before a sub-agent model call; may answer it or block it.",
       "first-result(response or block)", first_result=True, first_result_needs=("response", "block"),
       aliases={"chibi": ("pre_spawn_agent",)}),
    _h("post_spawn_agent", "subagent", "A sub-agent returned.", "observe",
       aliases={"chibi": ("post_spawn_agent",)}),
    _h("pre_cache_output", "cache", "Before a large tool output is cached; may supply the summary.",
       "first-result(summary)", first_result=True, first_result_needs=("summary",),
       aliases={"chibi": ("pre_cache_output",)}),
    _h("post_cache_output", "cache", "A large tool output was cached.", "observe",
       aliases={"chibi": ("post_cache_output",)}),
    _h("pre_send_message", "delivery",
       "Before an inter-context message is delivered; a plugin may claim the delivery.",
       "first-result(delivered=true claims)", first_result=True, first_result_needs=("delivered",),
       aliases={"chibi": ("pre_send_message",)}),
    _h("post_send_message", "delivery", "An inter-context message was delivered.", "observe",
       aliases={"chibi": ("post_send_message",)}),
    _h("post_index_file", "index", "The code indexer indexed a file.", "observe",
       aliases={"chibi": ("post_index_file",)}),
    _h("pre_vfs_write", "index", "Before a virtual-filesystem write by a tool (advisory, cannot block).",
       "observe (advisory)", aliases={"chibi": ("pre_vfs_write",)}),
    _h("post_vfs_write", "index", "After a virtual-filesystem write by a tool.", "observe",
       aliases={"chibi": ("post_vfs_write",)}),
    _h("resources_discover", "resources",
       "At startup and /reload; plugins contribute skill, prompt and theme paths.",
       "accumulate(skill_paths, prompt_paths, theme_paths)",
       accumulate=(("skill_paths", "skill_paths"), ("prompt_paths", "prompt_paths"),
                   ("theme_paths", "theme_paths")),
       aliases={"pi-ext": ("resources_discover",)}),
)

BY_NAME: dict[str, HookDef] = {h.name: h for h in HOOKS}

#: The runtime's own hooks: not agent lifecycle moments but services of the runtime.
RUNTIME_HOOKS = ("hook_called", "host_event", "register_commands", "agent_commands", "plugin_config_model",
                 "session_summary")


def seed_hooks_tsv() -> Path:
    """The seed-hook mapping shipped with the package: system, seed_hook, canonical_hook, rule."""
    from importlib.resources import files

    # files(): hookspecs/ is not beside core/data on disk in a checkout (see the package docstring)
    return Path(str(files("agent_hooks_core") / "data" / "seed-hooks.tsv"))


def get(name: str) -> HookDef:
    """The hook named ``name``; :class:`KeyError` with a suggestion otherwise."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(unknown_hook_message(name)) from None


def unknown_hook_message(name: str) -> str:
    """One line: what is wrong with ``name`` and the canonical hook meant, when one is close."""
    import difflib

    idx = alias_index()
    canonical = idx.get(name)
    if canonical is not None and name not in BY_NAME:
        systems = sorted({key.partition(":")[0] for key, value in idx.items()
                          if ":" in key and key.partition(":")[2] == name and value == canonical})
        return (f"unknown hook {name!r}: that is the {'/'.join(systems)} name of {canonical!r}; "
                f"use {canonical!r} (or fire it with dialect=)")
    names = [*BY_NAME, *(n for n in idx if ":" not in n)]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean {idx.get(close[0], close[0])!r}?)" if close else ""
    return f"unknown hook {name!r}{hint}; `agenthooks hooks` lists them"


_ALIASES: dict[str, str] | None = None


def alias_index() -> dict[str, str]:
    """Every seed name (``system:name`` and bare ``name``) -> canonical hook."""
    global _ALIASES
    if _ALIASES is None:
        idx: dict[str, str] = {}
        for h in HOOKS:
            for system, names in h.aliases.items():
                for n in names:
                    idx[f"{system}:{n}"] = h.name
                    idx.setdefault(n, h.name)
        _ALIASES = idx
    return _ALIASES


def resolve(name: str, system: str | None = None) -> HookDef:
    """A canonical name, or a seed name (optionally of ``system``), -> its :class:`HookDef`."""
    if name in BY_NAME:
        return BY_NAME[name]
    idx = alias_index()
    key = f"{system}:{name}" if system else name
    if key in idx:
        return BY_NAME[idx[key]]
    raise KeyError(unknown_hook_message(name))
