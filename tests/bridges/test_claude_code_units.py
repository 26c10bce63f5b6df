"""Pieces of the Claude Code bridge that the event table does not reach."""

from __future__ import annotations

import io
import json

import pytest
from agent_hooks_core import Runtime, hookimpl
from agent_hooks_core.bridges import claude_code
from agent_hooks_core.bridges.claude_code import cap, main, parse_args, replace_text, response_text

from .payloads import event


def run(ev, *plugins, factory=None, argv=()):
    out, err = io.StringIO(), io.StringIO()

    def make(*, hooks, settings, **options):
        return Runtime(plugins=list(plugins), **options)

    code = main(list(argv), stdin=io.BytesIO(json.dumps(ev).encode()), stdout=out, stderr=err,
                runtime_factory=factory or make)
    return code, (json.loads(out.getvalue()) if out.getvalue() else None), err.getvalue()


def decision(reply):
    return reply["hookSpecificOutput"]["permissionDecision"] if reply else None


class AsyncAsker:
    @hookimpl
    async def pre_tool(self, event, ctx):
        if not ctx.ui.confirm("rm?", event.arguments["command"]):
            return {"block": True, "reason": "asked"}


class MethodAsker:
    def _helper(self, ctx):
        return ctx.ui.confirm("sure?", "")

    @hookimpl
    def pre_shell_exec(self, event, ctx):
        if not self._helper(ctx):
            return {"denied": True, "reason": "asked in a helper"}


class SneakyAsker:
    """Asks through another plugin's UI call, then denies without asking itself."""

    @hookimpl
    def pre_tool(self, event, ctx):
        return {"block": True, "reason": "plain deny"}


class Bystander:
    @hookimpl(tryfirst=True)
    def pre_tool(self, event, ctx):
        ctx.ui.confirm("just curious", "")  # asks but does not block


def test_async_handler_ask_is_attributed(tmp_path):
    code, reply, _ = run(event("PreToolUse", str(tmp_path)), ("a", AsyncAsker()))
    assert (code, decision(reply)) == (0, "ask")


def test_ask_from_a_helper_method_is_attributed(tmp_path):
    _, reply, _ = run(event("PreToolUse", str(tmp_path)), ("m", MethodAsker()))
    assert decision(reply) == "ask"
    assert reply["hookSpecificOutput"]["permissionDecisionReason"] == "asked in a helper"


def test_another_plugins_ask_does_not_soften_a_deny(tmp_path):
    _, reply, _ = run(event("PreToolUse", str(tmp_path)), ("b", Bystander()), ("s", SneakyAsker()))
    assert decision(reply) == "deny"


def test_a_confirm_outside_any_handler_counts_for_nobody():
    ui = claude_code.ClaudeCodeUI()
    ui.runtime = Runtime()
    assert ui.confirm("t", "m") is False
    assert ui.asks[0].plugin is None and not ui.asked(None, 0)


def test_a_runtime_that_cannot_be_built_denies_pre_tool_use(tmp_path):
    def broken(**options):
        raise RuntimeError("settings.toml: bad value")

    code, reply, err = run(event("PreToolUse", str(tmp_path)), factory=broken)
    assert (code, decision(reply)) == (0, "deny")
    assert "could not load the plugins: RuntimeError: settings.toml: bad value" in (
        reply["hookSpecificOutput"]["permissionDecisionReason"])
    code, reply, err = run(event("Stop", str(tmp_path)), factory=broken)
    assert (code, reply) == (1, None)
    assert err == "agenthooks claude-code: error (Stop): could not load the plugins: RuntimeError: settings.toml: bad value\n"


def test_a_plugin_calling_sys_exit_still_gets_an_answer(tmp_path):
    class Exiter:
        @hookimpl
        def pre_tool(self, event):
            raise SystemExit(0)

    code, reply, _ = run(event("PreToolUse", str(tmp_path)), ("x", Exiter()))
    assert (code, decision(reply)) == (0, "deny")


