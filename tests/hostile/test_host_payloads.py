"""A gating event whose tool call is malformed is denied in every host, with the field named.

Hosts change payloads between releases; an input that is missing, null, of the wrong type or under
another key cannot be checked, so it must not run. Each host's real entry point runs in a
subprocess, the way the host calls it: the per-event command (``python -I -m agent_hooks_core
<host>``) for the command hosts, ``serve --stdio`` for OpenCode, pi and omp. The only plugin
allows everything, so any deny comes from the answer policy (``bridges/hostkit/shape.py``).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.bridges.stdio_client import Session

ALLOW_ALL = """\
from agent_hooks_core import hookimpl


@hookimpl
def pre_tool(event):
    return None


@hookimpl
def pre_shell_exec(event):
    return None
"""

DANGER = "rm -rf ~"


@dataclass(frozen=True)
class Target:
    """One gating event of one host: a well-formed sample and where its tool call lives."""

    host: str
    event: str
    sample: dict[str, Any]
    #: path to the tool's input object (``()``: the fields are on the event itself)
    input: tuple[str, ...]
    #: path to the tool's name (None: the event is about one tool)
    name: tuple[str, ...] | None
    #: the field naming what the call acts on (None: the tool has none, e.g. MCP)
    field: str | None
    #: "command" (the per-event process) or "stdio"
    transport: str
    #: (exit code, stdout JSON or stdio answer, stderr) -> the reason if this is a deny, else None
    denied: Callable[[int, Any, str], str | None]


def _cc_deny(code: int, body: Any, err: str) -> str | None:
    spec = (body or {}).get("hookSpecificOutput", {})
    return spec.get("permissionDecisionReason") if code == 0 and spec.get("permissionDecision") == "deny" else None


def _codex_deny(code: int, body: Any, err: str) -> str | None:
    return err if code == 2 and err.strip() else None  # the one block Codex honours without our JSON


def _codex_permission_deny(code: int, body: Any, err: str) -> str | None:
    decision = (body or {}).get("hookSpecificOutput", {}).get("decision", {})
    return decision.get("message") if decision.get("behavior") == "deny" else None


def _gemini_deny(code: int, body: Any, err: str) -> str | None:
    return (body or {}).get("reason") if code == 2 and (body or {}).get("decision") == "deny" else None


def _cursor_deny(code: int, body: Any, err: str) -> str | None:
    body = body or {}
    if code == 2 and "deny" in (body.get("permission"), body.get("decision")):
        return str(body.get("reason") or body.get("user_message"))
    return None


def _decision_deny(code: int, body: Any, err: str) -> str | None:
    """Vibe and OpenHands: the JSON deny *and* exit 2 (Vibe's strict hooks and OpenHands block on it)."""
    return (body or {}).get("reason") if code == 2 and (body or {}).get("decision") == "deny" else None


def _kimi_deny(code: int, body: Any, err: str) -> str | None:
    return err if code == 2 and err.strip() else None  # Kimi reads exit 2 before any JSON


def _block(code: int, body: Any, err: str) -> str | None:
    answer = (body or {}).get("answer") or {}
    reason = answer.get("block")
    if reason is True:  # pi's {block: true, reason}
        reason = answer.get("reason")
    return str(reason) if reason and body.get("blocked") else None


_CURSOR = {"conversation_id": "c1", "generation_id": "g1", "cursor_version": "2.1.0", "workspace_roots": [],
           "user_email": None}
_CC = {"session_id": "s1", "transcript_path": "/nonexistent/t.jsonl", "permission_mode": "default"}

TARGETS = [
    Target("claude-code", "PreToolUse", {**_CC, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                          "tool_input": {"command": "ls"}, "tool_use_id": "t1"},
           ("tool_input",), ("tool_name",), "command", "command", _cc_deny),
    Target("codex", "PreToolUse", {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                    "tool_input": {"command": "ls"}, "tool_use_id": "call_1"},
           ("tool_input",), ("tool_name",), "command", "command", _codex_deny),
    Target("codex", "PermissionRequest", {"session_id": "s1", "hook_event_name": "PermissionRequest",
                                           "tool_name": "Bash", "tool_input": {"command": "ls"}},
           ("tool_input",), ("tool_name",), "command", "command", _codex_permission_deny),
    Target("gemini", "BeforeTool", {"session_id": "s1", "hook_event_name": "BeforeTool",
                                     "tool_name": "run_shell_command", "tool_input": {"command": "ls"}},
           ("tool_input",), ("tool_name",), "command", "command", _gemini_deny),
    Target("cursor", "preToolUse", {**_CURSOR, "hook_event_name": "preToolUse", "tool_name": "Shell",
                                     "tool_input": {"command": "ls"}, "tool_use_id": "t1"},
           ("tool_input",), ("tool_name",), "command", "command", _cursor_deny),
    Target("cursor", "beforeShellExecution", {**_CURSOR, "hook_event_name": "beforeShellExecution",
                                               "command": "ls"},
           (), None, "command", "command", _cursor_deny),
    Target("cursor", "beforeMCPExecution", {**_CURSOR, "hook_event_name": "beforeMCPExecution",
                                             "tool_name": "fs.write", "tool_input": '{"path": "x"}'},
           ("tool_input",), ("tool_name",), None, "command", _cursor_deny),
    Target("vibe", "pre_tool", {"session_id": "s1", "hook_event_name": "pre_tool", "tool_name": "file_system.bash",
                                "tool_call_id": "call_1", "tool_input": {"command": "ls"}},
           ("tool_input",), ("tool_name",), "command", "command", _decision_deny),
    Target("kimi", "PreToolUse", {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Shell",
                                   "tool_call_id": "call_1", "tool_input": {"command": "ls"}},
           ("tool_input",), ("tool_name",), "command", "command", _kimi_deny),
    Target("openhands", "PreToolUse", {"session_id": "s1", "event_type": "PreToolUse", "tool_name": "terminal",
                                        "tool_input": {"command": "ls", "is_input": False}},
           ("tool_input",), ("tool_name",), "command", "command", _decision_deny),
    Target("opencode", "tool.execute.before", {"input": {"tool": "bash", "sessionID": "s1", "callID": "c1"},
                                                "output": {"args": {"command": "ls"}}},
           ("output", "args"), ("input", "tool"), "command", "stdio", _block),
    Target("pi", "tool_call", {"type": "tool_call", "toolName": "bash", "toolCallId": "c1",
                               "input": {"command": "ls"}},
           ("input",), ("toolName",), "command", "stdio", _block),
    Target("omp", "tool_call", {"type": "tool_call", "toolName": "bash", "toolCallId": "c1",
                                "input": {"command": "ls"}},
           ("input",), ("toolName",), "command", "stdio", _block),
]


def _parent(event: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path[:-1]:
        event = event[key]
    return event


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any], Target], None]:
    def change(event: dict[str, Any], t: Target) -> None:
        _parent(event, path)[path[-1]] = value
    return change


