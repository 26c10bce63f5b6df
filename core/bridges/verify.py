"""``agenthooks hosts --verify HOST``: a short self-check of the user's own wiring of one host,
without running the agent (that would need a model).

The checklist: the agent is installed (and which version, against the one its capabilities were
proven on); our hooks are in its configuration; the installer's own checks (the host's trust and
enable switches: Codex hook trust, Gemini CLI and Copilot folder trust, Vibe project trust,
Droid's ``hooks`` wrapper) find nothing wrong; and every configured command line of the gating
event, run exactly as the host would run it, answers a synthetic tool call with a block in the
host's own format (an extension host: the ``serve --stdio`` server its extension starts answers it
with a block). That tool call has no tool input, which every bridge denies (a gating event we
cannot check is blocked): no plugin has to be enabled for the check and nothing runs. What a
project's configuration holds is shown, never run: the repository can write it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import matrix, registry
from .hostkit.jsonconfig import runs_us, shell_command
from .record import Host

#: the most a configuration file may hold for us to read it
MAX_CONFIG = 4 << 20
#: how long one configured command may take to answer (the hosts allow 60 s)
RUN_TIMEOUT = 60.0
SESSION = "agenthooks-verify"


@dataclass(frozen=True)
class Check:
    """One line of the checklist: ``ok``, ``fail`` or ``note`` (said, but nothing is wrong)."""

    status: str
    message: str


@dataclass(frozen=True)
class Configured:
    """One of our handlers in the host's configuration: where, and what the host runs."""

    path: Path
    event: str
    argv: list[str]
    #: the command line as written (for people)
    shown: str
    #: it sits in a project's configuration (which the repository can write), not the user's
    project: bool = False


def gating_event(record: Host) -> tuple[str, str] | None:
    """The host event that gates a shell command, and the tool name it carries: read from the
    ``pre_shell_exec`` (else ``pre_tool``) capability's ``via`` ("PreToolUse Bash|PowerShell")."""
    caps = record.caps()
    cap = caps.get("pre_shell_exec") or caps.get("pre_tool")
    if cap is None or not (cap.closed or cap.block):
        return None
    words = re.split(r"[\s,()]+", cap.via.strip())
    event = words[0]
    tool = re.split(r"[|]", words[1])[0] if len(words) > 1 and words[1] else "Bash"
    return event, tool


def _read(path: Path) -> object:
    try:
        if not path.is_file() or path.stat().st_size > MAX_CONFIG:
            return None
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            import tomlkit

            return tomlkit.parse(text).unwrap()
        return json.loads(text)
    except (OSError, ValueError, UnicodeDecodeError, tomlkit_error()):
        return None


def tomlkit_error() -> type[Exception]:
    from tomlkit.exceptions import TOMLKitError

    return TOMLKitError


def _handlers(node: object, events: set[str], context: str | None) -> Iterator[tuple[str | None, dict[str, object]]]:
    """Every dict holding a command, with the host event it sits under (a key of the event table,
    or the ``event`` / ``type`` field of a TOML array entry)."""
    if isinstance(node, dict):
        for field in ("event", "type"):
            value = node.get(field)
            if isinstance(value, str) and value in events:
                context = value
        if isinstance(node.get("command"), str) or isinstance(node.get("bash"), str):
            yield context, node
        for key, value in node.items():
            yield from _handlers(value, events, key if key in events else context)
    elif isinstance(node, list):
        for item in node:
            yield from _handlers(item, events, context)


def configured(record: Host, cwd: str) -> list[Configured]:
    """Our handlers for the gating event in every configuration file the installer knows."""
    gate = gating_event(record)
    if gate is None:
        return []
    events = set(record.event_map()) | {gate[0]}
    installer = record.load_installer()
    # the user's own files: the ones that do not move with the project directory
    nowhere = os.path.join(os.path.realpath(cwd), f".agenthooks-verify-{os.getpid()}-none")
    users = {Path(p) for p in installer.config_targets(nowhere)}
    found: list[Configured] = []
    for path in installer.config_targets(cwd):
        data = _read(Path(path))
        if data is None:
            continue
        for event, handler in _handlers(data, events, None):
            if event != gate[0]:
                continue
            command = handler.get("command") if isinstance(handler.get("command"), str) else handler.get("bash")
            args = handler.get("args")
            if isinstance(args, list) and all(isinstance(a, str) for a in args):  # exec form (Claude Code)
                argv = [str(command), *args]
                line = shell_command(argv)
            else:  # a shell command line, as the host runs it
                argv, line = ["/bin/sh", "-c", str(command)], str(command)
            if runs_us(line, record.name) or any(runs_us(line, name) for name in record.names):
                found.append(Configured(Path(path), event, argv, line, project=Path(path) not in users))
    return found


