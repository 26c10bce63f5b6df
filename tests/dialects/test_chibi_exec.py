"""``agenthooks chibi``: agent-hooks behaving as one chibi plugin executable.

Most tests run the real command in a subprocess, as chibi runs it, with ``--hook exec_plugin.py``
and entry-point autoload off. The in-process tests inject a runtime factory for what a subprocess
cannot easily provoke (an internal error).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.dialects import chibi_exec
from agent_hooks_core.dialects.chibi_plugins import load_directory

from tests.support.trusting import trust_user_hooks

PLUGIN = Path(__file__).with_name("exec_plugin.py")


class Run:
    def __init__(self, proc: subprocess.CompletedProcess[str], log: Path) -> None:
        self.code, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.calls = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture
def chibi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("CHIBI_TEST_LOG", str(log))
    for var in ("CHIBI_HOOK", "CHIBI_HOOK_DATA", "AGENT_HOOKS_CHIBI_EXEC"):
        monkeypatch.delenv(var, raising=False)

    def run(*args: str, hook: str | None = None, stdin: str = "", env_data: str | None = None,
            plugin: bool = True, before: tuple[str, ...] = ()) -> Run:
        env = dict(os.environ)
        if hook is not None:
            env["CHIBI_HOOK"] = hook
        if env_data is not None:
            env["CHIBI_HOOK_DATA"] = env_data
        if log.exists():
            log.unlink()
        argv = [*(("--hook", str(PLUGIN)) if plugin else ()), *args]
        proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", *before, "chibi", *argv], input=stdin,
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
        assert "Traceback" not in proc.stderr
        return Run(proc, log)

    return run


def test_schema_lists_the_chibi_names_of_implemented_hooks(chibi: Any) -> None:
    r = chibi("--schema")
    assert (r.code, r.stderr) == (0, "")
    assert r.json == {
        "name": "agent_hooks",
        "description": chibi_exec.DESCRIPTION,
        "parameters": {"type": "object", "properties": {}},
        # catalogue order; post_session_switch is chibi's on_context_switch; session_start is no chibi hook
        "hooks": ["on_context_switch", "pre_message", "pre_tool", "pre_api_tools", "pre_file_read"],
    }


def test_no_plugins_no_hooks(chibi: Any) -> None:
    assert chibi("--schema", plugin=False).json["hooks"] == []


def test_a_hook_call_with_the_payload_on_stdin(chibi: Any) -> None:
    r = chibi(hook="pre_tool", stdin=json.dumps({"tool_name": "shell_exec", "arguments": {"command": "rm -rf /"}}))
    assert (r.code, r.json) == (0, {"block": True, "message": "agent-hooks says no"})
    assert r.calls == [{"hook": "pre_tool", "host": "chibi",
                        "event": {"tool_name": "shell_exec", "arguments": {"command": "rm -rf /"}}}]
    r = chibi(hook="pre_tool", stdin=json.dumps({"tool_name": "shell_exec", "arguments": {"command": "ls"}}))
    assert (r.code, r.json) == (0, {})


def test_the_older_protocol_payload_in_chibi_hook_data(chibi: Any) -> None:
    r = chibi(hook="pre_message", env_data=json.dumps({"prompt": "hi", "context_name": "default"}))
    assert (r.code, r.json) == (0, {"prompt": "hi (checked)"})


def test_stdin_wins_over_chibi_hook_data(chibi: Any) -> None:
    r = chibi(hook="pre_message", stdin='{"prompt": "from stdin"}', env_data='{"prompt": "from env"}')
    assert r.json == {"prompt": "from stdin (checked)"}


def test_chibi_names_map_to_canonical_hooks(chibi: Any) -> None:
    r = chibi(hook="on_context_switch", stdin='{"from_context": "a", "to_context": "b", "is_transient": true}')
    assert (r.code, r.json) == (0, {})
    assert r.calls[0]["hook"] == "post_session_switch"
    assert r.calls[0]["event"] == {"from_context": "a", "to_context": "b", "is_transient": True}


def test_permission_and_filter_answers(chibi: Any) -> None:
    assert chibi(hook="pre_file_read", stdin='{"path": "/etc/shadow", "tool_name": "file_head"}').json == {
        "denied": True, "reason": "secret"}
    assert chibi(hook="pre_file_read", stdin='{"path": "/w/a.txt"}').json == {}  # chibi falls through
    tools = [{"name": "file_head"}, {"name": "file_grep"}]
    assert chibi(hook="pre_api_tools", stdin=json.dumps({"tools": tools})).json == {"exclude": ["file_grep"]}


@pytest.mark.parametrize("hook, answer", [
    ("pre_tool", {"block": True}),
    ("pre_file_read", {"denied": True}),
    ("pre_message", None),
])
def test_a_payload_that_is_not_json(chibi: Any, hook: str, answer: Any) -> None:
    r = chibi(hook=hook, stdin="{not json")
    assert r.code == 0
    assert r.stderr.count("\n") == 1 and "not JSON" in r.stderr
    if answer is None:
        assert r.json == {}
    else:
        assert {k: r.json[k] for k in answer} == answer and "fails closed" in json.dumps(r.json)


def test_a_payload_missing_a_required_field_fails_closed(chibi: Any) -> None:
    r = chibi(hook="pre_tool", stdin='{"arguments": {}}')
    assert r.code == 0 and r.json["block"] is True and "tool_name" in r.json["message"]


def test_broken_settings(chibi: Any, _isolated_home: Path) -> None:
    (_isolated_home / "settings.toml").write_text("hooks = [\n")
    r = chibi("--schema")
    assert (r.code, r.stdout) == (1, "")
    assert r.stderr.startswith("agenthooks chibi: cannot load the plugins:") and r.stderr.count("\n") == 1
    r = chibi(hook="pre_shell_exec", stdin='{"command": "ls"}')
    assert r.code == 0 and r.json["denied"] is True
    assert chibi(hook="post_message", stdin="{}").json == {}


def test_unknown_hook_and_plain_tool_calls(chibi: Any) -> None:
    r = chibi(hook="pre_teleport", stdin="{}")
    assert (r.code, r.json) == (0, {}) and "unknown chibi hook" in r.stderr
    r = chibi()
    assert r.code == 0 and "only handles chibi hooks" in r.stdout
    r = chibi("--bogus")
    assert r.code == 2 and "unknown argument" in r.stderr


def test_missing_paths_are_bad_input(chibi: Any) -> None:
    r = chibi("--schema", "--settings", "/nonexistent/settings.toml")
    assert (r.code, r.stdout) == (2, "")
    assert r.stderr == "agenthooks chibi: error: --settings /nonexistent/settings.toml: no such file or directory\n"
    r = chibi("--hook", "/nonexistent.py", hook="pre_tool", stdin='{"tool_name": "t"}')
    assert r.code == 0 and r.json["block"] is True  # called by chibi: still an answer, failing closed


def test_help(chibi: Any) -> None:
    r = chibi("--schema", "--help")
    assert r.code == 0 and r.stdout.startswith("usage: agenthooks chibi")


# -- through the typer app: global options before `chibi` ---------------------------------------------


def test_global_options_before_chibi(chibi: Any) -> None:
    r = chibi("--schema", plugin=False, before=("--hook", str(PLUGIN)))
    assert (r.code, r.stderr) == (0, "")
    assert r.json["hooks"] == ["on_context_switch", "pre_message", "pre_tool", "pre_api_tools", "pre_file_read"]
    r = chibi(hook="pre_message", stdin='{"prompt": "hi"}', plugin=False, before=("--hook", str(PLUGIN)))
    assert (r.code, r.json) == (0, {"prompt": "hi (checked)"})
    r = chibi("--help", plugin=False, before=("--hook", str(PLUGIN)))
    assert r.code == 0 and r.stdout.startswith("usage: agenthooks chibi")


def test_global_chibi_plugins_is_ignored_with_a_warning(chibi: Any, tmp_path: Path) -> None:
    d = wrapper_dir(tmp_path)
    r = chibi("--schema", before=("--chibi-plugins", str(d)))
    assert r.code == 0 and "pre_tool" in r.json["hooks"]
    assert "--chibi-plugins is ignored" in r.stderr
    assert not (tmp_path / "wrapper.log").exists()


def test_chibi_is_listed_in_the_help(chibi: Any) -> None:
    proc = subprocess.run([sys.executable, "-m", "agent_hooks_core", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"}, timeout=60)
    assert proc.returncode == 0
    assert any(line.strip("│ ").startswith("chibi ") for line in proc.stdout.splitlines())


def test_the_hook_path_stays_light(tmp_path: Path) -> None:
    """No typer, rich or pydantic on a chibi hook call (it is a fresh process per event)."""
    code = textwrap.dedent(f"""
        import io, json, sys, os
        from agent_hooks_core.dialects import chibi_exec
        os.environ["CHIBI_HOOK"] = "pre_tool"
        out = io.StringIO()
        chibi_exec.main(["--hook", {str(PLUGIN)!r}], stdin=io.StringIO('{{"tool_name": "t"}}'), stdout=out)
        chibi_exec.main(["--hook", {str(PLUGIN)!r}, "--schema"], stdout=out)
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("typer", "rich", "pydantic", "click")
                       or m in ("agent_hooks_core.hookspecs.models", "agent_hooks_core.cli"))
        print(json.dumps(heavy))
    """)
    env = {**os.environ, "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []


# -- in-process, injected runtime -------------------------------------------------------------------


class Exploding:
    """A runtime whose fire fails the way a bug of ours would."""

    load_errors: list[Any] = []

    def implementers(self, hook: str) -> list[str]:
        return ["x"]

    def fire(self, *args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("bug")


@pytest.mark.parametrize("hook, expected", [("pre_tool", "block"), ("pre_fetch_url", "denied"),
                                            ("post_tool", None)])
def test_an_internal_error_still_answers(monkeypatch: pytest.MonkeyPatch, hook: str, expected: str | None) -> None:
    monkeypatch.setenv("CHIBI_HOOK", hook)
    out, err = io.StringIO(), io.StringIO()
    code = chibi_exec.main([], runtime_factory=Exploding, stdin=io.StringIO('{"tool_name": "t"}'), stdout=out,
                           stderr=err)
    answer = json.loads(out.getvalue())
    assert code == 0 and "bug" in err.getvalue()
    if expected is None:
        assert answer == {}
    else:
        assert answer[expected] is True
    assert "AGENT_HOOKS_CHIBI_EXEC" not in os.environ  # restored after an in-process call


def test_schema_from_an_injected_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_hooks_core import hookimpl

    class P:
        @hookimpl
        def post_tool_batch(self, event: Any) -> Any:
            return {"fuel_delta": 1}

    out = io.StringIO()
    assert chibi_exec.main(["--schema"], runtime_factory=lambda: Runtime([P()]), stdout=out) == 0
    assert json.loads(out.getvalue())["hooks"] == ["post_tool_batch"]


# -- round trip: agenthooks as a chibi plugin, run by our own chibi plugin loader --------------------


def wrapper_dir(tmp_path: Path) -> Path:
    d = tmp_path / "chibi-plugins"
    d.mkdir()
    w = d / "agent_hooks"
    w.write_text(f'#!/bin/sh\necho run "$@" >> {tmp_path / "wrapper.log"}\n'
                 f'exec {sys.executable} -m agent_hooks_core chibi --hook {PLUGIN} "$@"\n')
    w.chmod(0o755)
    return d


def test_round_trip_through_the_chibi_protocol(chibi: Any, tmp_path: Path) -> None:
    d = wrapper_dir(tmp_path)
    rt = Runtime()
    load_directory(rt, d)
    assert rt.load_errors == []
    assert rt.plugin_info["chibi:agent_hooks"].chibi_hooks == [
        "on_context_switch", "pre_message", "pre_tool", "pre_api_tools", "pre_file_read"]
    out = rt.fire("pre_tool", {"tool_name": "shell_exec", "arguments": {"command": "rm -rf ~"}}, dialect="chibi")
    assert out.native == {"block": True, "message": "agent-hooks says no"}
    out = rt.fire("tool_call", {"toolName": "bash", "input": {"command": "rm -rf ~"}}, dialect="pi")
    assert out.native == {"block": True, "reason": "agent-hooks says no"}
    out = rt.fire("input", {"text": "hello", "source": "rpc"}, dialect="pi")
    assert out.native == {"action": "transform", "text": "hello (checked)"}


def test_a_chibi_plugin_dir_holding_the_wrapper_does_not_recurse(chibi: Any, tmp_path: Path,
                                                                 _isolated_home: Path) -> None:
    d = wrapper_dir(tmp_path)
    (_isolated_home / "settings.toml").write_text(f"chibi_plugins = {json.dumps(str(d))}\n")
    trust_user_hooks()
    r = chibi("--schema")
    assert r.code == 0 and "pre_tool" in r.json["hooks"]
    assert not (tmp_path / "wrapper.log").exists()  # agenthooks chibi did not run chibi's plugins
    r = chibi(hook="pre_tool", stdin='{"tool_name": "t", "arguments": {"command": "rm -rf /"}}')
    assert r.json["block"] is True
    assert not (tmp_path / "wrapper.log").exists()