def _input(value: Any) -> Callable[[dict[str, Any], Target], None]:
    return lambda event, t: _set(t.input, value)(event, t)


def _input_missing(event: dict[str, Any], t: Target) -> None:
    del _parent(event, t.input)[t.input[-1]]


def _input_elsewhere(event: dict[str, Any], t: Target) -> None:
    parent = _parent(event, t.input)
    del parent[t.input[-1]]
    parent["toolInput"] = {"command": DANGER}  # a release that renamed the key


def _field(value: Any) -> Callable[[dict[str, Any], Target], None]:
    def change(event: dict[str, Any], t: Target) -> None:
        assert t.field is not None
        args = _parent(event, (*t.input, "x"))
        if isinstance(value, type) and value is KeyError:
            del args[t.field]
        else:
            args[t.field] = value
    return change


def _field_elsewhere(event: dict[str, Any], t: Target) -> None:
    assert t.field is not None
    args = _parent(event, (*t.input, "x"))
    del args[t.field]
    args["cmd"] = DANGER


def _name(value: Any) -> Callable[[dict[str, Any], Target], None]:
    def change(event: dict[str, Any], t: Target) -> None:
        assert t.name is not None
        if value is KeyError:
            del _parent(event, t.name)[t.name[-1]]
        else:
            _parent(event, t.name)[t.name[-1]] = value
    return change


#: (case, what it needs of the target, the change, what the reason must name; {input}, {field} and {name}
#: are the target's own spellings)
SHAPES: list[tuple[str, str, Callable[[dict[str, Any], Target], None], str]] = [
    ("input missing", "input", _input_missing, "{input} is missing"),
    ("input null", "input", _input(None), "{input} must be an object, not null"),
    ("input a list", "input", _input(["bash", "-c", DANGER]), "{input} must be an object, not list"),
    ("input a string", "input", _input(DANGER), "{input}"),
    ("input a number", "input", _input(7), "{input} must be an object, not number"),
    ("input under another key", "input", _input_elsewhere, "{input} is missing (objects there: toolInput)"),
    ("command missing", "field", _field(KeyError), "{field} is missing"),
    ("command null", "field", _field(None), "{field} is missing"),
    ("command a number", "field", _field(7), "{field} is a number"),
    ("command an object", "field", _field({"sh": DANGER}), "{field} is an object"),
    ("command a list of numbers", "field", _field([1, 2]), "{field} is a list"),
    ("command under another key", "field", _field_elsewhere, "{field} is missing"),
    ("tool name missing", "name", _name(KeyError), "{name} is missing"),
    ("tool name a number", "name", _name(3), "{name} is a number"),
    ("tool name empty", "name", _name(""), "{name} is empty"),
]


