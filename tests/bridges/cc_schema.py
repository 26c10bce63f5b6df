"""The shape Claude Code 2.1.330 accepts for ``hooks`` in a settings file (docs/hosts/protocols.md A2).

``problems(settings)`` lists what Claude Code would reject; empty means accepted.
"""

from __future__ import annotations

from typing import Any

from agent_hooks_core.bridges.claude_code_install import HOOK_EVENTS

#: fields of a ``type: "command"`` handler and their types
COMMAND_FIELDS: dict[str, type | tuple[type, ...]] = {
    "type": str, "command": str, "args": list, "shell": str, "timeout": (int, float), "statusMessage": str,
    "async": bool, "asyncRewake": bool, "once": bool, "if": str, "onFailure": str,
}


#: fields of a ``type: "http"`` handler (docs/hosts/protocols.md A2; G for allowedEnvVars and onFailure)
HTTP_FIELDS: dict[str, type | tuple[type, ...]] = {
    "type": str, "url": str, "headers": dict, "allowedEnvVars": list, "timeout": (int, float),
    "statusMessage": str, "async": bool, "if": str, "onFailure": str,
}


def _http_problems(h: dict[str, Any], hw: str) -> list[str]:
    found = []
    for key, value in h.items():
        kind = HTTP_FIELDS.get(key)
        if kind is None:
            found.append(f"{hw}.{key}: unknown field")
        elif not isinstance(value, kind) or (isinstance(value, bool) and kind == (int, float)):
            found.append(f"{hw}.{key}: wrong type")
    if not str(h.get("url", "")).startswith(("http://", "https://")):
        found.append(f"{hw}.url: required, http(s)")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in (h.get("headers") or {}).items()):
        found.append(f"{hw}.headers: must map strings to strings")
    if h.get("onFailure", "continue") not in ("continue", "block"):
        found.append(f"{hw}.onFailure: must be continue or block")
    return found


def problems(settings: Any) -> list[str]:
    found: list[str] = []
    if not isinstance(settings, dict):
        return ["settings must be an object"]
    hooks = settings.get("hooks")
    if hooks is None:
        return found
    if not isinstance(hooks, dict):
        return ["hooks must be an object"]
    for event, groups in hooks.items():
        where = f"hooks.{event}"
        if event not in HOOK_EVENTS:
            found.append(f"{where}: unknown event")
        if not isinstance(groups, list):
            found.append(f"{where}: must be a list")
            continue
        for i, group in enumerate(groups):
            gw = f"{where}[{i}]"
            if not isinstance(group, dict) or set(group) - {"matcher", "hooks"}:
                found.append(f"{gw}: must be {{matcher?, hooks}}")
                continue
            if "matcher" in group and not isinstance(group["matcher"], str):
                found.append(f"{gw}.matcher: must be a string")
            handlers = group.get("hooks")
            if not isinstance(handlers, list) or not handlers:
                found.append(f"{gw}.hooks: must be a non-empty list")
                continue
            for j, h in enumerate(handlers):
                hw = f"{gw}.hooks[{j}]"
                if isinstance(h, dict) and h.get("type") == "http":
                    found.extend(_http_problems(h, hw))
                    continue
                if not isinstance(h, dict) or h.get("type") != "command":
                    found.append(f"{hw}: expected a command handler")
                    continue
                for key, value in h.items():
                    kind = COMMAND_FIELDS.get(key)
                    if kind is None:
                        found.append(f"{hw}.{key}: unknown field")
                    elif not isinstance(value, kind) or (isinstance(value, bool) and kind == (int, float)):
                        found.append(f"{hw}.{key}: wrong type")
                if not h.get("command"):
                    found.append(f"{hw}.command: required")
                if "args" in h and not all(isinstance(a, str) for a in h["args"]):
                    found.append(f"{hw}.args: must be strings")
                if "timeout" in h and not h["timeout"] > 0:
                    found.append(f"{hw}.timeout: must be positive")
                if h.get("onFailure", "continue") not in ("continue", "block"):
                    found.append(f"{hw}.onFailure: must be continue or block")
                if "shell" in h and h["shell"] not in ("bash", "powershell"):
                    found.append(f"{hw}.shell: must be bash or powershell")
    return found
