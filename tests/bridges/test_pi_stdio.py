"""``agenthooks serve --stdio`` with the pi and omp adapters: the real server in a subprocess.

Events are the shapes pi 0.73.1 really sends (recorded with a dumping extension against the fake
model: ``data/pi-0.73.1-events.jsonl``); answers are checked in the shape pi applies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .stdio_client import Session

RECORDED = [json.loads(line) for line in
            Path(__file__).with_name("data").joinpath("pi-0.73.1-events.jsonl").read_text().splitlines()]


def recorded(name: str, tool: str | None = None) -> dict[str, Any]:
    for e in RECORDED:
        if e["name"] == name and (tool is None or e["payload"].get("toolName") == tool):
            return json.loads(json.dumps(e["payload"]))  # a copy
    raise KeyError(name)


@pytest.fixture
def session(tmp_path: Path):
    opened: list[Session] = []

    def start(plugin: str | None = None, **kw: Any) -> Session:
        s = Session(tmp_path, plugin, **kw)
        opened.append(s)
        return s

    yield start
    for s in opened:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


BLOCKER = """
@hookimpl
def pre_tool(event):
    if "rm -rf" in (event.arguments or {}).get("command", ""):
        return {"block": True, "reason": "no rm -rf here"}
"""


# -- the protocol -------------------------------------------------------------------------------


def test_initialize_lists_only_the_events_some_plugin_needs(session):
    s = session(BLOCKER)
    init = s.initialize()
    assert init["protocol"] == 1 and init["plugins"] == ["stdio_plugin"] and init["errors"] == []
    assert init["events"] == ["tool_call"]
    assert init["commands"] == []


@pytest.mark.parametrize(("hook", "events"), [
    ("pre_message", ["input"]),
    ("pre_shell_exec", ["tool_call"]),
    ("on_start", ["session_start"]),
    ("post_tool", ["tool_execution_end"]),
    ("pre_compact", ["session_before_compact"]),
])
def test_subscriptions_follow_the_hooks(session, hook, events):
    s = session(f"@hookimpl\ndef {hook}(event):\n    return None\n")
    assert s.initialize()["events"] == events


def test_block_is_pis_block_and_a_benign_call_is_null(session):
    s = session(BLOCKER)
    s.initialize()
    bad = recorded("tool_call")
    bad["input"]["command"] = "rm -rf ~"
    assert s.event("tool_call", bad) == {"answer": {"block": True, "reason": "no rm -rf here"},
                                         "blocked": True, "errors": []}
    assert s.event("tool_call", recorded("tool_call")) == {"answer": None, "blocked": False, "errors": []}
    assert s.close() == 0  # EOF ends the server


def test_malformed_lines_and_unknown_methods_get_errors_and_the_server_goes_on(session):
    s = session(BLOCKER)
    s.send_raw(b"{not json")
    assert s.read()["error"]["code"] == -32700
    s.send_raw(b"[1, 2]")
    assert s.read()["error"]["code"] == -32600
    assert s.call("event", {"name": "tool_call", "payload": {}})["error"]["code"] == -32002  # before initialize
    s.initialize()
    assert s.call("frobnicate")["error"]["code"] == -32601
    assert s.call("initialize", {"host": "nano"})["error"]["message"].startswith("initialize: unknown host 'nano'")
    assert s.call("event", {"name": 5})["error"]["code"] == -32602
    assert s.event("tool_call", recorded("tool_call"))["blocked"] is False  # still serving
    assert s.result("shutdown") == {}
    assert s.proc.wait(timeout=30) == 0


@pytest.mark.parametrize(("plugin", "why"), [
    ("@hookimpl\ndef pre_tool(event):\n    raise RuntimeError('boom')\n", "boom"),
    ("@hookimpl\ndef pre_tool(event):\n    return {'block': 'yes please'}\n", "pre_tool"),
    ("import nonexistent_module_xyz\n", "nonexistent_module_xyz"),
])
def test_tool_call_fails_closed(session, plugin, why):
    s = session(plugin)
    init = s.initialize()
    assert "tool_call" in init["events"]
    out = s.event("tool_call", recorded("tool_call"))
    assert out["blocked"] is True and out["answer"]["block"] is True
    assert why in out["answer"]["reason"]


def test_a_bad_payload_blocks_tool_call_but_not_other_events(session):
    s = session(BLOCKER + "\n@hookimpl\ndef pre_message(event):\n    return None\n")
    s.initialize()
    out = s.event("tool_call", {"toolName": "bash", "input": "rm -rf ~"})
    assert out["blocked"] is True and "input must be an object" in out["answer"]["reason"]
    out = s.event("input", [1, 2])
    assert out["answer"] is None and out["blocked"] is False and "payload must be an object" in out["errors"][0]


def test_events_nested_too_deeply_are_refused_before_any_plugin(session):
    s = session(BLOCKER)
    s.initialize()
    deep: Any = "x"
    for _ in range(150):
        deep = {"a": deep}
    out = s.event("tool_call", {"toolName": "bash", "input": {"command": "ls", "deep": deep}})
    assert out["blocked"] is True and "nested deeper than 100 levels" in out["answer"]["reason"]
    s.send_raw(b"[" * 100_000)
    assert s.read()["error"]["code"] == -32700


def test_plugin_output_on_stdout_does_not_corrupt_the_protocol(session):
    s = session("""
