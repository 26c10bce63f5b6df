"""The seeds' example hooks under examples/hooks/, each doing what its seed says."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import threading
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from agent_hooks_core import NoUI, Runtime

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hooks"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def runtime(name: str, tmp_path: Path, config: dict[str, Any] | None = None, **kw: Any) -> Runtime:
    return Runtime(plugins=[(name, load(name))], cwd=str(tmp_path),
                   plugin_config={name: config} if config else None, **kw)


class SelectUI(NoUI):
    def __init__(self, answer: str | None) -> None:
        super().__init__()
        self.answer = answer
        self.selects: list[tuple[str, list[str]]] = []

    def select(self, title: str, options: list[str]) -> str | None:
        self.selects.append((title, options))
        return self.answer


def test_every_example_loads_through_discovery_as_a_hook_file(tmp_path: Path) -> None:
    files = sorted(EXAMPLES.glob("*.py"))
    assert len(files) == 12
    rt = Runtime.from_settings(cwd=str(tmp_path), hook_paths=[str(f) for f in files], autoload=False)
    assert rt.load_errors == []
    assert sorted(rt.plugins) == sorted(f.stem for f in files)


# -- chibi (seeds 000/001) -------------------------------------------------------------------


def test_logger_writes_each_event_to_its_log(tmp_path: Path) -> None:
    log = tmp_path / "hook.log"
    rt = runtime("logger", tmp_path, {"path": str(log)})
    rt.fire("on_start", {"current_context": "default"})
    out = rt.fire("pre_message", {"prompt": "hello", "context_name": "default"})
    rt.fire("post_message", {"prompt": "hello", "response": "hi"})
    rt.fire("on_end", {})
    assert out.decision == "allowed" and out.errors == []
    text = log.read_text()
    assert [line.split("] ")[1] for line in text.splitlines() if line.startswith("[")] == [
        "on_start", "pre_message", "post_message", "on_end"]
    assert '"prompt": "hello"' in text


def test_logger_defaults_to_the_project_directory(tmp_path: Path) -> None:
    runtime("logger", tmp_path).fire("on_start", {})
    assert "on_start" in (tmp_path / ".agent-hooks" / "hook.log").read_text()


def test_context_injector_prefixes_the_time(tmp_path: Path) -> None:
    out = runtime("context_injector", tmp_path).fire("pre_message", {"prompt": "fix the bug"})
    stamp, prompt = out.data["prompt"].split("\n", 1)
    assert prompt == "fix the bug"
    assert abs((datetime.fromisoformat(stamp.strip("[]")) - datetime.now()).total_seconds()) < 60


@pytest.mark.parametrize("tool, command, decision", [
    ("shell_exec", "rm -rf build", "blocked"),
    ("run_command", "cd x && rm -rf y", "blocked"),
    ("shell_exec", "rm -r -f build", "allowed"),  # the seed's substring check, as written
    ("read_file", "rm -rf /", "allowed"),
])
def test_safety_guard(tmp_path: Path, tool: str, command: str, decision: str) -> None:
    out = runtime("safety_guard", tmp_path).fire("pre_tool", {"tool_name": tool, "arguments": {"command": command}})
    assert out.decision == decision
    if decision == "blocked":
        assert out.data["message"] == "Blocked: rm -rf commands are not allowed"


def test_tool_filter(tmp_path: Path) -> None:
    tools = [{"name": n, "type": "builtin"} for n in
             ("update_todos", "update_goals", "update_reflection", "file_head", "file_grep", "my_plugin")]
    rt = runtime("tool_filter", tmp_path)
    safe = rt.fire("pre_api_tools", {"tools": tools, "context_name": "safe"})
    assert [t["name"] for t in safe.data["tools"]] == ["update_goals", "update_reflection"]
    other = rt.fire("pre_api_tools", {"tools": tools, "context_name": "default"})
    assert [t["name"] for t in other.data["tools"]] == ["update_todos", "update_goals", "update_reflection",
                                                        "my_plugin"]


@pytest.mark.parametrize("context, temperature", [("coding", 0.1), ("creative", 1.2), ("default", 0.7)])
def test_temp_override_patches_only_the_temperature(tmp_path: Path, context: str, temperature: float) -> None:
    body = {"model": "m", "temperature": 0.7, "messages": [{"role": "user", "content": "hi"}]}
    out = runtime("temp_override", tmp_path).fire("pre_api_request", {"request_body": body, "context_name": context})
    expected = {**body, "temperature": temperature}
    assert (out.data.get("request_body") or body) == expected


def test_guardrails_falls_back_to_the_user_after_a_dangerous_tool(tmp_path: Path) -> None:
    rt = runtime("guardrails", tmp_path)
    risky = rt.fire("post_tool_batch", {"fuel_remaining": 12, "tool_calls": [
        {"name": "file_head", "arguments": {}}, {"name": "shell_exec", "arguments": {"command": "make"}}]})
    assert risky.data["fallback"] == "call_user" and risky.data["fuel_delta"] == -5 and risky.data["fuel"] == 7
    calm = rt.fire("post_tool_batch", {"fuel_remaining": 12, "tool_calls": [{"name": "file_head"}]})
    assert "fuel_delta" not in calm.data


# -- pi and omp (seeds 002/004) ------------------------------------------------------------------


@pytest.mark.parametrize("answer, decision", [("Yes", "allowed"), ("No", "blocked"), (None, "blocked")])
def test_permission_gate_asks(tmp_path: Path, answer: str | None, decision: str) -> None:
    ui = SelectUI(answer)
    out = runtime("permission_gate", tmp_path, ui=ui).fire(
        "pre_tool", {"tool_name": "bash", "arguments": {"command": "sudo rm -rf /var/cache"}})
    assert out.decision == decision
    assert ui.selects[0][1] == ["Yes", "No"] and "sudo rm -rf /var/cache" in ui.selects[0][0]
    if decision == "blocked":
        assert out.reason == "Blocked by user"


def test_permission_gate_leaves_harmless_commands_alone(tmp_path: Path) -> None:
    ui = SelectUI("No")
    out = runtime("permission_gate", tmp_path, ui=ui).fire(
        "pre_tool", {"tool_name": "bash", "arguments": {"command": "chmod 644 README.md"}})
    assert out.decision == "allowed" and ui.selects == []


@pytest.mark.parametrize("tool, path, decision", [
    ("write", ".env", "blocked"), ("edit", "repo/.git/config", "blocked"),
    ("write", "web/node_modules/x/index.js", "blocked"), ("write", "src/app.ts", "allowed"),
    ("read", ".env", "allowed"),
])
def test_protected_paths(tmp_path: Path, tool: str, path: str, decision: str) -> None:
    ui = NoUI()
    out = runtime("protected_paths", tmp_path, ui=ui).fire("pre_tool", {"tool_name": tool, "arguments": {"path": path}})
    assert out.decision == decision
    if decision == "blocked":
        assert out.reason == f'Path "{path}" is protected'
        assert ui.notifications == [("warning", f"Blocked write to protected path: {path}")]


def test_git_checkpoint_restores_a_turns_code_with_real_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a",
                       "GIT_COMMITTER_EMAIL": "a@x", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}.items():
        monkeypatch.setenv(var, value)

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    (tmp_path / "app.py").write_text("v1\n")
    git("add", "app.py")
    git("commit", "-qm", "v1")
    ui = SelectUI("Yes, restore code to that point")
    module = load("git_checkpoint")
    rt = Runtime(plugins=[("git_checkpoint", module)], cwd=str(tmp_path), ui=ui)

    (tmp_path / "app.py").write_text("v2: the state at turn 3\n")
    rt.fire("turn_start", {"turn_index": 3})
    ref = module.checkpoints(rt.context("git_checkpoint"))[3]
    assert git("cat-file", "-t", ref).strip() == "commit"
    git("reset", "-q", "--hard")  # the model's later work is thrown away
    assert (tmp_path / "app.py").read_text() == "v1\n"

    out = rt.fire("pre_session_fork", {"target_turn_index": 3})
    assert out.errors == []
    assert ui.selects == [("Restore code state?", ["Yes, restore code to that point", "No, keep current code"])]
    assert (tmp_path / "app.py").read_text() == "v2: the state at turn 3\n"
    assert ("info", "Code restored to checkpoint") in ui.notifications

    rt.fire("agent_end", {})
    assert module.checkpoints(rt.context("git_checkpoint")) == {}


def test_git_checkpoint_outside_a_repository_does_nothing(tmp_path: Path) -> None:
    ui = SelectUI("Yes, restore code to that point")
    rt = runtime("git_checkpoint", tmp_path, ui=ui)
    assert rt.fire("turn_start", {"turn_index": 0}).errors == []
    assert rt.fire("pre_session_fork", {"target_turn_index": 0}).errors == [] and ui.selects == []


def test_redact_api_keys_in_read_output(tmp_path: Path) -> None:
    rt = runtime("redact_api_keys", tmp_path)
    content = [{"type": "text", "text": "API_KEY=abc123\nDEBUG=1"}, {"type": "image", "data": "API_KEY=x"}]
    out = rt.fire("pre_tool_output", {"tool_name": "read", "content": content, "details": {"lines": 2}})
    assert out.data["content"] == [{"type": "text", "text": "API_KEY=[REDACTED]\nDEBUG=1"}, content[1]]
    chibi = rt.fire("pre_tool_output", {"tool_name": "read", "output": "x API_KEY=s3cret y"})
    assert chibi.data["output"] == "x API_KEY=[REDACTED] y"
    assert rt.fire("pre_tool_output", {"tool_name": "read", "output": "API_KEY=1", "is_error": True}).decision == "allowed"
    assert rt.fire("pre_tool_output", {"tool_name": "bash", "output": "API_KEY=1"}).decision == "allowed"


def test_filter_debug_messages_leaves_the_session_untouched(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "hi"},
                {"role": "custom", "customType": "debug-only", "content": "trace"},
                {"role": "custom", "custom_type": "debug-only", "content": "trace 2"},
                {"role": "custom", "customType": "note", "content": "keep"}]
    original = json.loads(json.dumps(messages))
    out = runtime("filter_debug_messages", tmp_path).fire("pre_llm_context", {"messages": messages})
    assert out.data["messages"] == [messages[0], messages[3]]
    assert messages == original


def test_external_trigger_injects_what_is_written_to_the_trigger_file(tmp_path: Path) -> None:
    trigger = tmp_path / "trigger.txt"
    received: list[dict[str, Any]] = []
    arrived = threading.Event()

    def on_send(message: dict[str, Any]) -> None:
        received.append(message)
        arrived.set()

    ui = NoUI()
    rt = runtime("external_trigger", tmp_path, {"trigger_file": str(trigger), "interval": 0.01}, ui=ui,
                 on_send_message=on_send)
    rt.fire("session_start", {"reason": "startup"})
    assert ("info", f"Watching {trigger}") in ui.notifications
    tmp = tmp_path / "trigger.tmp"
    tmp.write_text("Run the tests\n")
    os.replace(tmp, trigger)  # appear at once, as `echo ... > file` nearly does
    assert arrived.wait(10), "the watcher never sent the message"
    rt.fire("on_end", {})
    assert received == [{"text": "External trigger: Run the tests", "plugin": "external_trigger"}]
    assert trigger.read_text() == ""


def test_external_trigger_check_once_without_a_file_or_with_an_empty_one(tmp_path: Path) -> None:
    module = load("external_trigger")
    rt = Runtime(plugins=[("external_trigger", module)], plugin_config={
        "external_trigger": {"trigger_file": str(tmp_path / "t.txt")}})
    ctx = rt.context("external_trigger")
    assert module.check(ctx) is None
    (tmp_path / "t.txt").write_text("  \n")
    assert module.check(ctx) is None and rt.outbox == []
    (tmp_path / "t.txt").write_text("CI failed")
    assert module.check(ctx) == "CI failed" and rt.outbox[-1]["text"] == "External trigger: CI failed"
