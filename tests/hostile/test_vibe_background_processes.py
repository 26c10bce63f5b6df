"""Mistral Vibe 3.0.2's run_typescript reaches tools the model is not offered directly: a background
process (``tools.process.start``) runs a command, and ``tools.process.write`` types into a running
one. Each is a shell command by another door, so each goes through the shell gate."""

from __future__ import annotations

import pytest
from agent_hooks_core.bridges.vibe.adapter import ADAPTER

from tests.bridges.hostkit_support import guard_runtime, payloads

SAMPLES = payloads("vibe")


@pytest.mark.parametrize(("tool", "arguments"), [
    ("process.start", {"command": "rm -rf ~"}),                           # a background command
    ("process.write", {"processId": "p1", "text": "rm -rf ~\n"}),         # typed into a running shell
    ("process.write", {"processId": "p1", "bytesBase64": "cm0gLXJmIH4K"}),  # the same, as bytes
])
def test_run_typescripts_background_processes_go_through_the_shell_gate(tool, arguments, tmp_path):
    event = {**SAMPLES["pre_tool"], "tool_name": tool, "tool_input": arguments}
    answer = ADAPTER.handle(guard_runtime(str(tmp_path)), event)
    assert answer.blocked and "[guard:rm-broad]" in answer.body["reason"], answer
