"""The per-event command transport against hostile plugins and input, as the host runs it.

Each case runs ``python -m agent_hooks_core claude-code`` in a real subprocess with a local hook
file that misbehaves: whatever the plugin does, a PreToolUse ends in exactly one deny
with a reason, within a bounded time, and never an exit 0 with nothing said.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .payloads import event

HOSTILE = {
    "os_exit": "os._exit(0)",
    "sys_exit": "raise SystemExit(0)",
    "kill_self": "os.kill(os.getpid(), signal.SIGKILL)",
    "fork": "if os.fork() == 0:\n    reap_later()\nreturn {'block': True, 'reason': 'forked and blocked'}",
    "fork_allow_in_child": "if os.fork() == 0:\n    reap_later()\n    return None\n"
                           "return {'block': True, 'reason': 'parent blocked'}",
    "hang": "time.sleep(3600)",
    "keyboard_interrupt": "raise KeyboardInterrupt",
    "print_garbage": "print('{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}')\nos.write(1, b'garbage')\nreturn {'block': True, 'reason': 'printed'}",
}


def _hook_file(tmp: Path, body: str) -> Path:
    path = tmp / "hostile.py"
    path.write_text(textwrap.dedent("""\
        import faulthandler, os, signal, sys, threading, time
        from agent_hooks_core import hookimpl

        def reap_later():
            # the forked child may never come back through the bridge (a handler thread's child):
            # end it from C after a while, so the test leaves no process behind
            faulthandler.dump_traceback_later(10, exit=True, file=open(os.devnull, "w"))

        @hookimpl
        def pre_tool(event):
        """) + textwrap.indent(body, "    ") + "\n")
    return path


def _run(tmp: Path, raw: bytes, hook: Path | None = None, env: dict[str, str] | None = None,
         args: tuple[str, ...] = ("--event", "PreToolUse"), timeout: float = 60) -> tuple[int, str, str, float]:
    argv = [sys.executable, "-m", "agent_hooks_core", "claude-code", *args]
    if hook is not None:
        argv += ["--hook", str(hook)]
    full = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1", **(env or {})}
    start = time.monotonic()
    proc = subprocess.run(argv, input=raw, capture_output=True, cwd=tmp, env=full, timeout=timeout)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode(), time.monotonic() - start


def _decision(stdout: str) -> tuple[str, str]:
    docs = stdout.strip().splitlines()
    assert len(docs) == 1, f"expected exactly one answer, got {stdout!r}"
    out = json.loads(docs[0])["hookSpecificOutput"]
    return out["permissionDecision"], out["permissionDecisionReason"]


@pytest.mark.parametrize("behaviour", sorted(HOSTILE))
def test_a_hostile_plugin_never_ends_pre_tool_use_as_an_allow(tmp_path, behaviour):
    env = {"AGENT_HOOKS_ANSWER_DEADLINE": "3"} if behaviour == "hang" else {}
    # the runtime's own per-handler timeout is longer than our deadline: the transport must act
    (tmp_path / ".agent-hooks").mkdir()
    (tmp_path / ".agent-hooks" / "settings.toml").write_text("hook_timeout = 600\n")
    code, out, err, _ = _run(tmp_path, json.dumps(event("PreToolUse", str(tmp_path))).encode(),
                             _hook_file(tmp_path, HOSTILE[behaviour]), env)
    assert code == 0, err
    decision, reason = _decision(out)
    assert decision == "deny", (out, err)
    assert reason and "Traceback" not in err


def test_a_hung_plugin_is_answered_by_the_deadline(tmp_path):
    raw = json.dumps(event("PreToolUse", str(tmp_path))).encode()
    _, out, _, took = _run(tmp_path, raw, _hook_file(tmp_path, "time.sleep(3600)"),
                              {"AGENT_HOOKS_ANSWER_DEADLINE": "1"})
    assert _decision(out)[0] == "deny" and "no answer within 1 s" in _decision(out)[1]
    assert took < 1 + 15  # the deadline plus start-up and the kill grace, far below the hang


def test_a_non_daemon_thread_does_not_keep_the_process_alive(tmp_path):
    body = "threading.Thread(target=time.sleep, args=(3600,)).start()\nreturn {'block': True, 'reason': 'no'}"
    for worker in ("1", "0"):
        _, out, _, took = _run(tmp_path, json.dumps(event("PreToolUse", str(tmp_path))).encode(),
                               _hook_file(tmp_path, body), {"AGENT_HOOKS_BRIDGE_WORKER": worker}, timeout=30)
        assert _decision(out) == ("deny", "no"), worker
        assert took < 20  # subprocess.run would time out (30 s) if the thread kept the process alive


def test_inline_mode_still_writes_one_answer_when_a_plugin_forks(tmp_path):
    body = HOSTILE["fork_allow_in_child"]
    _, out, _, _ = _run(tmp_path, json.dumps(event("PreToolUse", str(tmp_path))).encode(),
                        _hook_file(tmp_path, body), {"AGENT_HOOKS_BRIDGE_WORKER": "0"})
    assert _decision(out) == ("deny", "parent blocked")


@pytest.mark.parametrize("depth", [150, 1000, 100_000])
def test_deeply_nested_json_is_denied_not_a_traceback(tmp_path, depth):
    raw = ('{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~","x":'
           + "[" * depth + "]" * depth + "}}").encode()
    code, out, err, _ = _run(tmp_path, raw)
    assert code == 0 and "Traceback" not in err
    decision, reason = _decision(out)
    assert decision == "deny" and "nested deeper than 100 levels" in reason


def test_deeply_nested_json_on_a_non_gating_event_is_a_one_line_error(tmp_path):
    raw = ('{"hook_event_name":"Stop","x":' + "[" * 5000 + "]" * 5000 + "}").encode()
    code, out, err, _ = _run(tmp_path, raw, args=())
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "nested deeper than 100 levels" in err


def test_a_lone_surrogate_in_the_event_does_not_break_the_answer(tmp_path):
    body = "return {'block': True, 'reason': event.arguments['command']}"
    raw = json.dumps(event("PreToolUse", str(tmp_path), tool_input={"command": "rm \ud800"})).encode()
    code, out, err, _ = _run(tmp_path, raw, _hook_file(tmp_path, body))
    assert code == 0, err
    assert _decision(out) == ("deny", "rm \ud800")


def test_a_bad_option_on_a_gating_event_denies(tmp_path):
    raw = json.dumps(event("PreToolUse", str(tmp_path))).encode()
    code, out, _, _ = _run(tmp_path, raw, args=("--frobnicate",))
    decision, reason = _decision(out)
    assert (code, decision) == (0, "deny") and "unknown option '--frobnicate'" in reason


def test_oversized_input_is_refused(tmp_path, monkeypatch):
    import io

    from agent_hooks_core.bridges import claude_code
    from agent_hooks_core.transports import dispatch

    monkeypatch.setattr(dispatch, "MAX_EVENT_BYTES", 100)
    out, err = io.StringIO(), io.StringIO()
    raw = json.dumps(event("PreToolUse", str(tmp_path))).encode()
    assert len(raw) > 100
    assert claude_code.main(["--event", "PreToolUse"], stdin=io.BytesIO(raw), stdout=out, stderr=err) == 0
    assert "larger than" in json.loads(out.getvalue())["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize(("tool", "tool_input", "message"), [
    ("Bash", None, "PreToolUse: tool_input is missing"),
    ("Bash", {}, "Bash tool_input.command is missing"),
    ("Bash", {"command": ["bash", "-lc", "rm -rf /"]}, "Bash tool_input.command is a list, not a string"),
    ("Bash", {"command": 3}, "Bash tool_input.command is a number, not a string"),
    ("Bash", {"command": None}, "Bash tool_input.command is missing"),
    ("Bash", {"command": ""}, "Bash tool_input.command is empty"),
    ("Write", {"content": "x"}, "Write tool_input.file_path is missing"),
    ("WebFetch", {"url": {"href": "x"}}, "WebFetch tool_input.url is an object, not a string"),
])
def test_a_pre_tool_use_the_bridge_cannot_understand_is_denied(tmp_path, tool, tool_input, message):
    import io

    from agent_hooks_core.bridges import claude_code

    ev = event("PreToolUse", str(tmp_path), tool_name=tool, tool_input=tool_input)
    if tool_input is None:
        del ev["tool_input"]
    from agent_hooks_core import Runtime, hookimpl

    class Allower:
        @hookimpl
        def pre_tool(self, event):
            return None

    def factory(*, hooks, settings, **options):
        return Runtime(plugins=[("allower", Allower())], **options)

    out = io.StringIO()
    code = claude_code.main([], stdin=io.BytesIO(json.dumps(ev).encode()), stdout=out, stderr=io.StringIO(),
                            runtime_factory=factory)
    answer = json.loads(out.getvalue())["hookSpecificOutput"]
    assert (code, answer["permissionDecision"]) == (0, "deny") and message in answer["permissionDecisionReason"]


@pytest.mark.parametrize(("name", "forked"), [("PreToolUse", True),
                                              ("PostToolUse", False), ("Stop", False)])
def test_only_gating_events_pay_for_the_worker(tmp_path, name, forked):
    # the fork protects a decision; elsewhere the event is answered in the process the host started
    hook = tmp_path / "where.py"
    hook.write_text("import os\nfrom agent_hooks_core import hookimpl\n\n"
                    "def note(*_):\n    open(os.environ['WHERE'], 'a').write(str(os.getpid()) + '\\n')\n\n"
                    "pre_tool = hookimpl(note, specname='pre_tool')\npost_tool = hookimpl(note, specname='post_tool')\n"
                    "meta = hookimpl(note, specname='hook_called')\n")
    where = tmp_path / "pids"
    argv = [sys.executable, "-m", "agent_hooks_core", "claude-code", "--event", name, "--hook", str(hook)]
    env = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1", "WHERE": str(where)}
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                            env=env)
    _, err = proc.communicate(json.dumps(event(name, str(tmp_path))).encode(), timeout=60)
    assert proc.returncode == 0, err
    pids = {int(p) for p in where.read_text().split()}
    assert pids and (proc.pid not in pids) == forked, (pids, proc.pid)
