"""Numbers JSON does not have (``NaN``, ``Infinity``, ``-Infinity``, and ``1e999``, which no float
holds) are malformed input from a host. Python's json reads them; a plugin comparing against NaN
gets False from every test (``timeout > limit``, ``size < max``) and may allow what it would have
refused. They are refused where events are loaded from JSON (``hostkit.shape.load_json``): a
gating event is denied with a reason naming the field, any other event is answered as malformed.
One test per path: every command host's per-event process, ``serve --stdio`` (host events and
``fire``), the server's ``/fire`` and its host routes.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core.bridges.hostkit.shape import load_json

from tests.bridges.stdio_client import Session
from tests.serve.conftest import start_server

from .test_host_payloads import ALLOW_ALL, TARGETS, Target, _block, _command, plugin_file  # noqa: F401

VALUES = [("NaN", math.nan), ("Infinity", math.inf), ("-Infinity", -math.inf)]


@pytest.mark.parametrize(("text", "problem"), [
    ('{"a": 1, "b": [1.5, 2e3, -0.0]}', None),
    ('{"tool_input": {"timeout": NaN}}', "tool_input.timeout is NaN, not a JSON number"),
    ('{"x": [1, {"y": -Infinity}], "z": Infinity}', "x[1].y is -Infinity, not a JSON number"),
    ('{"size": 1e999}', "size is 1e999, not a JSON number"),
    ('{"size": -1E400}', "size is -1E400, not a JSON number"),
    ('{"big": 123456789012345678901234567890}', None),
])
def test_load_json_names_the_first_number_json_does_not_have(text: str, problem: str | None) -> None:
    value, got = load_json(text)
    assert got == problem
    assert "NaN" not in json.dumps(value) and "Infinity" not in json.dumps(value)  # each is read as None


def _with_number(t: Target, value: float) -> dict[str, Any]:
    """The target's well-formed sample with ``timeout`` set to ``value`` in its tool input (or on the
    event when the input is not an object there)."""
    event = copy.deepcopy(t.sample)
    where: Any = event
    for key in t.input:
        where = where[key]
    if not isinstance(where, dict):
        where = event
    where["timeout"] = value
    return event


@pytest.mark.parametrize(("name", "value"), VALUES)
@pytest.mark.parametrize("t", [t for t in TARGETS if t.transport == "command"], ids=lambda t: f"{t.host}-{t.event}")
def test_a_gating_event_of_every_command_host_is_denied_naming_the_field(
        t: Target, name: str, value: float, plugin_file: Path, tmp_path: Path) -> None:  # noqa: F811
    event = {"hook_event_name": t.event, **_with_number(t, value)}
    code, body, err = _command(t, event, plugin_file, tmp_path)
    reason = t.denied(code, body, err)
    assert reason is not None and f"timeout is {name}" in reason, (code, body, err)


def test_an_event_that_does_not_gate_is_answered_as_malformed(plugin_file: Path, tmp_path: Path) -> None:  # noqa: F811
    t = next(t for t in TARGETS if t.host == "claude-code")
    event = {"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
             "tool_input": {"command": "ls"}, "tool_response": {"exit_code": math.nan}}
    code, body, err = _command(t, event, plugin_file, tmp_path)
    assert code not in (0, 2) and "tool_response.exit_code is NaN" in err, (code, body, err)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("stdio")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(tmp))
        mp.setenv("AGENT_HOOKS_HOME", str(tmp / "agent-hooks"))
        s = Session(tmp, ALLOW_ALL.split("\n", 2)[2])
    s.initialize("pi")
    yield s
    s.close()


def _stdio_call(s: Session, method: str, params: dict[str, Any]) -> dict[str, Any]:
    s._id += 1
    s.send_raw(json.dumps({"jsonrpc": "2.0", "id": s._id, "method": method, "params": params}).encode())
    while True:
        msg = s.read()
        if msg.get("id") == s._id:
            return msg


@pytest.mark.parametrize(("name", "value"), VALUES)
def test_stdio_a_gating_host_event_is_denied_naming_the_field(session: Session, name: str, value: float) -> None:
    payload = {"type": "tool_call", "toolName": "bash", "toolCallId": "c1", "input": {"command": "ls",
                                                                                       "timeout": value}}
    msg = _stdio_call(session, "event", {"name": "tool_call", "payload": payload})
    reason = _block(0, msg.get("result"), "")
    assert reason is not None and f"payload.input.timeout is {name}" in reason, msg


def test_stdio_a_gating_fire_is_denied_and_any_other_is_malformed(session: Session) -> None:
    msg = _stdio_call(session, "fire", {"hook": "pre_tool", "payload": {"tool_name": "bash", "arguments": {
        "command": "ls", "timeout": math.inf}}})
    out = msg["result"]
    assert out["decision"] == "blocked" and "arguments.timeout is Infinity" in out["result"]["reason"], msg
    msg = _stdio_call(session, "fire", {"hook": "post_tool", "payload": {"tool_name": "bash", "result": math.nan}})
    assert msg["error"]["code"] == -32602 and "payload.result is NaN" in msg["error"]["message"], msg
    assert _stdio_call(session, "fire", {"hook": "pre_tool", "payload": {"tool_name": "bash", "arguments": {
        "command": "ls"}}})["result"]["decision"] == "allowed"  # the session goes on


def test_the_servers_fire_and_host_routes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    server = start_server(home)
    try:
        gating = {"hook": "pre_tool", "payload": {"tool_name": "bash", "arguments": {"command": "ls",
                                                                                     "timeout": -math.inf}}}
        status, body = server.tcp("POST", "/fire", json.dumps(gating).encode())
        out = json.loads(body)
        assert status == 200 and out["decision"] == "blocked", (status, out)
        assert "payload.arguments.timeout is -Infinity" in out["result"]["reason"], out
        other = {"hook": "post_tool", "payload": {"tool_name": "bash", "result": math.nan}}
        status, body = server.tcp("POST", "/fire", json.dumps(other).encode())
        assert status == 400 and b"payload.result is NaN" in body, (status, body)
        event = {"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": str(tmp_path), "tool_name": "Bash",
                 "tool_input": {"command": "ls", "timeout": math.nan}}
        status, body = server.tcp("POST", "/hosts/claude-code", json.dumps(event).encode())
        answer = json.loads(body)
        spec = json.loads(answer["body"]) if isinstance(answer.get("body"), str) else answer
        text = json.dumps(spec)
        assert status == 200 and "deny" in text and "tool_input.timeout is NaN" in text, (status, answer)
    finally:
        server.stop()
