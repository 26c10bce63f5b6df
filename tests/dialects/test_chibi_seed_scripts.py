"""The example plugins printed in seeds 000 and 001, run unchanged as chibi subprocess plugins.

``chibi_plugins/seed000`` and ``chibi_plugins/seed001`` are verbatim copies of the scripts in the
seeds (bash with jq, and python). Each test fires the hook in the chibi dialect and checks the
result the seed documents for that script. Seed 000 plugins read ``CHIBI_HOOK_DATA``, seed 001
plugins read stdin: both protocols are served on every call.
"""

from __future__ import annotations

import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.dialects.chibi_plugins import load_directory

HERE = Path(__file__).parent / "chibi_plugins"
needs_jq = pytest.mark.skipif(
    shutil.which("jq") is None,
    reason="jq is not installed: the seeds' bash example plugins (logger, safety_guard, tool_filter) use it; "
           "install jq to run these (the python example plugins always run)",
)
TOOLS = [{"name": n, "type": t} for n, t in (
    ("update_todos", "builtin"), ("update_goals", "builtin"), ("update_reflection", "builtin"),
    ("send_message", "builtin"), ("file_head", "file"), ("file_tail", "file"), ("file_lines", "file"),
    ("file_grep", "file"), ("cache_list", "file"), ("my_plugin", "plugin"))]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME with ~/.chibi, where the logger example writes hook.log."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".chibi").mkdir()
    return tmp_path


def runtime(seed: str, *names: str, tmp_path: Path) -> Runtime:
    """A runtime with only the named example plugins of ``seed`` (copied, unchanged)."""
    d = tmp_path / f"plugins-{seed}"
    d.mkdir(exist_ok=True)
    for name in names:
        shutil.copy2(HERE / seed / name, d / name)
    rt = Runtime()
    load_directory(rt, d)
    assert rt.load_errors == []
    assert rt.plugins == [f"chibi:{n}" for n in sorted(names)]
    return rt


def test_the_copies_are_verbatim_and_executable() -> None:
    import os

    shared = Path(__file__).resolve().parents[3] / "shared" / "seeds"
    for seed, source in (("seed000", "000_966a9bae7833e53b.txt"), ("seed001", "001_113c2b64d9eebbf8.txt")):
        scripts = sorted(p.name for p in (HERE / seed).iterdir())
        assert scripts == sorted(["logger", "context_injector", "safety_guard", "tool_filter", "temp_override"]
                                 + (["guardrails"] if seed == "seed001" else []))
        for name in scripts:
            assert os.access(HERE / seed / name, os.X_OK)
            if (shared / source).exists():
                assert (HERE / seed / name).read_text() in (shared / source).read_text()


# -- python examples (no jq needed) -----------------------------------------------------------


@pytest.mark.parametrize("seed", ["seed000", "seed001"])
def test_context_injector_prefixes_a_timestamp(seed: str, tmp_path: Path) -> None:
    rt = runtime(seed, "context_injector", tmp_path=tmp_path)
    before = datetime.now()
    out = rt.fire("pre_message", {"prompt": "fix the bug", "context_name": "default", "summary": ""},
                  dialect="chibi")
    stamp, _, rest = out.native["prompt"].partition("\n")
    assert rest == "fix the bug"
    assert re.fullmatch(r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\]", stamp)
    assert before <= datetime.fromisoformat(stamp[1:-1]) <= datetime.now()
    assert out.errors == [] and out.answered == ["chibi:context_injector"]


@pytest.mark.parametrize("seed", ["seed000", "seed001"])
def test_temp_override(seed: str, tmp_path: Path) -> None:
    rt = runtime(seed, "temp_override", tmp_path=tmp_path)
    body = {"model": "anthropic/claude-sonnet-4", "messages": [], "temperature": 0.7, "max_tokens": 100}
    for context, expected in (("coding", 0.1), ("creative", 1.2)):
        out = rt.fire("pre_api_request", {"context_name": context, "request_body": body}, dialect="chibi")
        assert out.native == {"request_body": {"temperature": expected}}
        assert out.data == {"request_body": {**body, "temperature": expected}}  # merged, not replaced
    out = rt.fire("pre_api_request", {"context_name": "default", "request_body": body}, dialect="chibi")
    assert (out.native, out.errors) == ({}, [])


