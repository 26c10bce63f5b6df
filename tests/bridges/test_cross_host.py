"""The same logical event gives the same decision in every host: `rm -rf ~` is denied, `ls` is
allowed, and a secret in a tool's output is redacted wherever the host can rewrite output (the
guard plugin, each host's own event and answer shapes)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from agent_hooks_core import hookimpl
from agent_hooks_core.bridges import adapter as load_adapter
from agent_hooks_core.bridges.capabilities import of

from . import payloads as cc_payloads
from .hostkit_support import SECRET, guard_runtime, payloads, runtime


def _sample(host: str, key: str) -> dict[str, Any]:
    if host == "claude-code":
        return copy.deepcopy(cc_payloads.event(key, "/repo"))
    return payloads(host)[key]


def _set(ev: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    target = ev
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value
    return ev


#: host -> (shell event builder, "is this answer a deny?")
SHELL: dict[str, tuple[Callable[[str], dict[str, Any]], Callable[[Any], bool]]] = {
    "claude-code": (lambda c: _set(_sample("claude-code", "PreToolUse"), ("tool_input", "command"), c),
                    lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"),
    "codex": (lambda c: _set(_sample("codex", "PreToolUse"), ("tool_input",), {"command": c}),
              lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"),
    "gemini": (lambda c: _set(_sample("gemini", "BeforeTool"), ("tool_input",), {"command": c}),
               lambda a: (a.body or {}).get("decision") == "deny"),
    "cursor": (lambda c: _set(_sample("cursor", "beforeShellExecution"), ("command",), c),
               lambda a: (a.body or {}).get("permission") == "deny"),
    "opencode": (lambda c: _set(_sample("opencode", "tool.execute.before"), ("payload", "output", "args"),
                                {"command": c}),
                 lambda a: bool((a.body or {}).get("block"))),
    "copilot": (lambda c: _set(_sample("copilot", "PreToolUse"), ("tool_input",), {"command": c}),
                lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"),
    "droid": (lambda c: _set(_sample("droid", "PreToolUse"), ("tool_input", "command"), c),
              lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"),
    "qwen": (lambda c: _set(_sample("qwen", "PreToolUse"), ("tool_input",), {"command": c}),
             lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"),
    "vibe": (lambda c: _set(_sample("vibe", "pre_tool"), ("tool_input",), {"command": c}),
             lambda a: (a.body or {}).get("decision") == "deny"),
    "openhands": (lambda c: _set(_sample("openhands", "PreToolUse"), ("tool_input", "command"), c),
                  lambda a: (a.body or {}).get("decision") == "deny"),
    "kimi": (lambda c: _set(_sample("kimi", "PreToolUse"), ("tool_input",), {"command": c}),
             lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"),
}

#: host -> (output event builder, the text the model gets instead, or None when unchanged)
OUTPUT: dict[str, tuple[Callable[[str], dict[str, Any]], Callable[[Any], str | None]]] = {
    "claude-code": (lambda t: _set(_set(_sample("claude-code", "PostToolUse"), ("tool_name",), "Bash"),
                                   ("tool_response",), {"stdout": t, "stderr": "", "interrupted": False}),
                    lambda a: (a.body or {}).get("hookSpecificOutput", {}).get("updatedToolOutput", {}).get("stdout")),
    "codex": (lambda t: _set(_sample("codex", "PostToolUse"), ("tool_response",), t),
              lambda a: (a.body or {}).get("reason")),
    "gemini": (lambda t: _set(_sample("gemini", "AfterTool"), ("tool_response",), {"llmContent": t}),
               lambda a: (a.body or {}).get("reason")),
    "cursor": (lambda t: _set(_sample("cursor", "postToolUse/mcp"), ("tool_output",), t),
               lambda a: (a.body or {}).get("updated_mcp_tool_output")),
    "opencode": (lambda t: _set(_sample("opencode", "tool.execute.after"), ("payload", "output", "output"), t),
                 lambda a: (a.body or {}).get("output")),
    "vibe": (lambda t: _set(_sample("vibe", "post_tool"), ("tool_output_text",), t),
             lambda a: (a.body or {}).get("reason")),
}

HOSTS = sorted(SHELL)
#: hosts that cannot change a tool's output (their post-tool answer is read as context only)
NO_OUTPUT_REWRITE = frozenset({"qwen", "copilot", "droid"})


def _run(host: str, event: dict[str, Any], cwd: str) -> Any:
    for key in ("cwd",):
        if key in event:
            event[key] = cwd
    if "workspace_roots" in event:
        event["workspace_roots"] = [cwd]
    return load_adapter(host).handle(guard_runtime(cwd), event)


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(("command", "denied"), [("rm -rf ~", True), ("sudo rm -rf ~", True), ("ls", False),
                                                 ("ls -la src", False)])
def test_same_shell_decision_everywhere(host, command, denied, tmp_path):
    build, is_deny = SHELL[host]
    answer = _run(host, build(command), str(tmp_path))
    assert is_deny(answer) is denied, answer
    assert answer.blocked is denied


@pytest.mark.parametrize("host", sorted(OUTPUT))
def test_secret_redacted_where_the_host_can_rewrite_output(host, tmp_path):
    build, seen = OUTPUT[host]
    answer = _run(host, build(f"deploy ok\ntoken={SECRET}\n"), str(tmp_path))
    text = seen(answer)
    assert of(host)["pre_tool_output"].rewrite  # every host here can, for the event used
    assert text is not None and SECRET not in text and "[REDACTED:github-token]" in text, answer


def test_every_registered_host_is_in_the_table():
    from agent_hooks_core.bridges import registry

    assert {h.name for h in registry.first_party() if h.name not in ("pi", "omp")} == set(HOSTS)


class _Rewriter:
    @hookimpl
    def pre_tool(self, event: Any) -> dict[str, Any]:
        return {"arguments": {**(event.arguments or {}), "command": "echo rewritten"}}


@pytest.mark.parametrize("host", HOSTS)
def test_a_rewrite_the_host_cannot_run_is_denied_never_run_as_it_was(host, tmp_path):
    """Where the host ignores changed tool input, the call it would run is one no plugin approved."""
    build, is_deny = SHELL[host]
    answer = load_adapter(host).handle(runtime(("rewriter", _Rewriter()), cwd=str(tmp_path)), build("echo original"))
    assert "echo rewritten" in json.dumps(answer.body) or (is_deny(answer) and answer.blocked), answer
    if not of(host)["pre_tool"].rewrite:
        assert is_deny(answer) and "cannot run a rewritten" in json.dumps(answer.body), answer
