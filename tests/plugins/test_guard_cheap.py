"""The guard's event handlers are declared cheap (main thread under the SIGALRM watchdog, no worker
hand-off), its other hookimpls are not event handlers; and a cheap handler that blocks in
``ctx.exec`` (the guard's ``git rev-parse``) is still cut at its deadline, its child killed."""

from __future__ import annotations

import inspect
import os
import time
from typing import Any

import agent_hooks_guard
import pytest
from agent_hooks_core import Runtime, cheap, hookimpl
from agent_hooks_core.hookspecs.markers import PROJECT
from agent_hooks_core.timeouts import CHEAP

#: the guard's hookimpls -> declared cheap (the event handlers); the others run once, untimed
EXPECTED = {
    "pre_tool": True, "pre_shell_exec": True, "pre_file_read": True, "pre_file_write": True,
    "pre_fetch_url": True, "pre_api_tools": True, "pre_tool_output": True,
    "plugin_config_model": False, "register_commands": False,
}


def hookimpls() -> dict[str, Any]:
    return {name: fn for name, fn in inspect.getmembers(agent_hooks_guard, inspect.isfunction)
            if hasattr(fn, f"{PROJECT}_impl")}


def test_the_table_covers_every_hookimpl() -> None:
    assert set(hookimpls()) == set(EXPECTED)


@pytest.mark.parametrize(("name", "is_cheap"), sorted(EXPECTED.items()))
def test_guard_handler_is_cheap(name: str, is_cheap: bool) -> None:
    assert bool(getattr(hookimpls()[name], CHEAP, False)) is is_cheap, name


def test_a_cheap_handler_blocked_in_ctx_exec_is_cut_at_its_deadline(tmp_path: Any) -> None:
    pidfile = tmp_path / "pid"

    class Slow:
        @hookimpl
        @cheap
        def pre_tool(self, event: Any, ctx: Any) -> None:
            ctx.exec("sh", ["-c", f"echo $$ > {pidfile}; exec sleep 60"], timeout=60)

    rt = Runtime([("slow", Slow())], gate_timeout=0.5)  # as the transports set it (BRIDGE_GATE_TIMEOUT)
    start = time.monotonic()
    out = rt.fire("pre_tool", {"tool_name": "shell_exec", "arguments": {"command": "ls"}})
    assert time.monotonic() - start < 10
    assert out.decision == "blocked", "a gating handler that timed out fails closed"
    assert [(e.plugin, e.kind) for e in out.errors] == [("slow", "timeout")]
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped by ctx.exec, not left running
