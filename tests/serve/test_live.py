"""A host-embedded runtime that opts in (``LiveRuntime``) follows its settings like the server."""

from __future__ import annotations

import time
from pathlib import Path

from agent_hooks_core.serve.live import LiveRuntime

HOOK = """\
from agent_hooks_core import hookimpl

@hookimpl
def pre_tool(event, ctx):
    if event.arguments.get("command") == (ctx.config or {}).get("block"):
        return {"block": True, "reason": "blocked"}
"""


def test_the_embedded_runtime_follows_the_settings_and_keeps_the_last_good(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path))
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    hook = tmp_path / "blocker.py"
    hook.write_text(HOOK)
    settings = tmp_path / "settings.toml"
    settings.write_text('[plugins.blocker]\nblock = "one"\n')
    live = LiveRuntime(cwd=str(tmp_path), hook_paths=[str(hook)])

    def decision(command: str) -> str:
        return str(live.fire("pre_tool", {"tool_name": "Bash", "arguments": {"command": command}}).decision)

    assert decision("one") == "blocked" and decision("two") != "blocked"
    first = live.policy
    settings.write_text('[plugins.blocker]\nblock = "two"\n')
    written = time.monotonic()
    assert decision("two") == "blocked" and decision("one") != "blocked"  # the very next call
    assert time.monotonic() - written < 1.0 and live.policy != first
    settings.write_text('[plugins.blocker\n')  # does not load
    assert decision("two") == "blocked" and live.error is not None and "reload refused" in live.error