def test_guardrails_forces_the_user_after_a_dangerous_batch(tmp_path: Path) -> None:
    rt = runtime("seed001", "guardrails", tmp_path=tmp_path)
    payload = {"context_name": "default", "fuel_remaining": 3, "fuel_total": 20, "current_fallback": "call_agent",
               "tool_calls": [{"name": "file_head", "arguments": {}}, {"name": "shell_exec", "arguments": {}}]}
    out = rt.fire("post_tool_batch", payload, dialect="chibi")
    assert out.native == {"fallback": "call_user", "fuel_delta": -5}
    assert out.data["fuel"] == 0  # saturating: 3 - 5 stops at 0
    payload["tool_calls"] = [{"name": "file_head", "arguments": {}}]
    out = rt.fire("post_tool_batch", payload, dialect="chibi")
    assert (out.native, out.errors) == ({}, [])


# -- bash examples (jq) ------------------------------------------------------------------------


@needs_jq
@pytest.mark.parametrize("seed, tool", [("seed000", "run_command"), ("seed001", "shell_exec")])
def test_safety_guard_blocks_rm_rf(seed: str, tool: str, tmp_path: Path) -> None:
    rt = runtime(seed, "safety_guard", tmp_path=tmp_path)
    out = rt.fire("pre_tool", {"tool_name": tool, "arguments": {"command": "rm -rf /tmp/x"}}, dialect="chibi")
    assert out.native == {"block": True, "message": "Blocked: rm -rf commands are not allowed"}
    assert out.decision == "blocked"
    for args in ({"command": "ls -la"}, {}):
        out = rt.fire("pre_tool", {"tool_name": tool, "arguments": args}, dialect="chibi")
        assert (out.native, out.errors, out.decision) == ({}, [], "allowed")
    out = rt.fire("pre_tool", {"tool_name": "read_file", "arguments": {"command": "rm -rf /"}}, dialect="chibi")
    assert out.native == {}


@needs_jq
@pytest.mark.parametrize("seed, safe", [("seed000", ["update_todos", "update_goals"]),
                                        ("seed001", ["update_goals", "update_reflection"])])
def test_tool_filter(seed: str, safe: list[str], tmp_path: Path) -> None:
    rt = runtime(seed, "tool_filter", tmp_path=tmp_path)
    out = rt.fire("pre_api_tools", {"context_name": "safe", "tools": TOOLS}, dialect="chibi")
    assert out.native == {"include": safe}
    assert [t["name"] for t in out.data["tools"]] == safe
    out = rt.fire("pre_api_tools", {"context_name": "default", "tools": TOOLS}, dialect="chibi")
    assert out.native == {"exclude": ["file_head", "file_tail", "file_lines", "file_grep"]}
    assert [t["name"] for t in out.data["tools"]] == ["update_todos", "update_goals", "update_reflection",
                                                      "send_message", "cache_list", "my_plugin"]


@needs_jq
@pytest.mark.parametrize("seed", ["seed000", "seed001"])
def test_logger_logs_every_event_and_has_no_opinion(seed: str, home: Path, tmp_path: Path) -> None:
    rt = runtime(seed, "logger", tmp_path=tmp_path)
    calls = [("on_start", {"chibi_home": str(home / ".chibi"), "project_root": "/w", "tool_count": 3}),
             ("pre_message", {"prompt": "hi", "context_name": "default", "summary": ""}),
             ("post_message", {"prompt": "hi", "response": "hello", "context_name": "default"}),
             ("on_end", {})]
    for hook, payload in calls:
        out = rt.fire(hook, payload, dialect="chibi")
        assert (out.native, out.errors) == ({}, [])
    log = (home / ".chibi" / "hook.log").read_text()
    assert re.findall(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (\w+)$", log, re.M) == [h for h, _ in calls]
    assert '  "prompt": "hi",\n  "context_name": "default"' in log  # the payload, pretty-printed by jq
    assert '  "response": "hello"' in log


@needs_jq
def test_the_whole_seed001_directory_together(home: Path, tmp_path: Path) -> None:
    """All six examples loaded at once, as chibi would: each answers only its own hooks."""
    rt = Runtime()
    load_directory(rt, HERE / "seed001")
    assert rt.load_errors == []
    assert sorted(rt.implementers("pre_message")) == ["chibi:context_injector", "chibi:logger"]
    out = rt.fire("pre_tool", {"tool_name": "shell_exec", "arguments": {"command": "rm -rf ~"}}, dialect="chibi")
    assert out.native["block"] is True
    out = rt.fire("pre_message", {"prompt": "p"}, dialect="chibi")
    assert out.native["prompt"].endswith("\np")
    assert (home / ".chibi" / "hook.log").read_text().count("pre_message") == 1
