"""Wiring ``agenthooks claude-code`` into Claude Code's settings files, and checking the wiring.

Used by ``agenthooks install|uninstall claude-code`` (``cli/hosts.py``) and by ``agenthooks doctor``
(:func:`status`). Plain functions over JSON; no typer here.

Our entries are recognised by their command (the ``agenthooks`` script, or ``python -m
agent_hooks_core``, followed by ``claude-code``), never by position, so the user's own hooks and
every other setting stay as they are. Installing twice changes nothing; uninstalling removes only
our handlers (and the groups and event lists that become empty because of it).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: every hook event Claude Code 2.1.330 knows (``HOOK_EVENTS`` in the agent SDK)
HOOK_EVENTS = (
    "SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
    "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "SubagentStart", "SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact", "SessionEnd",
    "MessageDisplay", "PreModelSwitch", "PostModelSwitch", "Setup", "InstructionsLoaded", "TaskCreated",
    "TaskCompleted", "TeammateIdle", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged",
    "WorktreeCreate", "WorktreeRemove", "Elicitation", "ElicitationResult",
)

#: the events we wire: every lifecycle event with a canonical hook, plus the ones audit should see.
#: Left out: MessageDisplay (one process per streamed line), file/cwd/worktree/task/config events.
EVENTS = (
    "SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
    "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "SubagentStart", "SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact", "SessionEnd",
)

#: events whose matcher is the tool name: we match every tool
TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure"})

#: seconds Claude Code waits for us; SessionEnd raises Claude Code's exit budget to this
TIMEOUT = 60
TIMEOUTS = {"SessionEnd": 5}

SCOPES = ("user", "project", "local")

_SHELL_FORM = re.compile(r"(?:\bagenthooks(?:\.exe)?[\"']?|\bagent_hooks_core)\s+claude-code\b")


class InstallError(Exception):
    """Something the user must fix; ``str()`` is one line."""


# -- where and what ----------------------------------------------------------------------


def claude_config_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR`` if set, else ``~/.claude``."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else Path.home() / ".claude"


def settings_path(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
    """The Claude Code settings file of ``scope`` (user, project or local)."""
    if scope == "user":
        return claude_config_dir() / "settings.json"
    base = Path(project_dir) if project_dir is not None else Path.cwd()
    if scope == "project":
        return base / ".claude" / "settings.json"
    if scope == "local":
        return base / ".claude" / "settings.local.json"
    raise InstallError(f"unknown scope {scope!r}: use user, project or local")


def bridge_command() -> tuple[str, list[str]]:
    """(command, args before ``claude-code``) that runs this environment's bridge.

    The ``agenthooks`` script next to this interpreter when there is one, else ``python -m
    agent_hooks_core`` with this interpreter. Absolute paths, unresolved (a venv's python is a
    symlink that must stay inside the venv), so the hook works whatever Claude Code's PATH is.
    """
    name = "agenthooks.exe" if os.name == "nt" else "agenthooks"
    scripts = sysconfig.get_path("scripts")
    if scripts:
        script = Path(scripts) / name
        if script.is_file() and os.access(script, os.X_OK):
            return str(script.absolute()), []
    return str(Path(sys.executable).absolute()), ["-m", "agent_hooks_core"]


def handler(event: str, command: str, prefix: list[str], ask: bool = False) -> dict[str, Any]:
    """Our handler entry for ``event`` (exec form: ``command`` + ``args``).

    ``ask``: PreToolUse runs with ``--ask`` (plugins that ask with a UI make Claude Code ask).
    """
    extra = ["--ask"] if ask and event == "PreToolUse" else []
    entry: dict[str, Any] = {"type": "command", "command": command,
                             "args": [*prefix, "claude-code", "--event", event, *extra],
                             "timeout": TIMEOUTS.get(event, TIMEOUT)}
    if event == "PreToolUse":
        entry["onFailure"] = "block"  # a crash or timeout of ours blocks the tool (fail-closed)
    return entry


def group(event: str, command: str, prefix: list[str], ask: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {"matcher": "*"} if event in TOOL_EVENTS else {}
    entry["hooks"] = [handler(event, command, prefix, ask)]
    return entry


def is_ours(entry: Any) -> bool:
    """True for a handler that runs ``agenthooks claude-code`` (any environment)."""
    if not isinstance(entry, dict) or entry.get("type", "command") != "command":
        return False
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    args = entry.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        if "claude-code" not in args:
            return False
        base = os.path.basename(command.replace("\\", "/")).lower()
        if base in ("agenthooks", "agenthooks.exe"):
            return True
        return "-m" in args and "agent_hooks_core" in args and args.index("agent_hooks_core") < args.index("claude-code")
    return bool(_SHELL_FORM.search(command))


# -- merging -----------------------------------------------------------------------------


def _hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" must be an object; nothing was changed")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} must be a list; nothing was changed")
    return hooks


def merged(settings: dict[str, Any], command: str, prefix: list[str], path: Path = Path("settings.json"),
           events: tuple[str, ...] = EVENTS, ask: bool = False) -> dict[str, Any]:
    """``settings`` with our entries for ``events``, in place of any earlier ones of ours."""
    new = json.loads(json.dumps(settings))
    hooks = _hooks_of(new, path)
    for event in events:
        want = group(event, command, prefix, ask)
        groups = hooks.setdefault(event, [])
        placed = False
        for i, g in enumerate(list(groups)):
            inner = g.get("hooks") if isinstance(g, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h) for h in inner):
                continue
            others = [h for h in inner if not is_ours(h)]
            if placed:
                g["hooks"] = others
            elif not others:  # our own group: replace it whole, where it stands
                groups[i] = want
                placed = True
            else:  # the user put us in a group with their own handlers: swap just ours
                at = next(j for j, h in enumerate(inner) if is_ours(h))
                others.insert(at, want["hooks"][0])
                g["hooks"] = others
                placed = True
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not placed:
            groups.append(want)
    new["hooks"] = hooks
    return new


def removed(settings: dict[str, Any], path: Path = Path("settings.json")) -> dict[str, Any]:
    """``settings`` without any handler of ours; groups and events emptied by that go too."""
    new = json.loads(json.dumps(settings))
    if "hooks" not in new:
        return new
    hooks = _hooks_of(new, path)
    for event in list(hooks):
        groups = hooks[event]
        touched = False
        for g in groups:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if isinstance(inner, list) and any(is_ours(h) for h in inner):
                g["hooks"] = [h for h in inner if not is_ours(h)]
                touched = True
        if touched:
            groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
            if not groups:
                del hooks[event]
                if not hooks:
                    del new["hooks"]
    return new


# -- reading and writing settings files --------------------------------------------------


def read_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    """(settings, the file's text or None when it does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix or move it, nothing was changed") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} must hold a JSON object; nothing was changed")
    return data, text


def dump(settings: dict[str, Any], like: str | None = None) -> str:
    """JSON text, indented like the file it replaces (two spaces by default)."""
    indent: int | str = 2
    if like:
        m = re.search(r"\n([ \t]+)\S", like)
        if m:
            ws = m.group(1)
            indent = len(ws) if set(ws) == {" "} else ws
    return json.dumps(settings, indent=indent, ensure_ascii=False) + "\n"


@dataclass
class Plan:
    """A change to one settings file, not yet made."""

    path: Path
    old: str | None
    """the file's text, None when it does not exist"""
    new: str | None
    """the text to write, None for no change"""

    @property
    def changed(self) -> bool:
        return self.new is not None and self.new != self.old

    def diff(self) -> str:
        old = (self.old or "").splitlines(keepends=True)
        fromfile = str(self.path) if self.old is not None else "/dev/null"
        new = (self.new or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, fromfile, str(self.path)))

    @property
    def backup_path(self) -> Path:
        return self.path.with_name(self.path.name + ".agenthooks.bak")

    def apply(self) -> Path | None:
        """Write the new text atomically; returns the backup of the old file (None if there was none)."""
        if self.new is None or not self.changed:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        backup = None
        mode = None
        if self.old is not None:
            backup = self.backup_path
            shutil.copy2(self.path, backup)
            mode = self.path.stat().st_mode & 0o7777
        from ..fileio import atomic_write

        atomic_write(self.path, self.new, mode)
        return backup


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None,
                 command: tuple[str, list[str]] | None = None, ask: bool = False) -> Plan:
    path = settings_path(scope, project_dir)
    settings, old = read_settings(path)
    cmd, prefix = command or bridge_command()
    new = merged(settings, cmd, prefix, path, ask=ask)
    if old is not None and new == settings:
        return Plan(path, old, None)
    return Plan(path, old, dump(new, old))


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Plan:
    path = settings_path(scope, project_dir)
    settings, old = read_settings(path)
    new = removed(settings, path)
    if old is None or new == settings:
        return Plan(path, old, None)
    return Plan(path, old, dump(new, old))


