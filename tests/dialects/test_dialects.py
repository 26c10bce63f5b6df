"""Dialect mechanics beyond the per-row seed rules: names, bad calls, shapes, and that the
dialect-specific rules never leak into canonical firing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_hooks_core import PayloadError, Runtime, UnknownHookError, hookimpl
from agent_hooks_core.dialects import DIALECTS, fire_dialect, get_dialect
from agent_hooks_core.dialects._base import UnknownDialectError, camel, snake
from agent_hooks_core.errors import AgentHooksError
from agent_hooks_core.hookspecs.catalogue import HOOKS


class Answers:
    """One plugin answering fixed dicts per canonical hook (callables get the event)."""

    def __init__(self, **answers: Any) -> None:
        for hook, answer in answers.items():
            def handler(event: Any, _a: Any = answer) -> Any:
                return _a(event) if callable(_a) else _a
            handler.__name__ = hook
            setattr(self, hook, hookimpl(handler))


def test_every_seed_name_of_the_catalogue_resolves_in_its_dialect() -> None:
    system_dialect = {"chibi": "chibi", "omp": "omp", "pi-ext": "pi", "pi-agent": "pi"}
    for hd in HOOKS:
        for system, names in hd.aliases.items():
            d = get_dialect(system_dialect[system])
            for name in names:
                assert d.resolve(name) == hd.name


def test_pi_ext_and_pi_agent_are_the_pi_dialect() -> None:
    assert get_dialect("pi-ext") is get_dialect("pi") is get_dialect("pi-agent")
    assert set(DIALECTS) == {"chibi", "pi", "pi-ext", "pi-agent", "omp"}


def test_bad_calls_raise_one_clear_error() -> None:
    rt = Runtime()
    with pytest.raises(UnknownDialectError, match="unknown dialect 'claude'"):
        rt.fire("pre_tool", {}, dialect="claude")
    assert issubclass(UnknownDialectError, AgentHooksError)
    with pytest.raises(UnknownHookError, match="did you mean 'tool_call'"):
        rt.fire("tool_cal", {}, dialect="pi")
    with pytest.raises(UnknownHookError):
        rt.fire("tool_call", {}, dialect="chibi")  # a pi name is no chibi name
    with pytest.raises(UnknownHookError):
        rt.fire("session.compacting", {}, dialect="pi")  # omp only
    with pytest.raises(PayloadError, match="needs a `reason`"):
        rt.fire("session", {}, dialect="pi")
    with pytest.raises(PayloadError, match="unknown reason 'teleport'"):
        rt.fire("session", {"reason": "teleport"}, dialect="pi-agent")
    with pytest.raises(PayloadError, match="must be a JSON object"):
        rt.fire("tool_call", ["bash"], dialect="omp")
    # errors name the fields as the host spelled them, not their canonical names
    with pytest.raises(PayloadError, match=r"^pi tool_call: payload is missing required field 'toolName'$"):
        rt.fire("tool_call", {"input": {}}, dialect="pi")
    with pytest.raises(PayloadError, match=r"^omp tool_result: field 'input' must be dict, not list$"):
        rt.fire("tool_result", {"toolName": "t", "input": []}, dialect="omp")
    with pytest.raises(PayloadError, match=r"^pi session:start: field 'sessionFile' must be str"):
        rt.fire("session", {"reason": "start", "sessionFile": 3}, dialect="pi")
    with pytest.raises(PayloadError, match=r"^chibi on_context_switch: field 'is_transient' must be bool"):
        asyncio.run(rt.afire("on_context_switch", {"is_transient": "no"}, dialect="chibi"))


def test_the_pi_agent_session_spelling_is_accepted_as_a_name() -> None:
    rt = Runtime([Answers(pre_clear={"cancel": True})])
    assert rt.fire("session:before_clear", {}, dialect="pi").native == {"cancel": True}
    assert rt.fire("session", {"reason": "before_clear"}, dialect="pi").native == {"cancel": True}


def test_key_case() -> None:
    assert snake("toolCallId") == "tool_call_id" and snake("isError") == "is_error"
    assert snake("tool_name") == "tool_name" and snake("input") == "input"
    assert camel("skip_conversation_restore") == "skipConversationRestore" and camel("cancel") == "cancel"
    assert camel("_private") == "_private"


def test_canonical_firing_keeps_canonical_rules() -> None:
    """omp's last-result rule applies to omp calls only."""
    rt = Runtime([("a", Answers(pre_tool_output=lambda e: {"output": e.output + "A"})),
                  ("b", Answers(pre_tool_output=lambda e: {"output": e.output + "B"}))])
    payload = {"tool_name": "t", "output": "x"}
    assert rt.fire("pre_tool_output", payload).data["output"] == "xAB"  # chained
    assert rt.fire("pre_tool_output", payload).native is None
    omp = rt.fire("tool_result", {"toolName": "t", "input": {}, "content": [], "output": "x"}, dialect="omp")
    assert omp.native == {"content": [{"type": "text", "text": "xB"}]}  # each saw "x"; the last wins
    assert rt.fire("pre_tool_output", payload, dialect="canonical").data["output"] == "xAB"


