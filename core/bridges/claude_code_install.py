"""Wiring ``agenthooks claude-code`` into Claude Code's settings files, and checking the wiring.

Three transports (docs/hosts/claude-code.md says which to pick and why):

* ``command`` (the default): a command hook per event, ``agenthooks claude-code --event E``, a fresh
  process per event; needs nothing running;
* ``client``: a command hook running the fast client, which asks the warm server
  (``agenthooks serve``) over its unix socket and answers with the per-event process when the
  server is down (starting it for the next event);
* ``http``: ``type: "http"`` hooks to the warm server on 127.0.0.1, the per-user token in a header
  (``$AGENT_HOOKS_TOKEN``, from the settings' ``env``), ``onFailure: "block"`` on the gating
  events, and a SessionStart command that starts the server when it is down. Needs Claude Code
  2.1.295 or later (``onFailure``).

Used by ``agenthooks install|uninstall claude-code`` (``cli/hosts.py``) and by ``agenthooks doctor``
(:func:`status`). Plain functions over JSON; no typer here.

Our entries are recognised by their command (the ``agenthooks`` script, or ``python -m
agent_hooks_core``, followed by ``claude-code``), never by position, so the user's own hooks and
every other setting stay as they are. Installing twice changes nothing; uninstalling removes only
our handlers (and the groups and event lists that become empty because of it).
"""

from __future__ import annotations

import json
import os
import re
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypedDict

from ..settings import home_dir
from ..transports.client import is_fast_client
from .hostkit.jsonconfig import ConfigEdit, FileChange, InstallError, dump_json, read_json, run_plan
from .hosts.claude_code import FIRES as HOOK_EVENTS  # noqa: F401  (the installer's and tests' name)
from .hosts.claude_code import NOT_WIRED as NOT_WIRED

#: the events we wire: every event with a canonical hook, the rest to ``host_event`` (audit sees them).
#: Left out (see :data:`NOT_WIRED`): events where a process per event costs too much, or where
#: answering at all changes what Claude Code does.
EVENTS = (
    "SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
    "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "SubagentStart", "SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact", "SessionEnd",
    "Setup", "InstructionsLoaded", "TaskCreated", "TaskCompleted", "TeammateIdle", "ConfigChange", "CwdChanged",
    "DirectoryAdded", "PreModelSwitch", "PostModelSwitch", "Elicitation", "ElicitationResult",
)

#: events whose matcher is the tool name: we match every tool
TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure"})

#: seconds Claude Code waits for us; SessionEnd raises Claude Code's exit budget to this
TIMEOUT = 60
TIMEOUTS = {"SessionEnd": 5}

SCOPES = ("user", "project", "local")

TRANSPORTS = ("command", "client", "http")
#: ``--transport auto`` (the default) picks the fastest transport that is safe for the scope
AUTO = "auto"
#: events where a failure of ours must block (http ``onFailure``; command: exit 2 from the client)
GATING_EVENTS = frozenset({"PreToolUse", "PermissionRequest"})
#: the environment variable Claude Code puts the server's token in (``allowedEnvVars``)
TOKEN_VAR = "AGENT_HOOKS_TOKEN"
TOKEN_HEADER = "X-Agent-Hooks-Token"
#: the SessionStart command that starts the warm server (http transport); fast when it runs
STARTER_TIMEOUT = 30

_SHELL_FORM = re.compile(r"(?:\bagenthooks(?:\.exe)?[\"']?|\bagent_hooks_core)\s+claude-code\b")


# -- where and what ----------------------------------------------------------------------


