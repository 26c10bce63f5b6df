"""chibi subprocess plugins run by agent-hooks: protocol, order, failures, timeouts, schema cache.

Every plugin here is a real executable (a small Python script) run as a subprocess.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import Runtime, hookimpl
from agent_hooks_core.dialects.chibi_plugins import ENV_DATA_LIMIT, SchemaCache, load_directory

HEADER = f"#!{sys.executable}\nimport json, os, sys\n"


def plugin(directory: Path, name: str, hooks: list[str] | None, body: str, *, schema: Any = None) -> Path:
    """Write an executable chibi plugin answering ``--schema`` and running ``body`` on hook calls.

    ``body`` sees ``hook`` (CHIBI_HOOK), ``data`` (stdin JSON, or None) and ``env_data``
    (CHIBI_HOOK_DATA, or None); it prints the answer. Every run appends one line to ``runs.log``.
    """
    directory.mkdir(parents=True, exist_ok=True)
    if schema is None:
        schema = {"name": name, "description": f"test plugin {name}",
                  "parameters": {"type": "object", "properties": {}}, "hooks": hooks}
    schema_code = f"print({json.dumps(json.dumps(schema))})" if not isinstance(schema, str) else schema
    path = directory / name
    path.write_text(HEADER + textwrap.dedent(f"""
        log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs.log")
        with open(log, "a") as fh:
            fh.write(json.dumps([{name!r}, sys.argv[1:], os.environ.get("CHIBI_HOOK")]) + "\\n")
        if sys.argv[1:] == ["--schema"]:
            {schema_code}
            sys.exit(0)
        hook = os.environ.get("CHIBI_HOOK")
        raw = sys.stdin.read()
        data = json.loads(raw) if raw.strip() else None
        env_data = os.environ.get("CHIBI_HOOK_DATA")
    """) + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def runs(directory: Path) -> list[list[Any]]:
    log = directory / "runs.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def loaded(directory: Path, *plugins: Any, **options: Any) -> Runtime:
    rt = Runtime(list(plugins), **options)
    load_directory(rt, directory)
    return rt


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


# -- protocol -------------------------------------------------------------------------------------


def test_payload_on_stdin_and_in_chibi_hook_data(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "echo", ["pre_tool"], """
        json.dump({"hook": hook, "stdin": data, "env": json.loads(env_data)}, open(sys.argv[0] + ".seen", "w"))
        print("{}")
    """)
    rt = loaded(d)
    payload = {"tool_name": "shell_exec", "arguments": {"command": "ls"}, "extra": [1, 2]}
    out = rt.fire("pre_tool", payload, dialect="chibi")
    assert (out.native, out.errors, out.handlers) == ({}, [], ["chibi:echo"])
    seen = json.loads((d / "echo.seen").read_text())
    assert seen["hook"] == "pre_tool"
    assert seen["stdin"] == seen["env"] == payload  # unknown fields travel too


def test_a_large_payload_goes_on_stdin_only(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "big", ["pre_api_request"], """
        print(json.dumps({"request_body": {"n": len(data["request_body"]["messages"]), "env": env_data is not None}}))
    """)
    rt = loaded(d)
    messages = ["x" * 100] * (ENV_DATA_LIMIT // 100 + 10)
    out = rt.fire("pre_api_request", {"request_body": {"messages": messages}}, dialect="chibi")
    assert out.errors == []
    assert out.native == {"request_body": {"n": len(messages), "env": False}}


def test_chibi_names_are_used_on_the_wire(tmp_path: Path) -> None:
    """on_context_switch is canonical post_session_switch; the plugin sees chibi's name."""
    d = tmp_path / "p"
    plugin(d, "sw", ["on_context_switch"], 'print("{}")')
    rt = loaded(d)
    assert rt.implementers("post_session_switch") == ["chibi:sw"]
    rt.fire("post_session_switch", {"from_context": "a", "to_context": "b"})
    rt.fire("on_context_switch", {"from_context": "a", "to_context": "b"}, dialect="chibi")
    assert [r[2] for r in runs(d) if r[1] == []] == ["on_context_switch", "on_context_switch"]


def test_answers_translate_to_canonical_and_back_to_pi(tmp_path: Path) -> None:
    """A pi host's tool_result reaches a chibi plugin as `output` text; its answer returns as content."""
    d = tmp_path / "p"
    plugin(d, "redact", ["pre_tool_output"], """
        print(json.dumps({"output": data["output"].replace("hunter2", "***"), "unknown_field": 1}))
    """)
    rt = loaded(d)
    out = rt.fire("tool_result", {"toolName": "read", "toolCallId": "c", "input": {},
                                  "content": [{"type": "text", "text": "pw=hunter2"}], "isError": False},
                  dialect="pi")
    assert out.errors == []  # chibi ignores fields it does not know; so do we
    assert out.native == {"content": [{"type": "text", "text": "pw=***"}]}


