"""What ``ctx`` offers: host state, the UI (seed 002's no-UI behaviour), exec, messages, the status line."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import HookContext, NoUI, Runtime, StatusLine
from agent_hooks_core.context import run_command

from .helpers import plugin


def _ctx(**options: Any) -> HookContext:
    got: list[HookContext] = []
    rt = Runtime([plugin("p", on_start=lambda ctx: got.append(ctx))], **options)
    rt.fire("on_start", {})
    return got[0]


def test_ctx_follows_the_host_state(tmp_path: Path) -> None:
    ctx = _ctx(cwd=str(tmp_path), session_file="/s/1.jsonl", session_id="abc", host="pi",
               plugin_config={"p": {"mode": "observe"}})
    assert (ctx.cwd, ctx.session_file, ctx.session_id, ctx.host) == (str(tmp_path), "/s/1.jsonl", "abc", "pi")
    assert ctx.config == {"mode": "observe"} and ctx.plugin == "p"
    assert ctx.has_ui is False and isinstance(ctx.ui, NoUI)
    ctx.runtime.session_file = "/s/2.jsonl"  # the host switched sessions
    assert ctx.session_file == "/s/2.jsonl"
    ctx.runtime.set_config("p", {"mode": "enforce"})
    assert ctx.config == {"mode": "enforce"}
    assert "plugin='p'" in repr(ctx)


def test_ctx_without_config_is_empty_and_cwd_defaults_to_the_process() -> None:
    ctx = _ctx()
    assert ctx.config == {} and ctx.cwd == os.getcwd() and ctx.session_file is None


@pytest.mark.parametrize(("call", "expected"), [
    (lambda ui: ui.select("Pick one:", ["A", "B"]), None),
    (lambda ui: ui.confirm("Delete?", "cannot be undone"), False),
    (lambda ui: ui.input("Name:", "default"), None),
    (lambda ui: ui.editor("Edit", "prefill"), None),
    (lambda ui: ui.notify("done", "info"), None),
    (lambda ui: ui.set_status("k", "text"), None),
    (lambda ui: ui.set_editor_text("x"), None),
    (lambda ui: ui.get_editor_text(), ""),
    (lambda ui: ui.custom("anything"), None),
])
def test_no_ui_answers_like_seed_002(call: Any, expected: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert call(_ctx().ui) == expected
    assert capsys.readouterr() == ("", "")  # no-op: nothing is shown


def test_a_host_ui_is_passed_through() -> None:
    class HostUI(NoUI):
        def confirm(self, title: str, message: str) -> bool:
            return True

    ui = HostUI()
    ctx = _ctx(ui=ui)
    assert ctx.ui is ui and ctx.has_ui is True and ctx.ui.confirm("t", "m") is True
    assert _ctx(ui=ui, has_ui=False).has_ui is False  # e.g. an RPC host that relays nothing


def test_exec_returns_stdout_stderr_code(tmp_path: Path) -> None:
    ctx = _ctx(cwd=str(tmp_path))
    result = ctx.exec(sys.executable, ["-c", "import os,sys; print(os.getcwd()); print('err', file=sys.stderr); sys.exit(3)"])
    assert result.stdout.strip() == str(tmp_path) and result.stderr.strip() == "err"
    assert result.code == 3 and result.killed is False
    missing = ctx.exec("/no/such/command")
    assert missing.code == 127 and "No such file" in missing.stderr and not missing.killed


def test_exec_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild-survived"
    grandchild = f"import time; time.sleep(1.5); open({str(marker)!r}, 'w')"
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {grandchild!r}])\n"
        "print('started', flush=True)\n"
        "time.sleep(30)\n"
    )
    start = time.monotonic()
    result = run_command(sys.executable, ["-c", script], timeout=0.5)
    assert time.monotonic() - start < 5
    assert result.killed is True and result.code != 0 and "started" in result.stdout
    time.sleep(1.5)
    assert not marker.exists(), "the grandchild outlived the timeout"


def test_send_message_and_append_entry_go_to_the_host() -> None:
    sent: list[dict[str, Any]] = []

    def handler(event: Any, ctx: HookContext) -> None:
        ctx.send_message("External trigger: run the tests", source="watcher")
        ctx.append_entry("my-state", {"count": 1})

    rt = Runtime([plugin("p", agent_end=handler)], on_send_message=sent.append)
    rt.fire("agent_end", {})
    assert sent == [{"text": "External trigger: run the tests", "plugin": "p", "source": "watcher"}]
    assert rt.entries == [{"custom_type": "my-state", "data": {"count": 1}, "plugin": "p"}]
    assert rt.outbox == []  # went to the host's callback instead


# -- the status line (seed 002) -----------------------------------------------------------------------

@pytest.mark.parametrize(("sets", "width", "line"), [
    ([("b", "beta"), ("a", "alpha")], None, "alpha · beta"),                 # sorted by key
    ([("k", "one\ntwo\tthree\r four")], None, "one two three four"),         # sanitized
    ([("k", "a    b")], None, "a b"),                                        # spaces collapsed
    ([("k", "x"), ("k", "y")], None, "y"),                                   # per key: last text
    ([("k", "x"), ("k", None)], None, ""),                                   # None clears
    ([("k", "x"), ("k", "")], None, ""),                                     # "" clears
    ([("a", "alpha"), ("b", "beta")], 8, "alpha ·…"),                        # width-truncated
    ([("a", "alpha")], 5, "alpha"),
    ([("a", "alpha")], 0, ""),
])
def test_status_line(sets: list[tuple[str, str | None]], width: int | None, line: str) -> None:
    status = StatusLine()
    for key, text in sets:
        status.set(key, text)
    assert status.render(width) == line


def test_set_status_from_a_handler_reaches_the_status_line() -> None:
    ui = NoUI()
    rt = Runtime([plugin("p", turn_start=lambda event, ctx: ctx.ui.set_status("p", f"turn {event.turn_index}"))],
                 ui=ui, has_ui=False)
    rt.fire("turn_start", {"turn_index": 3})
    assert ui.status.render() == "turn 3"