def test_omp_fail_closed_after_an_allowing_answer() -> None:
    def boom(event: Any) -> Any:
        raise RuntimeError("crash")

    rt = Runtime([("ok", Answers(pre_tool={"reason": "fine"})), ("bad", Answers(pre_tool=boom))])
    out = rt.fire("tool_call", {"toolName": "bash", "input": {}}, dialect="omp")
    assert out.native["block"] is True and "bad" in out.native["reason"]
    assert [e.plugin for e in out.errors] == ["bad"]


def test_omp_skips_an_invalid_answer_and_keeps_the_last_valid_one() -> None:
    rt = Runtime([("a", Answers(pre_session_switch={"cancel": False})),
                  ("b", Answers(pre_compact={"compaction": {"summary": "s"}})),
                  ("c", Answers(pre_compact={"compaction": "not an object"}))])
    out = rt.fire("session_before_compact", {"preparation": {}}, dialect="omp")
    assert out.native == {"compaction": {"summary": "s"}}
    assert [(e.plugin, e.kind) for e in out.errors] == [("c", "invalid")]


def test_chibi_request_body_patch_removes_deleted_fields() -> None:
    rt = Runtime([Answers(pre_api_request={"request_body": {"stop": None, "temperature": 0.2,
                                                            "metadata": {"a": 1}}})])
    body = {"model": "m", "stop": ["x"], "metadata": {"b": 2}}
    out = rt.fire("pre_api_request", {"request_body": body}, dialect="chibi")
    assert out.data["request_body"] == {"model": "m", "temperature": 0.2, "metadata": {"b": 2, "a": 1}}
    assert out.native == {"request_body": {"stop": None, "temperature": 0.2, "metadata": {"b": 2, "a": 1}}}
    assert body == {"model": "m", "stop": ["x"], "metadata": {"b": 2}}


def test_chibi_include_and_exclude_from_several_plugins_become_one_include() -> None:
    """A chibi answer may carry include or exclude, not both: the survivors are the include."""
    rt = Runtime([("a", Answers(pre_api_tools={"include": ["a", "b", "c"]})),
                  ("b", Answers(pre_api_tools={"exclude": ["b"]}))])
    out = rt.fire("pre_api_tools", {"tools": [{"name": n} for n in "abcd"]}, dialect="chibi")
    assert out.native == {"include": ["a", "c"]}


def test_chibi_pre_tool_output_from_content_only_plugins() -> None:
    rt = Runtime([Answers(pre_tool_output={"content": [{"type": "text", "text": "one"},
                                                       {"type": "image", "data": "..."},
                                                       {"type": "text", "text": "two"}]})])
    out = rt.fire("pre_tool_output", {"tool_name": "t", "output": "raw"}, dialect="chibi")
    assert out.native == {"output": "one\ntwo"}


def test_chibi_fallback_from_the_default_is_not_an_answer() -> None:
    rt = Runtime([Answers(pre_agentic_loop={"fuel": 3})], default_fallback="call_user")
    out = rt.fire("pre_agentic_loop", {"context_name": "c", "fuel_remaining": 9}, dialect="chibi")
    assert out.data["fallback"] == "call_user"
    assert out.native == {"fuel": 3}


def test_pi_input_block_is_reported_as_handled() -> None:
    rt = Runtime([Answers(pre_message={"block": True, "reason": "no"})])
    assert rt.fire("input", {"text": "x"}, dialect="pi").native == {"action": "handled"}


def test_pi_tool_result_block_replaces_the_content() -> None:
    rt = Runtime([Answers(pre_tool_output={"block": True, "message": "[withheld]"})])
    out = rt.fire("tool_result", {"toolName": "read", "input": {}, "content": [{"type": "text", "text": "s"}]},
                  dialect="pi")
    assert out.native == {"content": [{"type": "text", "text": "[withheld]"}]}


def test_pi_tool_call_in_place_edits_reach_the_host() -> None:
    def edit(event: Any) -> None:
        event.arguments["command"] = "ls --color=never"

    rt = Runtime([Answers(pre_tool=edit)])
    payload = {"toolName": "bash", "input": {"command": "ls"}}
    assert rt.fire("tool_call", payload, dialect="pi").native is None
    assert payload["input"] == {"command": "ls --color=never"}


def test_the_translated_event_keeps_unknown_fields() -> None:
    seen: list[dict[str, Any]] = []
    rt = Runtime([Answers(pre_tool=lambda e: seen.append(dict(e)))])
    rt.fire("tool_call", {"type": "tool_call", "toolName": "bash", "input": {}, "someNewField": 1}, dialect="pi")
    assert seen == [{"tool_name": "bash", "arguments": {}, "some_new_field": 1}]


def test_fire_dialect_and_afire() -> None:
    rt = Runtime([Answers(pre_session_switch={"cancel": True})])
    assert fire_dialect(rt, "omp", "session_before_switch", {}).native == {"cancel": True}
    out = asyncio.run(rt.afire("session_before_switch", {"reason": "new"}, dialect="pi"))
    assert (out.hook, out.native, out.decision) == ("pre_session_switch", {"cancel": True}, "blocked")


def test_async_handlers_in_a_dialect() -> None:
    class Async:
        @hookimpl
        async def pre_llm_context(self, event: Any) -> Any:
            await asyncio.sleep(0)
            return {"messages": event.messages[:1]}

    rt = Runtime([Async()])
    out = asyncio.run(rt.afire("context", {"messages": [1, 2]}, dialect="omp"))
    assert out.native == {"messages": [1]}
    assert rt.fire("context", {"messages": [1, 2]}, dialect="pi").native == {"messages": [1]}