def claude_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR`` if set, else ``~/.claude``."""
    env = (os.environ if environ is None else environ).get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else home_dir(environ) / ".claude"


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project and local scopes of ``project_dir``)."""
    return [claude_config_dir(environ) / "settings.json",
            *(settings_path(scope, project_dir) for scope in ("project", "local"))]


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

    On POSIX the stable launcher (``transports/launcher.py``: it outlives a moved or recreated
    environment and then blocks gating events) with ``python -I -m agent_hooks_core``; elsewhere
    the ``agenthooks`` script next to this interpreter when there is one, else ``python -m
    agent_hooks_core`` with this interpreter. Absolute paths, unresolved (a venv's python is a
    symlink that must stay inside the venv), so the hook works whatever Claude Code's PATH is.
    """
    from ..transports import launcher
    from ..transports.client import isolation_flags

    if launcher.supported():
        return str(launcher.path()), [*isolation_flags(), "-m", "agent_hooks_core"]
    name = "agenthooks.exe" if os.name == "nt" else "agenthooks"
    scripts = sysconfig.get_path("scripts")
    if scripts:
        script = Path(scripts) / name
        if script.is_file() and os.access(script, os.X_OK):
            return str(script.absolute()), []  # a script's sys.path[0] is its own directory
    # -m would put the project directory (Claude Code's cwd) first on sys.path: -I keeps it off
    return str(Path(sys.executable).absolute()), [*isolation_flags(), "-m", "agent_hooks_core"]


def server_url(ask: bool = False) -> str:
    """The warm server's URL for Claude Code events (its port from ``paths.port()``)."""
    from ..serve import paths

    return f"http://127.0.0.1:{paths.port()}/hosts/claude-code" + ("?arg=--ask" if ask else "")


def http_handler(event: str, ask: bool = False) -> dict[str, object]:
    entry: dict[str, object] = {"type": "http", "url": server_url(ask and event == "PreToolUse"),
                             "headers": {TOKEN_HEADER: f"${TOKEN_VAR}"}, "allowedEnvVars": [TOKEN_VAR],
                             "timeout": TIMEOUTS.get(event, TIMEOUT)}
    if event in GATING_EVENTS:
        entry["onFailure"] = "block"  # refused, hung, 5xx or non-JSON: the tool does not run
    return entry


def _client_argv(event: str, ask: bool = False) -> list[str]:
    from ..transports import launcher
    from ..transports.client import command_for

    gating = event in GATING_EVENTS
    return launcher.wrap(command_for("claude-code", ["--event", event, *(["--ask"] if ask and event == "PreToolUse"
                                                                         else [])], gating=gating), gating)


def client_handler(event: str, ask: bool = False) -> dict[str, object]:
    argv = _client_argv(event, ask)
    entry: dict[str, object] = {"type": "command", "command": argv[0], "args": argv[1:],
                             "timeout": TIMEOUTS.get(event, TIMEOUT)}
    if event in GATING_EVENTS:
        entry["onFailure"] = "block"
    return entry


def starter_handler() -> dict[str, object]:
    """SessionStart: start the warm server if it is not running (the http transport needs it).

    The fast client asks the server for its status (a socket round trip, no typer, rich or
    pydantic import) and runs the full ``serve start`` only when the server does not answer."""
    from ..transports import launcher
    from ..transports.client import ensure_server_command

    argv = launcher.wrap(ensure_server_command(STARTER_TIMEOUT - 2), False)
    return {"type": "command", "command": argv[0], "args": argv[1:], "timeout": STARTER_TIMEOUT}


def handler(event: str, command: str, prefix: list[str], ask: bool = False,
            transport: str = "command") -> dict[str, object]:
    """Our handler entry for ``event`` (exec form: ``command`` + ``args``, or an http entry).

    ``ask``: PreToolUse runs with ``--ask`` (plugins that ask with a UI make Claude Code ask).
    """
    if transport == "http":
        return http_handler(event, ask)
    if transport == "client":
        return client_handler(event, ask)
    from ..transports import launcher

    extra = ["--ask"] if ask and event == "PreToolUse" else []
    gate = [launcher.GATING] if event in GATING_EVENTS and launcher.is_launcher_path(command) else []
    entry: dict[str, object] = {"type": "command", "command": command,
                             "args": [*gate, *prefix, "claude-code", "--event", event, *extra],
                             "timeout": TIMEOUTS.get(event, TIMEOUT)}
    if event in GATING_EVENTS:
        entry["onFailure"] = "block"  # a crash or timeout of ours blocks the tool (fail-closed)
    return entry