def test_null_is_no_opinion(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "n", ["pre_message"], 'print("null")')
    out = loaded(d).fire("pre_message", {"prompt": "x"}, dialect="chibi")
    assert (out.native, out.errors) == ({}, [])


# -- order and re-entrancy -------------------------------------------------------------------------


class InProcess:
    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def pre_message(self, event: Any, ctx: Any) -> Any:
        self.calls += 1
        if self.calls == 1:  # fire the same hook from inside its handler
            inner = ctx.runtime.fire("pre_message", {"prompt": "inner"})
            self.inner = inner
        return {"prompt": event.prompt + " +py"}


def test_subprocess_plugins_run_first_and_still_run_on_reentrant_calls(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "sub", ["pre_message"], 'print(json.dumps({"prompt": data["prompt"] + " +sub"}))')
    py = InProcess()
    rt = loaded(d, ("py", py))  # the in-process plugin was registered first, and still runs second
    out = rt.fire("pre_message", {"prompt": "outer"}, dialect="chibi")
    assert out.handlers == ["chibi:sub", "py"]
    assert out.native == {"prompt": "outer +sub +py"}
    assert py.inner.handlers == ["chibi:sub"]  # re-entrant: only the subprocess plugin
    assert py.inner.data == {"prompt": "inner +sub"}
    assert any("re-entrant" in n for n in py.inner.notes)


# -- failures --------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, message", [
    ('sys.stderr.write("boom\\n"); sys.exit(3)', "exited with status 3: boom"),
    ('print("this is not json")', "not JSON"),
    ('print("[1, 2]")', "not an object"),
    ("pass", "printed nothing"),
])
def test_a_failing_plugin_is_recorded_and_skipped(tmp_path: Path, body: str, message: str) -> None:
    d = tmp_path / "p"
    plugin(d, "bad", ["pre_message", "pre_tool"], body)
    plugin(d, "good", ["pre_message", "pre_tool"], """
        print(json.dumps({"prompt": "ok"} if hook == "pre_message" else {}))
    """)
    rt = loaded(d)
    out = rt.fire("pre_message", {"prompt": "x"}, dialect="chibi")
    assert out.native == {"prompt": "ok"}
    assert [(e.plugin, e.kind) for e in out.errors] == [("chibi:bad", "error")]
    assert message in out.errors[0].message
    # pre_tool fails closed: the same failure blocks, and the reason names the plugin
    out = rt.fire("pre_tool", {"tool_name": "t"}, dialect="chibi")
    assert out.native["block"] is True and "chibi:bad" in out.native["message"]
    assert out.handlers == ["chibi:bad"]


def test_a_failing_permission_plugin_denies(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "bad", ["pre_shell_exec"], "sys.exit(1)")
    out = loaded(d).fire("pre_shell_exec", {"command": "ls"}, dialect="chibi")
    assert out.native["denied"] is True and "chibi:bad" in out.native["reason"]


HANG = """
    import subprocess
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(sys.argv[0] + ".pids", "w") as fh:
        fh.write(f"{os.getpid()} {child.pid}")
    time.sleep(60)
"""


@pytest.mark.parametrize("where", ["main thread", "worker thread"])
def test_a_hung_plugin_is_killed_with_its_process_group(tmp_path: Path, where: str) -> None:
    d = tmp_path / "p"
    plugin(d, "hang", ["post_message"], "import time\n" + textwrap.dedent(HANG))
    rt = loaded(d, hook_timeout=1.0)
    box: dict[str, Any] = {}
    if where == "main thread":
        box["out"] = rt.fire("post_message", {"prompt": "x"}, dialect="chibi")
    else:
        worker = threading.Thread(target=lambda: box.update(out=rt.fire("post_message", {}, dialect="chibi")))
        worker.start()
        worker.join(10)
    out = box["out"]
    # a timeout error (not "printed nothing" after the plugin's 60 s) shows it was stopped at the timeout
    assert [(e.plugin, e.kind) for e in out.errors] == [("chibi:hang", "timeout")]
    assert out.native == {}
    pids = [int(p) for p in (d / "hang.pids").read_text().split()]
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # the kill is synchronous; this only waits for the kernel to reap
    assert not any(alive(p) for p in pids), "the plugin or its child survived"


