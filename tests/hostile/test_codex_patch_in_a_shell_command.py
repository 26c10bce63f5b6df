"""Codex applies a patch handed to ``apply_patch`` inside a shell command itself (a heredoc or an
argument), so the write never comes as an apply_patch tool call: the file write gate must see it
on the shell call, in every form the model can write it."""

from __future__ import annotations

import pytest
from agent_hooks_core.bridges.codex.adapter import ADAPTER

from tests.bridges.hostkit_support import Scripted, payloads, runtime

PATCH = "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+rm -rf /\n*** End Patch\n"


@pytest.mark.parametrize("command", [
    f"apply_patch <<'EOF'\n{PATCH}EOF\n",                # heredoc
    f"apply_patch '{PATCH}'",                            # one argument
    f"cd sub && apply_patch <<'EOF'\n{PATCH}EOF\n",      # after another command
    ["apply_patch", PATCH],                              # argv (older shells)
])
def test_a_patch_in_a_shell_command_goes_through_the_file_write_gate(command, tmp_path):
    gate = Scripted(pre_file_write={"denied": True, "reason": "not there"})
    event = {**payloads("codex")["PreToolUse"], "cwd": str(tmp_path), "tool_input": {"command": command}}
    answer = ADAPTER.handle(runtime(gate, cwd=str(tmp_path)), event)
    assert answer.blocked and "not there" in answer.body["hookSpecificOutput"]["permissionDecisionReason"], answer
    assert [e["path"] for h, e in gate.calls] == [str(tmp_path / ".git/hooks/pre-commit")]