class _Handlers(TypedDict):
    hooks: list[object]


class Group(_Handlers, total=False):
    """One entry of an event's list in the settings: a matcher (tool events) and its handlers."""

    matcher: str


def group(event: str, command: str, prefix: list[str], ask: bool = False,
          transport: str = "command") -> Group:
    hooks: list[object] = [handler(event, command, prefix, ask, transport)]
    if transport == "http" and event == "SessionStart":
        hooks.insert(0, starter_handler())
    return {"matcher": "*", "hooks": hooks} if event in TOOL_EVENTS else {"hooks": hooks}


def _is_our_url(url: object) -> bool:
    from urllib.parse import urlsplit

    if not isinstance(url, str):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.hostname in ("127.0.0.1", "localhost", "::1") and parts.path.rstrip("/") == "/hosts/claude-code"


def is_ours(entry: object) -> bool:
    """True for a handler that runs ``agenthooks claude-code`` (any environment, any transport)."""
    if isinstance(entry, dict) and entry.get("type") == "http":
        return _is_our_url(entry.get("url"))
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
        if is_fast_client([command, *args]):
            return True
        return "-m" in args and "agent_hooks_core" in args and args.index("agent_hooks_core") < args.index("claude-code")
    return bool(_SHELL_FORM.search(command))


def is_starter(entry: object) -> bool:
    """True for our SessionStart command that starts the warm server (``serve start``)."""
    if not isinstance(entry, dict) or entry.get("type", "command") != "command":
        return False
    args = entry.get("args")
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        return False
    if "--ensure-server" in args and is_fast_client([str(entry.get("command", "")), *args]):
        return True
    runs_us = "agent_hooks_core" in args or os.path.basename(str(entry.get("command", ""))) in (
        "agenthooks", "agenthooks.exe")
    return runs_us and "serve" in args and args[args.index("serve") + 1:args.index("serve") + 2] == ["start"]


def _mine(entry: object) -> bool:
    return is_ours(entry) or is_starter(entry)


def transport_of(handlers: list[dict[str, object]]) -> str:
    """The transport our ``handlers`` use (http, client or command)."""
    if any(h.get("type") == "http" for h in handlers):
        return "http"
    if any(is_fast_client([str(h.get("command", "")), *map(str, _args(h))]) for h in handlers):
        return "client"
    return "command"


def _args(handler: dict[str, object]) -> list[object]:
    args = handler.get("args")
    return args if isinstance(args, list) else []


def choose_transport(scope: str) -> tuple[str, str]:
    """(transport, why) for ``--transport auto``: the fastest one that is safe in ``scope``'s file."""
    if scope == "project":
        # the warm server over the private unix socket; a process per event while it is down
        return "client", "a committed file must not hold your token: the fast client"
    from ..serve.peers import other_users

    if other_users():
        # while our server is down, another user could listen on its 127.0.0.1 port and receive the
        # token with every event (or answer them): the per-user unix socket has no such window
        return "client", "other people log in here: the token stays on your private unix socket"
    # onFailure: block on the gating events: a server that cannot answer blocks the tool call
    return "http", "no process per event; tool calls block if the server is down"


# -- merging -----------------------------------------------------------------------------


def _hooks_of(settings: dict[str, object], path: Path) -> dict[str, list[object]]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" must be an object; nothing was changed")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} must be a list; nothing was changed")
    return hooks


