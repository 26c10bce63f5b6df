"""Registration errors, bad calls, HookEvent, Outcome and the merge patch: one precise line each."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from agent_hooks_core import (
    HookEvent,
    Outcome,
    PayloadError,
    PluginError,
    Runtime,
    UnknownHookError,
    hookimpl,
)
from agent_hooks_core.hookspecs.models import PreToolEvent
from agent_hooks_core.mergepatch import merge_patch

from .helpers import plugin


class UnknownHook:
    @hookimpl
    def pre_tol(self, event: Any) -> None: ...


class PiName:
    @hookimpl
    def tool_call(self, event: Any) -> None: ...


class BadArgument:
    @hookimpl
    def pre_tool(self, evt: Any) -> None: ...


class NewWrapper:
    @hookimpl(wrapper=True)
    def pre_tool(self, event: Any) -> Any:
        return (yield)


class OldWrapper:
    @hookimpl(hookwrapper=True)
    def pre_tool(self, event: Any) -> Any:
        yield


class CtxFirst:
    @hookimpl
    def pre_tool(self, ctx: Any, event: Any) -> None: ...


@pytest.mark.parametrize(("plugin_obj", "message"), [
    (UnknownHook(), "plugin 'UnknownHook': unknown hook 'pre_tol' (did you mean 'pre_tool'?)"),
    (PiName(), "plugin 'PiName': unknown hook 'tool_call': that is the omp/pi-agent/pi-ext name of 'pre_tool'"),
    (BadArgument(), "plugin 'BadArgument': pre_tool(evt"),
    (NewWrapper(), "plugin 'NewWrapper': pre_tool is a hook wrapper; implement hook_called"),
    (OldWrapper(), "plugin 'OldWrapper': pre_tool is a hook wrapper"),
    (CtxFirst(), "plugin 'CtxFirst': pre_tool"),
])
def test_registration_errors_are_one_precise_line(plugin_obj: Any, message: str) -> None:
    rt = Runtime()
    with pytest.raises(PluginError) as info:
        rt.register(plugin_obj)
    assert str(info.value).startswith(message), str(info.value)
    if isinstance(plugin_obj, BadArgument):
        assert str(info.value).endswith("unknown argument(s) 'evt'; the arguments of pre_tool are (event, ctx)")
    assert "\n" not in str(info.value)
    assert rt.plugins == [] and rt.implementers("pre_tool") == []  # nothing half-registered


def test_duplicate_and_unknown_names() -> None:
    rt = Runtime([plugin("p", on_start=lambda: None)])
    with pytest.raises(PluginError, match="plugin 'p' is already registered"):
        rt.register(plugin("p", on_end=lambda: None))
    with pytest.raises(PluginError, match="plugin 'nope' is not registered"):
        rt.unregister("nope")


def test_optionalhook_lets_a_plugin_for_a_newer_agent_hooks_load() -> None:
    class Newer:
        @hookimpl(optionalhook=True)
        def pre_future_thing(self, event: Any) -> None: ...

        @hookimpl
        def pre_tool(self, event: Any) -> dict[str, Any]:
            return {"block": True}

    rt = Runtime([Newer()])
    assert rt.hooks_of("Newer") == ["pre_tool"]
    assert rt.fire("pre_tool", {"tool_name": "t"}).decision == "blocked"


def test_external_flag_is_forgotten_on_unregister() -> None:
    rt = Runtime()
    rt.register(plugin("x", pre_tool=lambda event: None), external=True)
    assert rt.handlers("pre_tool")[0].external
    rt.unregister("x")
    rt.register(plugin("x", pre_tool=lambda event: None))
    assert not rt.handlers("pre_tool")[0].external


@pytest.mark.parametrize(("hook", "payload", "error", "message"), [
    ("pre_tol", {}, UnknownHookError, "unknown hook 'pre_tol' (did you mean 'pre_tool'?)"),
    ("tool_call", {}, UnknownHookError, "that is the omp/pi-agent/pi-ext name of 'pre_tool'"),
    ("session:before_clear", {}, UnknownHookError, "that is the pi-agent name of 'pre_clear'"),
    ("pre_tool", {}, PayloadError, "pre_tool: payload is missing required field 'tool_name'"),
    ("pre_tool", {"tool_name": 5}, PayloadError, "pre_tool: field 'tool_name' must be str, not int"),
    ("pre_tool", {"tool_name": "t", "arguments": None}, PayloadError, "field 'arguments' must not be null"),
    ("pre_tool", [1], PayloadError, "pre_tool: payload must be a JSON object, not list"),
    ("pre_api_tools", {"tools": ["a"]}, PayloadError, "field 'tools' must be a list of objects"),
    ("pre_agentic_loop", {"current_fallback": "x"}, PayloadError, "must be one of call_agent, call_user, not 'x'"),
])
def test_bad_calls_raise_one_line(hook: str, payload: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        Runtime().fire(hook, payload)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_payloads_keep_unknown_fields_and_get_defaults() -> None:
    seen: list[HookEvent] = []
    rt = Runtime([plugin("p", pre_tool=lambda event: seen.append(event))])
    rt.fire("pre_tool", {"tool_name": "t", "host_specific": {"x": 1}})
    assert seen[0] == {"tool_name": "t", "arguments": {}, "host_specific": {"x": 1}}
    rt.fire("pre_tool", PreToolEvent(tool_name="m", arguments={"a": 1}))  # a model is accepted too
    assert seen[1]["tool_name"] == "m" and seen[1]["arguments"] == {"a": 1}
    assert rt.fire("agent_start").data is None  # no payload: {}


def test_the_hosts_payload_is_not_modified() -> None:
    payload = {"request_body": {"a": 1, "b": {"c": 2}}}
    out = Runtime([plugin("p", pre_api_request=lambda event: {"request_body": {"b": {"c": None}}})]).fire(
        "pre_api_request", payload)
    assert out.data == {"request_body": {"a": 1, "b": {}}}
    assert payload == {"request_body": {"a": 1, "b": {"c": 2}}}


def test_pre_llm_context_first_handler_gets_a_deep_copy() -> None:
    messages = [{"role": "user", "content": "hi"}]

    def mutate(event: Any) -> None:
        event.messages[0]["content"] = "changed in place"

    Runtime([plugin("p", pre_llm_context=mutate)]).fire("pre_llm_context", {"messages": messages})
    assert messages == [{"role": "user", "content": "hi"}]


def test_hook_event() -> None:
    event = HookEvent("pre_tool", {"tool_name": "t", "arguments": {}})
    event.tool_call_id = "c1"
    assert event["tool_call_id"] == "c1" and event.hook == "pre_tool"
    assert event.replace(tool_name="u") == {"tool_name": "u", "arguments": {}, "tool_call_id": "c1"}
    assert event.tool_name == "t"  # replace made a copy
    clone = copy.deepcopy(event)
    assert clone == event and clone.hook == "pre_tool" and clone["arguments"] is not event["arguments"]
    restored = pickle.loads(pickle.dumps(event))
    assert restored == event and restored.hook == "pre_tool"
    assert "HookEvent('pre_tool'" in repr(event)


# (hook, data, decision)
DECISIONS = [
    ("post_tool", None, "observed"),
    ("pre_file_read", {"denied": True, "reason": "r"}, "denied"),
    ("pre_file_read", {"denied": False}, "allowed"),
    ("pre_tool", {"block": True}, "blocked"),
    ("pre_compact", {"cancel": True}, "blocked"),
    ("pre_message", {"handled": True}, "blocked"),
    ("pre_tool", {"arguments": {}}, "modified"),
    ("pre_tool", {}, "allowed"),
    ("pre_api_tools", {"tools": []}, "allowed"),
    ("pre_api_tools", {"tools": [], "exclude": ["x"]}, "modified"),
    ("pre_agentic_loop", {"fallback": "call_user", "fallback_source": "default"}, "allowed"),
    ("pre_agentic_loop", {"fallback": "call_user", "fallback_source": "pre_agentic_loop"}, "modified"),
    ("pre_send_message", {"delivered": True}, "modified"),
]


@pytest.mark.parametrize(("hook", "data", "decision"), DECISIONS)
def test_outcome_decision(hook: str, data: Any, decision: str) -> None:
    out = Outcome(hook, HookEvent(hook, {}), data)
    assert out.decision == decision
    assert out.to_dict()["decision"] == decision


def test_outcome_reason_and_result() -> None:
    out = Outcome("pre_tool", HookEvent("pre_tool", {}), {"block": True, "message": "m"})
    assert out.reason == "m" and out.result.block is True and out.result.message == "m"
    assert Outcome("post_tool", HookEvent("post_tool", {}), None).result is None


# RFC 7386, Appendix A
RFC7386 = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "result"), RFC7386)
def test_merge_patch_rfc7386_examples(target: Any, patch: Any, result: Any) -> None:
    before = copy.deepcopy(target)
    assert merge_patch(target, patch) == result
    assert target == before  # neither argument is modified
