"""End to end: a fresh venv with core, guard and audit installed from their wheels.

``agenthooks install claude-code --project`` writes a settings file Claude Code accepts; each
installed entry is run exactly as Claude Code would run it (``command`` + ``args``, the event on
stdin, the project as cwd); the guard denies ``rm -rf ~`` and lets ``ls`` through; every event
lands in the audit store.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .cc_schema import problems
from .payloads import SAMPLES, event

#: canonical hooks each wired event must leave in the audit store (host events: by event name)
EXPECTED_HOOKS = {
    "SessionStart": ["on_start", "session_start"], "UserPromptSubmit": ["pre_message"],
    "PreToolUse": ["pre_tool", "pre_shell_exec"], "PostToolUse": ["pre_tool_output", "post_tool"],
    "PostToolUseFailure": ["pre_tool_output", "post_tool"], "PostToolBatch": ["post_tool_batch"],
    "SubagentStart": ["pre_spawn_agent"], "SubagentStop": ["post_spawn_agent"], "Stop": ["agent_end"],
    "PreCompact": ["pre_compact"], "PostCompact": ["post_compact"], "SessionEnd": ["on_end"],
    "PermissionRequest": ["permission_request"],
}
HOST_EVENTS = ["UserPromptExpansion", "PermissionDenied", "Notification", "StopFailure"]


@pytest.mark.slow
def test_install_guard_and_audit_in_a_fresh_venv(fresh_venv, tmp_path: Path):
    venv = fresh_venv("agent-hooks-core", "agent-hooks-guard", "agent-hooks-audit")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "AGENT_HOOKS_HOME": str(home / "agent-hooks"), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".local" / "state"),
           "XDG_CACHE_HOME": str(home / ".cache")}
    agenthooks = venv.bin("agenthooks")

    r = venv.run(agenthooks, "install", "claude-code", "--project", "--transport", "command", cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert problems(settings) == []
    entries = {name: groups[0]["hooks"][0] for name, groups in settings["hooks"].items()}
    # the stable launcher (outside the venv, absolute) that runs this venv's interpreter
    launcher = Path(entries["PreToolUse"]["command"])
    assert launcher.is_absolute() and not launcher.is_relative_to(venv.path) and os.access(launcher, os.X_OK)
    assert f"PY={venv.python}" in launcher.read_text()
    assert entries["PreToolUse"]["onFailure"] == "block"

    def claude_code_runs(ev: dict) -> tuple[int, dict | None, str]:
        entry = entries[ev["hook_event_name"]]
        proc = venv.run(entry["command"], *entry["args"], input=json.dumps(ev), cwd=project, env=env)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else None), proc.stderr

    code, reply, err = claude_code_runs(event("PreToolUse", str(project),
                                              tool_input={"command": "rm -rf ~", "description": "clean up"}))
    assert code == 0, err
    out = reply["hookSpecificOutput"]
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
    assert "[guard:" in out["permissionDecisionReason"]  # the guard's own reason, rule id included

    assert claude_code_runs(event("PreToolUse", str(project), tool_input={"command": "ls"}))[:2] == (0, None)

    for name in SAMPLES:
        if name in entries and name != "PreToolUse":
            code, _, err = claude_code_runs(event(name, str(project), session_id="e2e-session"))
            assert code == 0, f"{name}: {err}"

    r = venv.run(agenthooks, "audit", "export", "--format", "jsonl", cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    text = r.stdout
    hooks = {row.get("hook") for row in rows}
    for name, expected in EXPECTED_HOOKS.items():
        for hook in expected:
            assert hook in hooks, f"{name}: no {hook} row in the audit store"
    for name in HOST_EVENTS:
        assert f'"{name}"' in text, f"{name} is not in the audit store"
    assert "e2e-session" in text and "claude-code" in text