def probe_event(record: Host, cwd: str) -> dict[str, object]:
    """A gating tool call with no tool input: every bridge must deny it."""
    gate = gating_event(record)
    assert gate is not None
    event, tool = gate
    return {"hook_event_name": event, "event_type": event, "session_id": SESSION, "cwd": cwd,
            "transcript_path": None, "tool_name": tool}


def _denies(node: object) -> bool:
    if isinstance(node, dict):
        return any(_denies(v) for v in node.values())
    if isinstance(node, list):
        return any(_denies(v) for v in node)
    return isinstance(node, str) and node.lower() in ("deny", "block", "denied", "blocked")


def _answer(code: int, out: str, err: str) -> tuple[bool, str]:
    """(blocked, the reason or what came back): exit 2 or a JSON deny is a block in every command host."""
    try:
        data = json.loads(out) if out.strip() else None
    except ValueError:
        data = None
    reason = ""
    if isinstance(data, dict):
        reason = str(next((v for v in _strings(data) if "agent-hooks" in v or "fail-closed" in v), ""))
    reason = reason or err.strip().splitlines()[0] if (reason or err.strip()) else reason
    if code == 2 or (code == 0 and _denies(data)):
        return True, reason
    return False, f"exit {code}" + (f": {reason}" if reason else "") + (f"; stdout {out.strip()[:200]!r}"
                                                                        if out.strip() else "")