def merged(settings: dict[str, object], command: str, prefix: list[str], path: Path = Path("settings.json"),
           events: tuple[str, ...] = EVENTS, ask: bool = False, transport: str = "command",
           token: str | None = None) -> dict[str, object]:
    """``settings`` with our entries for ``events``, in place of any earlier ones of ours (of any
    transport). The http transport also sets ``env.AGENT_HOOKS_TOKEN`` to ``token``."""
    new: dict[str, object] = json.loads(json.dumps(settings))
    hooks = _hooks_of(new, path)
    _set_token(new, token if transport == "http" else None, path)
    for event in events:
        want = group(event, command, prefix, ask, transport)
        groups = hooks.setdefault(event, [])
        placed = False
        for i, g in enumerate(list(groups)):
            inner = g.get("hooks") if isinstance(g, dict) else None
            if not isinstance(g, dict) or not isinstance(inner, list) or not any(_mine(h) for h in inner):
                continue
            others = [h for h in inner if not _mine(h)]
            if placed:
                g["hooks"] = others
            elif not others:  # our own group: replace it whole, where it stands
                groups[i] = want
                placed = True
            else:  # the user put us in a group with their own handlers: swap just ours
                at = next(j for j, h in enumerate(inner) if _mine(h))
                others[at:at] = want["hooks"]
                g["hooks"] = others
                placed = True
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not placed:
            groups.append(want)
    new["hooks"] = hooks
    return new


def removed(settings: dict[str, object], path: Path = Path("settings.json")) -> dict[str, object]:
    """``settings`` without any handler of ours; groups and events emptied by that go too."""
    new: dict[str, object] = json.loads(json.dumps(settings))
    _set_token(new, None, path)
    if "hooks" not in new:
        return new
    hooks = _hooks_of(new, path)
    for event in list(hooks):
        groups = hooks[event]
        touched = False
        for g in groups:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if isinstance(g, dict) and isinstance(inner, list) and any(_mine(h) for h in inner):
                g["hooks"] = [h for h in inner if not _mine(h)]
                touched = True
        if touched:
            groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
            if not groups:
                del hooks[event]
                if not hooks:
                    del new["hooks"]
    return new


def _set_token(settings: dict[str, object], token: str | None, path: Path) -> None:
    """Set (or, with None, remove) ``env.AGENT_HOOKS_TOKEN``; other variables stay."""
    env = settings.get("env")
    if env is None and token is None:
        return
    if env is None:
        env = settings["env"] = {}
    if not isinstance(env, dict):
        raise InstallError(f"{path}: \"env\" must be an object; nothing was changed")
    if token is not None:
        env[TOKEN_VAR] = token
    else:
        env.pop(TOKEN_VAR, None)
        if not env:
            del settings["env"]


# -- reading and writing settings files --------------------------------------------------


# the JSON reading and writing every host's installer shares (hostkit.jsonconfig)
read_settings = read_json
dump = dump_json


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None,
                 command: tuple[str, list[str]] | None = None, ask: bool = False, transport: str = "command",
                 dry_run: bool = False) -> ConfigEdit:
    if transport not in TRANSPORTS:
        raise InstallError(f"unknown transport {transport!r}: use {', '.join(TRANSPORTS)}")
    token = None
    if transport == "http":
        if scope == "project":
            raise InstallError("the http transport carries your per-user token: install it with --local or "
                               "--user (the project file is usually committed)")
        from ..serve import paths

        token = paths.token(create=not dry_run) or "<made at install>"
    path = settings_path(scope, project_dir)
    settings, old = read_settings(path)
    cmd, prefix = command or bridge_command()
    new = merged(settings, cmd, prefix, path, ask=ask, transport=transport, token=token)
    # a file holding the token is readable by the user only, from the moment it is written
    mode = 0o600 if transport == "http" else None
    if old is not None and new == settings:
        return ConfigEdit([FileChange(path, old, None, mode)])
    return ConfigEdit([FileChange(path, old, dump(new, old), mode)])


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    path = settings_path(scope, project_dir)
    settings, old = read_settings(path)
    new = removed(settings, path)
    if old is None or new == settings:
        return ConfigEdit([FileChange(path, old, None)], removal=True)
    return ConfigEdit([FileChange(path, old, dump(new, old))], removal=True)


# -- doctor ------------------------------------------------------------------------------


@dataclass
class Check:
    ok: bool
    message: str
    #: not only worth a look: something does not work (e.g. every tool call is blocked)
    problem: bool = False

    def __str__(self) -> str:
        return f"{'ok' if self.ok else 'problem' if self.problem else 'warning'}: {self.message}"


def _our_handlers(settings: dict[str, object]) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
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


