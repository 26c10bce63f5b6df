"""What a settings file may say: its keys, which of them are policy or code, the defaults, and
how plugin names compare."""

from __future__ import annotations

import re

from ..errors import AgentHooksError

LIST_KEYS = ("disabled", "enabled", "order", "hooks", "required")
KNOWN_KEYS = frozenset({*LIST_KEYS, "hook_timeout", "timeouts", "chibi_plugins", "plugins", "organisation",
                        "serve", "stop_gate_limit"})  # [serve] port: docs/serve.md
#: keys whose values make the runtime load code: in a project file they need `agenthooks trust`
CODE_KEYS = ("hooks", "chibi_plugins")
#: keys that can weaken a gating plugin (switch it off, reconfigure it, change its time limit):
#: in a project file they apply only once the project is trusted (the agent can write that file)
POLICY_KEYS = ("disabled", "plugins", "hook_timeout", "timeouts", "stop_gate_limit")
#: the keys an organisation file may set (no code: it is fetched, not reviewed)
ORG_KEYS = frozenset({"disabled", "required", "plugins"})
#: why a plugin shipped off until enabled is not loaded
OFF_UNTIL_ENABLED = "off until enabled (`agenthooks plugins enable {name}`)"
#: the built-in per-handler time limit (seconds); the runtime's DEFAULT_TIMEOUT, kept equal by a test
DEFAULT_HOOK_TIMEOUT = 30.0
#: continuations in a row the stop gate may win per session; the runtime's default, kept equal by a test
DEFAULT_STOP_GATE_LIMIT = 3


class SettingsError(AgentHooksError):
    """A settings file cannot be read: one line naming the file (and line) and what is wrong."""


def normalize_name(name: str) -> str:
    """Plugin and distribution names compare like PyPI names: case-insensitive, ``-_.`` alike."""
    return re.sub(r"[-_.]+", "-", name).lower()