def _strings(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif isinstance(node, str):
        yield node


def run_configured(item: Configured, record: Host, cwd: str) -> Check:
    """Run one configured command line on the probe event; ``ok`` when it answers with a block."""
    if item.project:  # whoever can write the repository wrote this line: shown, never run by us
        return Check("note", f"{item.event} in {item.path}: not run: a project's configuration is the "
                             f"repository's to write (the installer's checks above cover its shape): {item.shown}")
    payload = json.dumps(probe_event(record, cwd)).encode()
    try:
        proc = subprocess.run(item.argv, input=payload, capture_output=True, cwd=cwd, timeout=RUN_TIMEOUT,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return Check("fail", f"{item.event} in {item.path}: no answer within {RUN_TIMEOUT:g} s from {item.shown}")
    except OSError as exc:
        return Check("fail", f"{item.event} in {item.path}: cannot run {item.shown}: {exc.strerror or exc}")
    out = proc.stdout[:1 << 20].decode("utf-8", "replace")
    err = proc.stderr[:1 << 20].decode("utf-8", "replace")
    blocked, why = _answer(proc.returncode, out, err)
    if blocked:
        return Check("ok", f"{item.event} in {item.path}: the configured command answers a tool call it cannot "
                           f"check with a block" + (f" ({why})" if why else ""))
    return Check("fail", f"{item.event} in {item.path}: the configured command did not block a tool call it "
                         f"cannot check ({why}); command: {item.shown}")


#: the payload of a gating extension event with its tool input missing, by the event's name
_STDIO_PAYLOADS: dict[str, Callable[[str], dict[str, object]]] = {
    "tool_call": lambda tool: {"toolName": tool, "toolCallId": SESSION},  # pi, omp
    "tool.execute.before": lambda tool: {"input": {"tool": tool, "sessionID": SESSION, "callID": SESSION},
                                         "output": {}},  # OpenCode
}
_BAKED = re.compile(r"^const BAKED: [^=]*= (\{.*\});\s*//", re.M)


def check_extension(record: Host, cwd: str) -> list[Check]:
    """An extension host: start the warm stdio server its user-scope extension names, exactly as the
    extension does, and send it a gating event with no tool input: it must answer with a block."""
    gate = gating_event(record)
    assert gate is not None
    make = _STDIO_PAYLOADS.get(gate[0])
    if make is None:
        return [Check("note", f"no probe event for {gate[0]}: the extension is checked by its file only")]
    installer = record.load_installer()
    nowhere = os.path.join(os.path.realpath(cwd), f".agenthooks-verify-{os.getpid()}-none")
    user_files = [Path(p) for p in installer.config_targets(nowhere)]
    checks: list[Check] = []
    for path in user_files:
        try:
            text = path.read_text(encoding="utf-8") if path.is_file() and path.stat().st_size < MAX_CONFIG else ""
        except (OSError, UnicodeDecodeError):
            text = ""
        found = _BAKED.search(text)
        if found is None:
            continue
        try:
            baked = json.loads(found.group(1))
        except ValueError:
            baked = None
        python = baked.get("python") if isinstance(baked, dict) else None
        args = baked.get("args") if isinstance(baked, dict) else None
        args = args if isinstance(args, list) and all(isinstance(a, str) for a in args) else []
        if not isinstance(python, str) or not os.path.isabs(python):
            checks.append(Check("fail", f"{path}: names no Python to run; run `agenthooks install {record.name}`"))
            continue
        argv = [python, "-I", "-m", "agent_hooks_core", "serve", "--stdio", *args]
        checks.append(_ask_stdio(path, argv, record, gate[0], make(gate[1]), cwd))
    if not checks:
        checks.append(Check("note", "no user-scope extension of ours to start (a project's extension is the "
                                    "repository's to write: not run)"))
    return checks


def _ask_stdio(path: Path, argv: list[str], record: Host, event: str, payload: object, cwd: str) -> Check:
    host = record.name
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"host": host, "cwd": cwd,
                                                                              "has_ui": False}},
             {"jsonrpc": "2.0", "id": 2, "method": "event", "params": {"host": host, "name": event,
                                                                        "payload": payload, "has_ui": False}}]
    request = "".join(json.dumps(line) + "\n" for line in lines).encode()
    shown = shell_command(argv)
    try:
        proc = subprocess.run(argv, input=request, capture_output=True, cwd=cwd, timeout=RUN_TIMEOUT,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return Check("fail", f"{path}: {shown} gave no answer within {RUN_TIMEOUT:g} s")
    except OSError as exc:
        return Check("fail", f"{path}: cannot start {shown}: {exc.strerror or exc}")
    answer: object = None
    for line in proc.stdout[:1 << 20].decode("utf-8", "replace").splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == 2:
            answer = message.get("result")
    if isinstance(answer, dict) and answer.get("blocked") is True:
        why = next((e for e in answer.get("errors") or [] if isinstance(e, str)), "")
        return Check("ok", f"{event} through {path}: the server it starts answers a tool call it cannot check "
                           f"with a block" + (f" ({why})" if why else ""))
    tail = proc.stderr[-400:].decode("utf-8", "replace").strip()
    return Check("fail", f"{event} through {path}: the server it starts ({shown}) did not block a tool call it "
                         f"cannot check: {json.dumps(answer)[:200] if answer is not None else 'no answer'}"
                         + (f"; stderr: {tail}" if tail else ""))


#: installer warnings that mean the host skips our hooks (its trust or enable switches, a shape it
#: ignores): a failed check; other warnings (a slower path, a limit of the host) are notes
_SKIPPED = ("trusted", "ignores", "skips", "not wired for", "replaces")


def verify(name: str, cwd: str | None = None) -> list[Check]:
    """The checklist for host ``name`` (UnknownHostError for a host nobody registered)."""
    record = registry.get(name)
    here = cwd or os.getcwd()
    checks: list[Check] = []
    state = matrix.version_state(record.name, here)
    exe = matrix.executable(record.name)
    if exe is None:
        checks.append(Check("note", f"{record.executable or record.name} is not on PATH (the wiring is checked "
                                    "all the same)"))
    else:
        level = "note" if state["state"] in ("unverified", "unknown") else "ok"
        checks.append(Check(level, f"{exe}: {matrix.version_line(record.name, state)}"))
    installer = record.load_installer()
    wired = list(installer.wired(here)) if hasattr(installer, "wired") else []
    if wired:
        checks.append(Check("ok", f"our hooks are in its configuration ({', '.join(wired)})"))
    else:
        checks.append(Check("fail", f"our hooks are not in its configuration: run `agenthooks install {record.name}`"))
    for line in installer.status(here):
        level, _, message = line.partition(": ")
        if "is not wired to agent-hooks" in message:
            continue  # said above
        if level == "problem":
            checks.append(Check("fail", message))
        elif level == "warning":
            checks.append(Check("fail" if any(w in message for w in _SKIPPED) else "note", message))
    if wired:
        if gating_event(record) is None:
            checks.append(Check("note", f"{record.title} has no event that gates a tool call"))
        elif record.config.format == "extension":
            checks += check_extension(record, here)
        else:
            items = configured(record, here)
            if not items:
                checks.append(Check("fail", f"no command of ours for {gating_event(record)[0]} "  # type: ignore[index]
                                            "in its configuration"))
            checks += [run_configured(item, record, here) for item in items]
    if record.timeout is not None and not record.timeout.closed and record.timeout.seconds is not None:
        checks.append(Check("note", matrix.timeout_line(record)))
    return checks