import subprocess, sys
@hookimpl
def pre_tool(event):
    print("chatty plugin")
    subprocess.run([sys.executable, "-c", "print('chatty child')"], check=True)
    return {"block": True, "reason": "said so"}
""")
    s.initialize()
    assert s.event("tool_call", recorded("tool_call"))["answer"] == {"block": True, "reason": "said so"}
    s.close()
    assert "chatty plugin" in s.stderr and "chatty child" in s.stderr


# -- permission hooks behind tool_call ----------------------------------------------------------


@pytest.mark.parametrize(("tool", "arguments", "hook", "subject"), [
    ("bash", {"command": "git push"}, "pre_shell_exec", "git push"),
    ("write", {"path": "a.txt", "content": "x"}, "pre_file_write", "{cwd}/a.txt"),
    ("edit", {"path": "/etc/hosts", "edits": []}, "pre_file_write", "/etc/hosts"),
    ("read", {"path": "sub/../b.txt"}, "pre_file_read", "{cwd}/b.txt"),
    ("grep", {"pattern": "x"}, "pre_file_read", "{cwd}"),
])
def test_tool_call_fires_the_permission_hook_and_its_deny_blocks(session, tmp_path, tool, arguments, hook, subject):
    s = session(f"""
@hookimpl
def {hook}(event):
    return {{"denied": True, "reason": "saw " + (event.get("command") or event.get("path"))}}
""")
    assert s.initialize()["events"] == ["tool_call"]
    out = s.event("tool_call", {"type": "tool_call", "toolName": tool, "toolCallId": "c1", "input": arguments})
    expected = subject.format(cwd=str(tmp_path))
    assert out == {"answer": {"block": True, "reason": f"saw {expected}"}, "blocked": True, "errors": []}


# -- answers in pi's shapes (recorded events) ---------------------------------------------------


REWRITE = """
@hookimpl
def pre_tool(event):
    return {"arguments": {**event.arguments, "command": "echo safe"}}
"""


@pytest.mark.parametrize(("host", "answer"), [
    ("pi", {"input": {"command": "echo safe"}}),  # the extension copies it into event.input
    ("omp", {"input": {"command": "echo safe"}}),  # omp's ToolCallEventResult.input, revalidated by omp
])
def test_argument_rewrite(session, host, answer):
    s = session(REWRITE)
    s.initialize(host)
    assert s.event("tool_call", recorded("tool_call"))["answer"] == answer


SHAPES: list[tuple[str, str, str | None, str, Any]] = [
    # (event, tool, hook, plugin answer, pi's answer)
    ("tool_result", "bash", "pre_tool_output", "{'output': 'redacted'}",
     {"content": [{"type": "text", "text": "redacted"}]}),
    ("tool_result", "read", "pre_tool_output", "{'is_error': False, 'output': 'fine'}",
     {"content": [{"type": "text", "text": "fine"}], "isError": False}),
    ("input", None, "pre_message", "{'prompt': 'do it carefully'}", {"action": "transform", "text": "do it carefully"}),
    ("input", None, "pre_message", "{'handled': True}", {"action": "handled"}),
    ("before_agent_start", None, "before_agent_start", "{'system_prompt': 'be brief'}", {"systemPrompt": "be brief"}),
    ("context", None, "pre_llm_context", "{'messages': []}", {"messages": []}),
    ("resources_discover", None, "resources_discover", "{'skill_paths': ['/skills']}",
     {"skillPaths": ["/skills"]}),
]


@pytest.mark.parametrize(("name", "tool", "hook", "plugin_answer", "expected"), SHAPES,
                         ids=[f"{s[0]}-{s[3]}" for s in SHAPES])
def test_recorded_events_get_pis_answer_shapes(session, name, tool, hook, plugin_answer, expected):
    s = session(f"@hookimpl\ndef {hook}(event):\n    return {plugin_answer}\n")
    assert name in s.initialize()["events"]
    out = s.event(name, recorded(name, tool))
    assert out["answer"] == expected and out["errors"] == []


def test_every_recorded_event_is_accepted(session, tmp_path):
    """An observer on every hook: no recorded pi event is refused, each reaches its hook."""
    log = tmp_path / "calls.jsonl"
    s = session(f"""
import json
from agent_hooks_core.hookspecs.catalogue import HOOKS
def _observer(name):
    def handler(event):
        with open({str(log)!r}, "a") as f:
            f.write(json.dumps(name) + "\\n")
    handler.__name__ = name
    return hookimpl(handler)
for _hd in HOOKS:
    globals()[_hd.name] = _observer(_hd.name)
@hookimpl
def host_event(host, name, payload):
    with open({str(log)!r}, "a") as f:
        f.write(json.dumps("host_event:" + name) + "\\n")
