"""agent-hooks-guard: a policy plugin for coding agents.

Blocks destructive shell commands, protects secrets and repository internals from writes (and
secret files from reads), denies URLs by deny/allow lists, hides dangerous tools from
sub-agents and redacts secrets from tool output. Settings: ``[plugins.guard]`` (see
:class:`agent_hooks_guard.config.GuardConfig`); ``mode = "observe"`` only records what it would
have blocked. With a UI the guard asks (``ctx.ui.confirm``) instead of blocking.

Importing this module is cheap: the policy (regexes, shlex) loads on the first hook call and
pydantic only when settings need validating. Its event handlers are declared ``cheap`` (called in
the main thread under the SIGALRM watchdog, no worker hand-off): their work is bounded by the work
budget (``work.py``: counted units, not the clock), their file system access is stat/readlink, and
the rare blocking calls (``git rev-parse`` for branch rules, a confirmation asked of the user) are
interrupted at the handler's deadline like any other.
"""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any

from agent_hooks_core import HookContext, HookEvent, cheap, hookimpl

if TYPE_CHECKING:
    from .policy import Check, Policy

__all__ = ["plugin_config_model", "pre_api_tools", "pre_fetch_url", "pre_file_read", "pre_file_write",
           "pre_shell_exec", "pre_tool", "pre_tool_output", "register_commands"]

#: how long a "yes" from the user covers the same command, path or URL (a host may fire pre_tool
#: and then pre_shell_exec for one call: the user is asked once)
APPROVAL_SECONDS = 120.0
_approvals: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], float]] = weakref.WeakKeyDictionary()


def _policy(ctx: Any) -> Policy:
    from .policy import policy_for

    return policy_for(ctx.config, ctx.cwd)


def _branch(ctx: Any) -> Any:
    def current() -> str | None:
        res = ctx.exec("git", ["rev-parse", "--abbrev-ref", "HEAD"], timeout=5)
        name = res.stdout.strip()
        return name if res.code == 0 and name and name != "HEAD" else None

    return current


def _note(ctx: Any, event: Any, kind: str, text: str, subject: str) -> None:
    """Observe mode: record what would have happened, where the session and the audit see it."""
    notes = event.get("audit_notes")
    if not isinstance(notes, list):
        notes = event["audit_notes"] = []
    notes.append({"plugin": ctx.plugin, "kind": kind, "text": text})
    ctx.append_entry("agent-hooks-guard", {"hook": event.hook, "mode": "observe", "would": kind,
                                           "reason": text, "subject": subject})
    ctx.ui.notify(f"guard (observe mode) {kind.replace('_', ' ')}: {text}", "warning")


def _decide(ctx: Any, event: Any, pol: Policy, check: Check, field: str) -> dict[str, Any] | None:
    if not check.findings:
        return None
    reason = check.reason
    if pol.mode == "observe":
        _note(ctx, event, "would_block", reason, check.subject)
        return None
    if pol.ask and ctx.has_ui:
        key = (check.kind, check.subject)
        approved = _approvals.setdefault(ctx.runtime, {})
        if approved.get(key, 0.0) > time.monotonic():
            return None
        if ctx.ui.confirm("agent-hooks guard", f"{reason}\n\n  {check.subject}\n\nAllow it?"):
            approved[key] = time.monotonic() + APPROVAL_SECONDS
            return None
        reason = f"{reason} (the user said no)"
    return {field: True, "reason": reason}


@hookimpl
@cheap
def pre_tool(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    pol = _policy(ctx)
    return _decide(ctx, event, pol, pol.check_tool(event.tool_name, event.arguments or {}, _branch(ctx)), "block")


@hookimpl
@cheap
def pre_shell_exec(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    pol = _policy(ctx)
    return _decide(ctx, event, pol, pol.check_command(event.command, _branch(ctx)), "denied")


@hookimpl
@cheap
def pre_file_read(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    pol = _policy(ctx)
    return _decide(ctx, event, pol, pol.check_path(event.path, write=False), "denied")


@hookimpl
@cheap
def pre_file_write(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    pol = _policy(ctx)
    return _decide(ctx, event, pol, pol.check_path(event.path, write=True), "denied")


@hookimpl
@cheap
def pre_fetch_url(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    if not event.url:
        return None  # a network tool without a URL: nothing to judge, the host decides
    pol = _policy(ctx)
    return _decide(ctx, event, pol, pol.check_url(event.url), "denied")


@hookimpl
@cheap
def pre_api_tools(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    pol = _policy(ctx)
    names = pol.excluded_tools(event.tools or [], event.recursion_depth)
    if not names:
        return None
    if pol.mode == "observe":
        _note(ctx, event, "would_exclude", f"tools {', '.join(names)}", ", ".join(names))
        return None
    return {"exclude": names}


@hookimpl
@cheap
def pre_tool_output(event: HookEvent, ctx: HookContext) -> dict[str, Any] | None:
    pol = _policy(ctx)
    if pol.redactor is None:
        return None
    changes: dict[str, Any] = {}
    fired: list[str] = []
    if isinstance(event.output, str):
        text, names = pol.redact(event.output)
        if names:
            changes["output"], fired = text, names
    if isinstance(event.content, list):
        blocks, changed = [], False
        for block in event.content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                text, names = pol.redact(block["text"])
                if names:
                    block, changed = {**block, "text": text}, True
                    fired += [n for n in names if n not in fired]
            blocks.append(block)
        if changed:
            changes["content"] = blocks
    if not changes:
        return None
    if pol.mode == "observe":
        _note(ctx, event, "would_redact", ", ".join(fired), event.tool_name)
        return None
    return changes


@hookimpl
def plugin_config_model() -> Any:
    from .config import GuardConfig

    return GuardConfig


@hookimpl
def register_commands(cli: Any) -> None:
    from .cli import make_app

    cli.add_typer(make_app(), name="guard")