def test_a_hung_pre_tool_plugin_blocks_after_its_timeout(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "hang", ["pre_tool"], "import time\ntime.sleep(60)")
    rt = Runtime(timeouts={"pre_tool": 0.5})
    load_directory(rt, d)
    out = rt.fire("tool_call", {"toolName": "bash", "input": {}}, dialect="pi")
    assert out.native["block"] is True and "timed out" in out.native["reason"]


# -- loading ---------------------------------------------------------------------------------------


def test_load_problems_are_recorded_and_the_rest_loads(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "a_broken_schema", None, "", schema='print("nope")')
    plugin(d, "b_failing_schema", None, "", schema="sys.exit(2)")
    plugin(d, "c_tool_only", [], 'print("{}")')
    plugin(d, "d_partly_unknown", ["pre_message", "pre_teleport"], 'print("{}")')
    plugin(d, "e_good", ["on_start"], 'print("{}")')
    (d / "README.md").write_text("not a plugin")
    (d / ".hidden").write_text("#!/bin/sh\n")
    (d / ".hidden").chmod(0o755)
    rt = loaded(d)
    assert rt.plugins == ["chibi:d_partly_unknown", "chibi:e_good"]
    errors = {e.plugin: e for e in rt.load_errors}
    assert set(errors) == {"chibi:a_broken_schema", "chibi:b_failing_schema", "chibi:d_partly_unknown"}
    assert all(e.kind == "load" for e in rt.load_errors)
    assert "not JSON" in errors["chibi:a_broken_schema"].message
    assert "exited with status 2" in errors["chibi:b_failing_schema"].message
    assert "'pre_teleport'" in errors["chibi:d_partly_unknown"].message
    info = {k: v.to_dict() for k, v in rt.plugin_info.items()}
    assert set(info) == {f"chibi:{n}" for n in ("a_broken_schema", "b_failing_schema", "c_tool_only",
                                                 "d_partly_unknown", "e_good")}
    assert info["chibi:e_good"]["status"] == "loaded" and info["chibi:e_good"]["source"] == "chibi"
    assert info["chibi:e_good"]["path"] == str(d / "e_good")
    assert info["chibi:d_partly_unknown"]["hooks"] == ["pre_message"]
    assert info["chibi:d_partly_unknown"]["chibi_hooks"] == ["pre_message"]
    assert info["chibi:c_tool_only"]["status"] == "disabled"
    assert info["chibi:a_broken_schema"]["status"] == "failed"


def test_a_missing_directory_is_a_load_error(tmp_path: Path) -> None:
    rt = loaded(tmp_path / "nowhere")
    assert [e.kind for e in rt.load_errors] == ["load"] and rt.plugins == []


def test_inside_agenthooks_chibi_nothing_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "p"
    plugin(d, "x", ["on_start"], 'print("{}")')
    monkeypatch.setenv("AGENT_HOOKS_CHIBI_EXEC", "1")
    rt = loaded(d)
    assert (rt.plugins, rt.load_errors, runs(d)) == ([], [], [])


def test_schemas_are_cached_until_the_file_changes(tmp_path: Path) -> None:
    d = tmp_path / "p"
    path = plugin(d, "x", ["on_start"], 'print("{}")')
    cache_file = tmp_path / "schemas.json"

    def schema_runs() -> int:
        return sum(1 for r in runs(d) if r[1] == ["--schema"])

    for _ in range(3):
        rt = Runtime()
        load_directory(rt, d, cache=SchemaCache(cache_file))
        assert rt.implementers("on_start") == ["chibi:x"]
    assert schema_runs() == 1
    path.write_text(path.read_text().replace("on_start", "on_end"))  # changed: other size and mtime
    rt = Runtime()
    load_directory(rt, d, cache=SchemaCache(cache_file))
    assert schema_runs() == 2
    assert rt.implementers("on_start") == [] and rt.implementers("on_end") == ["chibi:x"]


def test_the_default_cache_lives_in_the_user_dir(tmp_path: Path, _isolated_home: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "x", ["on_start"], 'print("{}")')
    loaded(d)
    cached = json.loads((_isolated_home / "cache" / "chibi-schemas.json").read_text())
    assert cached[str(d / "x")]["schema"]["hooks"] == ["on_start"]


def test_a_plugin_can_have_its_own_timeout(tmp_path: Path) -> None:
    d = tmp_path / "p"
    plugin(d, "slow", ["pre_tool"], "import time\ntime.sleep(60)")
    rt = Runtime()
    load_directory(rt, d, timeout=0.3)  # the runtime's own pre_tool timeout is none
    out = rt.fire("pre_tool", {"tool_name": "x"})
    assert out.decision == "blocked" and out.errors[0].kind == "timeout"
    assert os.path.exists(d / "runs.log")