# -- doctor ------------------------------------------------------------------------------


@dataclass
class Check:
    ok: bool
    message: str

    def __str__(self) -> str:
        return f"{'ok' if self.ok else 'warning'}: {self.message}"


def _our_handlers(settings: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for g in groups if isinstance(groups, list) else []:
            inner = g.get("hooks") if isinstance(g, dict) else None
            for h in inner if isinstance(inner, list) else []:
                if is_ours(h):
                    found.setdefault(event, []).append(h)
    return found


def check(cwd: str | os.PathLike[str] | None = None) -> list[Check]:
    """Is Claude Code wired to this environment's ``agenthooks``, in which files, and is it current?"""
    command, prefix = bridge_command()
    results: list[Check] = []
    wired: list[str] = []
    commands: set[str] = set()
    events_seen: set[str] = set()
    for scope in SCOPES:
        path = settings_path(scope, cwd)
        flag = f"--{scope}"
        where = f"Claude Code {scope} settings ({path})"
        try:
            settings, _ = read_settings(path)
        except InstallError as exc:
            results.append(Check(False, str(exc)))
            continue
        if settings.get("disableAllHooks") is True:
            results.append(Check(False, f"{where}: disableAllHooks is true, so no hook runs"))
        ours = _our_handlers(settings)
        if not ours:
            continue
        wired.append(scope)
        commands.update(json.dumps(h, sort_keys=True) for hs in ours.values() for h in hs)
        events_seen.update(ours)
        problems = []
        missing = [e for e in EVENTS if e not in ours]
        if missing:
            problems.append(f"not wired for {', '.join(missing)}")
        for event, handlers in ours.items():
            if len(handlers) > 1:
                problems.append(f"{event} runs agenthooks {len(handlers)} times")
            for h in handlers:
                if h not in (handler(event, command, prefix), handler(event, command, prefix, True)) \
                        and event in EVENTS:
                    cmd = h.get("command", "")
                    if isinstance(cmd, str) and os.path.isabs(cmd) and not os.path.exists(cmd):
                        problems.append(f"{event} runs {cmd}, which does not exist")
                    elif cmd != command:
                        problems.append(f"{event} runs {cmd}, not this environment's {command}")
                    else:
                        problems.append(f"{event} entry differs from the current one")
        if problems:
            shown = "; ".join(dict.fromkeys(problems))
            results.append(Check(False, f"{where}: outdated ({shown}); run `agenthooks install claude-code {flag}`"))
        else:
            results.append(Check(True, f"{where}: wired for {len(EVENTS)} events, current"))
    if not wired:
        results.append(Check(False, "Claude Code is not wired to agent-hooks; run `agenthooks install claude-code`"))
    elif len(wired) > 1 and len(commands) > len(events_seen):
        results.append(Check(False, f"Claude Code is wired in {' and '.join(wired)} settings with different "
                                    "commands: every event runs the plugins more than once; uninstall all but one"))
    return results


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """One line per finding, each starting with ``ok:`` or ``warning:`` (for ``agenthooks doctor``)."""
    return [str(c) for c in check(cwd)]