""")
    init = s.initialize()
    assert init["errors"] == []
    for e in RECORDED:
        if e["name"] in init["events"]:
            out = s.event(e["name"], e["payload"])
            assert out["errors"] == [], (e["name"], out)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    for expected in ("session_start", "on_start", "pre_tool", "pre_shell_exec", "pre_tool_output",
                     "post_tool", "pre_message", "before_agent_start", "pre_llm_context", "on_end",
                     "host_event:before_provider_request", "host_event:after_provider_response"):
        assert expected in calls, expected


# -- round trips to the host's UI and session ---------------------------------------------------


ASKER = """
@hookimpl
def pre_tool(event, ctx):
    if not ctx.ui.confirm("guard", "run " + event.arguments["command"] + "?"):
        return {"block": True, "reason": "the user said no"}
"""


@pytest.mark.parametrize(("reply", "answer"), [
    (True, None),
    (False, {"block": True, "reason": "the user said no"}),
    (None, {"block": True, "reason": "the user said no"}),  # pi's no-UI default: not a yes
])
def test_confirm_reaches_the_host_ui(session, reply, answer):
    s = session(ASKER, ui_answers={"ui.confirm": reply})
    s.initialize(has_ui=True)
    assert s.event("tool_call", recorded("tool_call"))["answer"] == answer
    assert [r["params"] for r in s.server_requests] == [{"title": "guard", "message": "run echo hi?"}]


def test_a_failing_ui_answers_no(session):
    s = session(ASKER)  # the client answers ui.confirm with an error
    s.initialize()
    assert s.event("tool_call", recorded("tool_call"))["answer"] == {"block": True, "reason": "the user said no"}


def test_select_input_editor_notify_status_message_entry(session, tmp_path):
    out = tmp_path / "answers.json"
    s = session(f"""
import json
@hookimpl
def pre_message(event, ctx):
    answers = [ctx.ui.select("pick", ["a", "b"]), ctx.ui.input("name"), ctx.ui.editor("edit", "x")]
    open({str(out)!r}, "w").write(json.dumps(answers))
    ctx.ui.notify("hello", "warning")
    ctx.ui.set_status("guard", "on")
    ctx.send_message("remember this", details={{"n": 1}})
    ctx.send_message("now", custom_type="mine", deliver_as="followUp")
    ctx.append_entry("guard-state", {{"n": 2}})
""", ui_answers={"ui.select": "b", "ui.input": "ann", "ui.editor": "text"})
    s.initialize()
    s.event("input", recorded("input"))
    assert json.loads(out.read_text()) == ["b", "ann", "text"]
    assert [(n["method"], n["params"]) for n in s.notifications] == [
        ("ui.notify", {"message": "hello", "level": "warning"}),
        ("ui.setStatus", {"key": "guard", "text": "on"}),
        ("session.sendMessage", {"message": {"customType": "agent-hooks:stdio_plugin", "content": "remember this",
                                             "display": True, "details": {"n": 1}}, "options": None}),
        ("session.sendMessage", {"message": {"customType": "mine", "content": "now", "display": True},
                                 "options": {"deliverAs": "followUp"}}),
        ("session.appendEntry", {"customType": "guard-state", "data": {"n": 2}}),
    ]


# -- slash commands -----------------------------------------------------------------------------


def test_plugin_commands_are_listed_and_run(session):
    s = session("""
from agent_hooks_core.commands import AgentCommand
@hookimpl
def agent_commands(ctx):
    return [AgentCommand("hello", "Say hello", lambda args: f"hello {args or 'world'} from {ctx.plugin}"),
            {"name": "quiet", "description": "Says nothing", "run": lambda args: None},
            {"name": "Bad Name", "description": "", "run": print}]
""")
    init = s.initialize()
    assert init["commands"] == [{"name": "hello", "description": "Say hello"},
                                {"name": "quiet", "description": "Says nothing"}]
    assert s.result("command", {"name": "hello", "args": "pi"}) == {"output": "hello pi from stdio_plugin"}
    assert s.result("command", {"name": "quiet", "args": ""}) == {}
    assert "no plugin declares the command 'nope'" in s.call("command", {"name": "nope"})["error"]["message"]
    s.close()
    assert "invalid command" in s.stderr


# -- the fire method (any dialect) --------------------------------------------------------------


def test_fire_canonical_and_in_a_dialect(session):
    s = session(BLOCKER)
    s.initialize()
    out = s.result("fire", {"hook": "pre_tool", "payload": {"tool_name": "bash", "arguments": {"command": "rm -rf /"}}})
    assert out["decision"] == "blocked" and out["answered"] == ["stdio_plugin"]
    out = s.result("fire", {"hook": "tool_call", "dialect": "omp",
                            "payload": {"toolName": "bash", "input": {"command": "rm -rf /"}}})
    assert out["native"] == {"block": True, "reason": "no rm -rf here"}
    assert s.call("fire", {"hook": "no_such_hook"})["error"]["code"] == -32602


def test_the_cli_dispatches_serve_stdio_and_rejects_bad_options(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "--stdio", "--bogus"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert r.stderr == "agenthooks serve --stdio: error: unknown option '--bogus' (try --help)\n"
