"""In-process: a deeply nested payload is the documented bad-input error, never RecursionError."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.errors import PayloadError
from agent_hooks_core.hookspecs._fields import EVENT_FIELDS

DEPTH = 5000  # well past the interpreter's recursion limit


def nested(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def required(hook: str) -> dict[str, Any]:
    """The hook's required fields, with values of their type."""
    samples = {"str": "x", "int": 1, "float": 1.0, "bool": True, "dict": {}, "list": [], "list[str]": [],
               "list[dict]": []}
    return {name: samples[code.rstrip("?").split(">=")[0]] for name, code, req in EVENT_FIELDS[hook] if req}


#: every declared field of every hook (plus an undeclared one per hook) filled with a deep value
CASES = [(hook, name) for hook, fields in EVENT_FIELDS.items() for name in [*(f[0] for f in fields), "extra"]]


@pytest.mark.parametrize("mode", ["fire", "afire"])
def test_no_field_of_any_hook_raises_recursion_error(mode: str) -> None:
    rt = Runtime([])
    failures = []
    for hook, name in CASES:
        payload = {**required(hook), name: nested(DEPTH)}
        try:
            rt.fire(hook, payload) if mode == "fire" else asyncio.run(rt.afire(hook, payload))
        except PayloadError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 300, str(exc)[:300]
        except RecursionError:
            failures.append(f"{hook}.{name}")
    assert failures == []


@pytest.mark.parametrize(("hook", "field", "message"), [
    ("pre_llm_context", "messages", "pre_llm_context: field 'messages' is nested too deeply"),
    ("pre_agentic_loop", "current_fallback", "field 'current_fallback' must be one of call_agent, call_user, not"),
    ("post_tool_batch", "current_fallback", "field 'current_fallback' must be one of call_agent, call_user, not"),
])
def test_the_issue_17_reproductions_name_the_field(hook: str, field: str, message: str) -> None:
    payload = {**required(hook), field: [nested(DEPTH)]}
    with pytest.raises(PayloadError) as info:
        Runtime([]).fire(hook, payload)
    assert message in str(info.value)