def _applies(t: Target, needs: str) -> bool:
    return {"input": bool(t.input), "field": t.field is not None, "name": t.name is not None}[needs]


CASES = [pytest.param(t, change, word, id=f"{t.host}-{t.event}-{case}")
         for t in TARGETS for case, needs, change, word in SHAPES if _applies(t, needs)]


@pytest.fixture
def plugin_file(tmp_path: Path) -> Path:
    path = tmp_path / "allow_all.py"
    path.write_text(ALLOW_ALL, encoding="utf-8")
    return path


def _command(t: Target, event: Any, plugin: Path, cwd: Path) -> tuple[int, Any, str]:
    if isinstance(event, dict):
        event = {**event, "cwd": str(cwd)}
    env = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1", "HOME": str(cwd),
           "XDG_CONFIG_HOME": str(cwd / ".config"), "XDG_STATE_HOME": str(cwd / ".state")}
    proc = subprocess.run([sys.executable, "-I", "-m", "agent_hooks_core", t.host, "--event", t.event,
                           "--hook", str(plugin)], input=json.dumps(event).encode(), capture_output=True,
                          cwd=cwd, env=env, timeout=60)
    out = proc.stdout.decode()
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
    return proc.returncode, json.loads(out) if out.strip() else None, proc.stderr.decode()


_SESSIONS: dict[str, Session] = {}


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One ``serve --stdio`` per host for the module (a session is long-lived in the real hosts too)."""
    tmp = tmp_path_factory.mktemp("stdio")
    sessions: dict[str, Session] = {}
    env = {"HOME": str(tmp), "AGENT_HOOKS_HOME": str(tmp / "agent-hooks"), "XDG_CONFIG_HOME": str(tmp / ".config"),
           "XDG_STATE_HOME": str(tmp / ".state")}

    def get(host: str) -> Session:
        if host not in sessions:
            with pytest.MonkeyPatch.context() as mp:  # Session passes os.environ to the server
                for key, value in env.items():
                    mp.setenv(key, value)
                s = Session(tmp, ALLOW_ALL.split("\n", 2)[2])
            s.initialize(host)
            sessions[host] = s
        return sessions[host]

    yield get
    for s in sessions.values():
        s.close()


def _answer(t: Target, event: Any, plugin: Path, cwd: Path, stdio: Any) -> tuple[int, Any, str]:
    if t.transport == "command":
        return _command(t, {"hook_event_name": t.event, **event} if isinstance(event, dict) else event, plugin, cwd)
    s = stdio(t.host)
    return 0, s.event(t.event, event), s.stderr


@pytest.mark.parametrize("t", TARGETS, ids=lambda t: f"{t.host}-{t.event}")
def test_a_well_formed_call_is_allowed(t, plugin_file, tmp_path, stdio):
    code, body, err = _answer(t, copy.deepcopy(t.sample), plugin_file, tmp_path, stdio)
    assert t.denied(code, body, err) is None, (code, body, err)


@pytest.mark.parametrize(("t", "change", "word"), CASES)
def test_a_malformed_call_is_denied_naming_the_field(t, change, word, plugin_file, tmp_path, stdio):
    event = copy.deepcopy(t.sample)
    change(event, t)
    code, body, err = _answer(t, event, plugin_file, tmp_path, stdio)
    reason = t.denied(code, body, err)
    assert reason is not None, (code, body, err)
    expected = word.format(input=".".join(t.input), field=t.field, name=".".join(t.name or ()))
    assert expected in reason, reason


@pytest.mark.parametrize("t", [t for t in TARGETS if t.transport == "command"], ids=lambda t: f"{t.host}-{t.event}")
def test_an_event_that_is_not_an_object_is_denied(t, plugin_file, tmp_path, stdio):
    code, body, err = _command(t, ["rm", "-rf", "~"], plugin_file, tmp_path)
    assert t.denied(code, body, err) is not None, (code, body, err)


@pytest.mark.parametrize("t", [t for t in TARGETS if t.transport == "stdio"], ids=lambda t: f"{t.host}-{t.event}")
def test_a_payload_that_is_not_an_object_is_denied(t, stdio):
    answer = stdio(t.host).event(t.event, ["rm", "-rf", "~"])
    assert _block(0, answer, "") is not None, answer