def _server_checks(transport: str, settings: dict[str, object], where: str, flag: str) -> list[Check]:
    """What the warm server transports need: a running server, the token, no proxy in the way."""
    from ..serve import paths, server

    results: list[Check] = []
    running = server.status(timeout=2.0)
    if transport == "client":
        if running is None:
            results.append(Check(False, f"{where}: the warm server is not running, so each event is answered "
                                        "by a fresh process (slower) until it starts: `agenthooks serve start`"))
        return results
    if running is None:
        results.append(Check(False, f"{where}: the warm server is not running, so Claude Code blocks every tool "
                                    "call (onFailure: block) until it does: run `agenthooks serve start` (a new "
                                    "session starts it too)", problem=True))
    elif not running.get("http"):
        results.append(Check(False, f"{where}: the warm server runs without HTTP "
                                    f"({running.get('http_problem') or 'disabled'}): `agenthooks serve stop` then "
                                    "`agenthooks serve start`", problem=True))
    elif running["http"].rsplit(":", 1)[-1] != str(paths.port()):
        results.append(Check(False, f"{where}: the server listens on {running['http']}, the hooks call port "
                                    f"{paths.port()}: restart the server", problem=True))
    raw_env = settings.get("env")
    env: dict[str, object] = raw_env if isinstance(raw_env, dict) else {}
    token = paths.token(create=False)
    if not env.get(TOKEN_VAR) or env.get(TOKEN_VAR) != token:
        results.append(Check(False, f"{where}: env.{TOKEN_VAR} is missing or not the server's token, so the server "
                                    f"refuses every event: run `agenthooks install claude-code --transport http "
                                    f"{flag}`", problem=True))
    proxy = os.environ.get("HTTP_PROXY") or os.environ.get("http_proxy")
    no_proxy = (os.environ.get("NO_PROXY") or os.environ.get("no_proxy") or "").replace(" ", "").split(",")
    if proxy and not {"127.0.0.1", "localhost", "*"} & set(no_proxy):
        results.append(Check(False, "HTTP_PROXY is set and NO_PROXY does not cover 127.0.0.1: Claude Code sends "
                                    "the hook requests to the proxy; add 127.0.0.1 to NO_PROXY", problem=True))
    return results


def check(cwd: str | os.PathLike[str] | None = None) -> list[Check]:
    """Is Claude Code wired to this environment's ``agenthooks``, in which files, and is it current?"""
    from ..transports import launcher

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
        transport = transport_of([h for hs in ours.values() for h in hs])
        problems = []
        missing = [e for e in EVENTS if e not in ours]
        if missing:
            problems.append(f"not wired for {', '.join(missing)}")
        for event, handlers in ours.items():
            if len(handlers) > 1:
                problems.append(f"{event} runs agenthooks {len(handlers)} times")
            for h in handlers:
                cmd = h.get("command", "")
                reason = launcher.broken(cmd) if h.get("type", "command") == "command" and isinstance(cmd, str) \
                    and os.path.isabs(cmd) else None
                if reason is not None:  # a moved or recreated environment: what runs is gone
                    problems.append(f"{event} runs {cmd}, which does not exist" if not os.path.exists(str(cmd))
                                    else f"{event}: {reason}")
                elif h not in (handler(event, command, prefix, False, transport),
                             handler(event, command, prefix, True, transport)) and event in EVENTS:
                    want = handler(event, command, prefix, False, transport)
                    if h.get("type") == "http" and h.get("url") != want.get("url"):
                        problems.append(f"{event} calls {h.get('url')}, not {want.get('url')}")
                    elif h.get("type") == "http":
                        problems.append(f"{event} entry differs from the current one")
                    elif cmd != want.get("command"):
                        problems.append(f"{event} runs {cmd}, not this environment's {want.get('command')}")
                    else:
                        problems.append(f"{event} entry differs from the current one")
        how = "" if transport == choose_transport(scope)[0] else f" --transport {transport}"
        if problems:
            shown = "; ".join(dict.fromkeys(problems))
            results.append(Check(False, f"{where}: outdated ({shown}); run `agenthooks install claude-code{how} "
                                        f"{flag}`"))
        else:
            via = "" if transport == "command" else f" (transport {transport})"
            results.append(Check(True, f"{where}: wired for {len(EVENTS)} events{via}, current"))
        if transport != "command":
            results.extend(_server_checks(transport, settings, where, flag))
    if not wired:
        results.append(Check(False, "Claude Code is not wired to agent-hooks; run `agenthooks install claude-code`"))
    elif len(wired) > 1 and len(commands) > len(events_seen):
        results.append(Check(False, f"Claude Code is wired in {' and '.join(wired)} settings with different "
                                    "commands: every event runs the plugins more than once; uninstall all but one"))
    return results


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """Scopes whose settings file runs our bridge (``agenthooks hosts``)."""
    found = []
    for scope in SCOPES:
        try:
            settings, _ = read_settings(settings_path(scope, cwd))
        except InstallError:
            continue
        if _our_handlers(settings):
            found.append(scope)
    return found


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """One line per finding, each starting with ``ok:`` or ``warning:`` (for ``agenthooks doctor``)."""
    return [str(c) for c in check(cwd)]