def test_factory_gets_the_event_context(tmp_path):
    seen = {}

    def factory(**options):
        seen.update(options)
        return Runtime()

    run(event("PreToolUse", str(tmp_path)), factory=factory, argv=["--hook", "x.py", "--settings", "s.toml"])
    assert seen["cwd"] == str(tmp_path) and seen["host"] == "claude-code" and seen["session_id"] == "abc"
    assert seen["session_file"].endswith("abc.jsonl") and seen["has_ui"] is False
    assert seen["hooks"] == ["x.py"] and seen["settings"] == "s.toml"
    assert isinstance(seen["ui"], claude_code.ClaudeCodeUI)


def test_a_missing_cwd_falls_back_to_the_process_cwd(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.chdir(tmp_path)
    run(event("Stop", str(tmp_path / "gone")), factory=lambda **o: seen.update(o) or Runtime())
    assert seen["cwd"] == str(tmp_path)


def test_help():
    out = io.StringIO()
    assert main(["--help"], stdout=out) == 0 and out.getvalue().startswith("usage: agenthooks claude-code")


@pytest.mark.parametrize(("argv", "message"), [
    (["--hook"], "--hook needs a value"), (["--on-rewrite", "deny"], "--on-rewrite must be ask or allow"),
    (["stray"], "unknown option 'stray'"),
])
def test_parse_args_errors(argv, message):
    with pytest.raises(claude_code.UsageError, match=message):
        parse_args(argv)


def test_parse_args():
    opts = parse_args(["--hook", "a.py", "--hook=b.py", "--settings=s", "--event", "Stop", "--on-rewrite=allow",
                       "--ask"])
    assert (opts.hooks, opts.settings, opts.event, opts.on_rewrite) == (["a.py", "b.py"], "s", "Stop", "allow")
    assert opts.ask and not opts.help and not parse_args([]).ask


def test_cap():
    assert cap("abc") == "abc"
    long = cap("y" * 10_001)
    assert len(long) == 10_000 and long.endswith("to fit Claude Code's 10,000-character limit]")
    assert cap("z" * 50, limit=40).count("z") < 40


@pytest.mark.parametrize(("tool", "response", "text"), [
    ("Bash", {"stdout": "out", "stderr": "err", "interrupted": False, "isImage": False}, "out\nerr"),
    ("Read", {"type": "text", "file": {"filePath": "/a", "content": "body", "numLines": 1}}, "body"),
    ("WebFetch", {"bytes": 3, "code": 200, "result": "summary", "url": "u"}, "summary"),
    ("Grep", {"mode": "content", "content": "a:1:x", "numFiles": 1}, "a:1:x"),
    ("Glob", {"filenames": ["/a", "/b"], "numFiles": 2}, "/a\n/b"),
    ("mcp__s__t", [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}], "one\ntwo"),
    ("Task", "plain", "plain"),
    ("Write", {"filePath": "/a", "success": True}, '{"filePath": "/a", "success": true}'),
    ("X", None, None),
])
def test_response_text(tool, response, text):
    assert response_text(tool, response) == text


def test_replace_text_keeps_the_shape():
    read = {"type": "text", "file": {"filePath": "/a", "content": "body", "numLines": 1}}
    assert replace_text("Read", read, "new") == {"type": "text", "file": {"filePath": "/a", "content": "new",
                                                                          "numLines": 1}}
    assert replace_text("WebFetch", {"result": "r", "code": 200}, "n") == {"result": "n", "code": 200}
    assert replace_text("Write", {"filePath": "/a", "success": True}, "n") is None
    assert replace_text("Task", "old", "n") == "n"


def test_bridge_module_keeps_heavy_imports_off_the_hot_path():
    import subprocess
    import sys

    code = ("import sys, agent_hooks_core.bridges.claude_code as m; "
            "bad = [n for n in ('typer', 'rich', 'pydantic', 'agent_hooks_core.hookspecs.models', "
            "'agent_hooks_core.cli') if n in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