# -- the commands (``agenthooks install|uninstall claude-code``; cli/hosts.py builds them) -------

#: host options of ``agenthooks install claude-code``
OPTIONS: dict[str, dict[str, object]] = {
    "ask": {"flag": "--ask", "default": False,
            "help": "plugins that ask the user when there is a UI (the guard) make Claude Code ask, instead of denying"},
    "transport": {"flag": "--transport", "default": AUTO, "choices": (AUTO, *TRANSPORTS),
                  "help": "auto: http for --user/--local (client where other people log in), client for --project; command: a process per event; "
                          "client: the fast client to the warm server, falling back to a process; http: http hooks "
                          "to the warm server (Claude Code >= 2.1.295)"},
}
INSTALL_HELP = "Run every enabled plugin on Claude Code's hook events (merges into its settings file)."
UNINSTALL_HELP = "Remove agent-hooks' entries from Claude Code's settings file (other hooks stay)."


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, ask: bool = False, transport: str = AUTO) -> int:
    """Merge our hook entries into Claude Code's ``scope`` settings file. Returns the exit code."""
    out = out or sys.stdout
    why = "as asked (--transport)"
    if transport == AUTO:
        transport, why = choose_transport(scope)
    plan = plan_install(scope, project_dir, ask=ask, transport=transport, dry_run=dry_run)
    path = plan.changes[0].path
    plan.notes += [f"transport: {transport}", f"why:       {why}"]
    if plan.changed and not dry_run:
        if transport == "http":
            plan.notes += [f"url:     {server_url()} (http hooks; the token is env.{TOKEN_VAR} in that file)",
                           "server:  started by a SessionStart hook; now: `agenthooks serve start`"]
        elif transport == "client":
            plan.notes.append(f"command: {' '.join(_client_argv('PreToolUse'))}")
        else:
            command, prefix = bridge_command()
            plan.notes += [f"command: {' '.join([command, *prefix, 'claude-code'])}",
                           "server:  the first event starts the warm server in the background and later events "
                           "go to it\n           (it exits after 10 idle minutes); off: [serve] autostart = false "
                           "in the user\n           settings, or AGENT_HOOKS_SERVE_AUTOSTART=0"]
        plan.notes.append(f"events:  {', '.join(EVENTS)}")
        if scope == "project":
            plan.notes.append("note: .claude/settings.json is usually committed, and the command is this machine's "
                              "path;\n        use --local to keep it out of version control.")
    return run_plan(plan, dry_run, out, f"Wired agent-hooks into Claude Code ({scope})",
                    unchanged=f"Claude Code ({scope}) is already wired to agent-hooks: {path}")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    """Remove our hook entries (any transport) from Claude Code's ``scope`` settings file."""
    plan = plan_uninstall(scope, project_dir)
    return run_plan(plan, dry_run, out or sys.stdout, f"Removed agent-hooks from Claude Code ({scope})",
                    unchanged=f"{plan.changes[0].path}: not wired, nothing to change")
