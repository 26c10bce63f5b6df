"""``agenthooks serve --stdio``: one warm runtime per agent session, over the child's stdin/stdout.

In-process hosts (pi, omp, OpenCode) cannot run a command per hook; their extension starts this
server once per session and speaks newline-delimited JSON-RPC 2.0 with it (one JSON object per
line, UTF-8; stderr is for logs). Both sides send requests: the extension sends ``initialize``,
``event``, ``fire``, ``command`` and ``shutdown``; while a hook runs, the server asks the extension
for the host's UI (``ui.confirm``, ``ui.select``, ``ui.input``, ``ui.editor``) and tells it
``ui.notify``, ``ui.setStatus``, ``session.sendMessage`` and ``session.appendEntry``. The contract
is in docs/serve.md (stdio section) and docs/hosts/pi.md.

Rules kept here:

* the protocol owns the real stdout: fd 1 is pointed at stderr at start, so a plugin's
  ``print()`` (or a child process it starts) can never corrupt a reply;
* a malformed line gets a -32700 error and the server keeps going; nothing raises out of a
  request: an event our side could not handle is answered with the adapter's ``failure`` (a
  block on gating events such as pi's ``tool_call``);
* EOF on stdin ends the server (the agent exited: no orphan); so does ``shutdown``.

Standard library only at import time: the runtime is loaded by ``initialize``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING

from ..bridges.base import UsageError, parse_command_args
from ..bridges.hostkit.shape import load_json
from ..context import NoUI

if TYPE_CHECKING:
    from ..bridges.base import HostAdapter
    from ..runtime import Runtime
    from .pool import Entry

PROTOCOL = 1

# JSON-RPC 2.0 error codes (the -32000 range is ours)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
#: where a message read with a number JSON does not have keeps what is wrong (not a JSON-RPC member)
NON_FINITE = "\0non-finite"
INTERNAL_ERROR = -32603
NOT_INITIALIZED = -32002
CLIENT_GONE = -32003

USAGE = """\
usage: agenthooks serve --stdio [--hook PATH]... [--settings PATH]

Serve one agent session over stdin/stdout (newline-delimited JSON-RPC 2.0). Started by the
pi, omp and OpenCode extensions (`agenthooks install pi`); see docs/hosts/pi.md.

  --hook PATH          also load this local plugin file (repeatable)
  --settings PATH      use this agent-hooks settings file
"""


class RpcError(Exception):
    """A JSON-RPC error to send back (or received from the other side)."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_dict(self) -> dict[str, object]:
        err: dict[str, object] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


#: the longest message line we read: an event up to the per-event limit, plus the envelope
MAX_LINE = (64 << 20) + (1 << 20)
#: how much of a refused line is kept to find its id
_HEAD = 4096
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


class _TooLarge:
    """A line longer than :data:`MAX_LINE`: its first bytes and its size, nothing else."""

    def __init__(self, head: bytes, size: int) -> None:
        self.head = head
        self.size = size

    def request_id(self) -> object:
        """The id of the refused request, when its first bytes carry one (the client then gets a
        reply it waits for: an error, which the extensions turn into a block on gating events)."""
        match = _ID.search(self.head)
        if match is None:
            return None
        try:
            return json.loads(match.group(1))
        except ValueError:
            return None


class _Pending:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: object = None
        self.error: RpcError | None = None


class Channel:
    """Both directions of the pipe: a reader thread, thread-safe writes, our own requests.

    Incoming requests and notifications are queued for :meth:`next_message`; responses to the
    requests we sent (:meth:`request`) wake the waiting caller, whichever thread it is on (a plugin
    handler may run under a timeout thread).
    """

    def __init__(self, rfile: IO[bytes], wfile: IO[bytes]) -> None:
        self._rfile = rfile
        self._wfile = wfile
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._inbox: queue.Queue[dict[str, object] | None] = queue.Queue()
        self.closed = False
        self._reader = threading.Thread(target=self._read_loop, name="agenthooks-stdio-reader", daemon=True)
        self._reader.start()

    # -- writing ---------------------------------------------------------------------------

    def send(self, message: dict[str, object]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=_json_default)
        with self._write_lock:
            try:
                self._wfile.write(data.encode("utf-8") + b"\n")
                self._wfile.flush()
            except (OSError, ValueError):  # the client is gone: EOF on our stdin ends the loop
                pass

    def reply(self, msg_id: object, result: object) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def reply_error(self, msg_id: object, error: RpcError) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "error": error.to_dict()})

    def notify(self, method: str, params: dict[str, object]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict[str, object], timeout: float | None = None) -> object:
        """Ask the client and wait for its answer; RpcError if it fails, is gone or is too slow."""
        with self._lock:
            if self.closed:
                raise RpcError(CLIENT_GONE, "the client closed the connection")
            self._next_id += 1
            msg_id = self._next_id
            pending = self._pending[msg_id] = _Pending()
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        if not pending.done.wait(timeout):
            with self._lock:
                self._pending.pop(msg_id, None)
            raise RpcError(CLIENT_GONE, f"no answer to {method} within {timeout:g}s")
        if pending.error is not None:
            raise pending.error
        return pending.result

    # -- reading ---------------------------------------------------------------------------

    def next_message(self) -> dict[str, object] | None:
        """The next request or notification from the client; None at EOF."""
        return self._inbox.get()

    def _lines(self) -> Iterator[bytes | _TooLarge]:
        """Lines from the client, each at most :data:`MAX_LINE` bytes; a longer one is
        :class:`_TooLarge` (its start, for the id) and is skipped to its end without being kept.
        Linear in the input: each chunk is searched once for newlines. A real pipe is read with
        ``os.read``: a thread blocked in ``sys.stdin.buffer`` holds its lock and aborts the
        interpreter's shutdown."""
        try:
            fd = self._rfile.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None

        def chunks() -> Iterator[bytes]:
            if fd is None:
                while True:
                    data = self._rfile.read1(1 << 20) if hasattr(self._rfile, "read1") else self._rfile.read(1 << 20)
                    if not data:
                        return
                    yield data
            while True:
                data = os.read(fd, 1 << 20)
                if not data:
                    return
                yield data

        parts: list[bytes] = []
        size = 0
        too_large: _TooLarge | None = None
        for chunk in chunks():
            start = 0
            while start < len(chunk):
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end]
                if too_large is not None:
                    too_large.size += len(piece)
                else:
                    parts.append(piece)
                    size += len(piece)
                    if size > MAX_LINE:
                        too_large = _TooLarge(b"".join(parts)[:_HEAD], size)
                        parts, size = [], 0
                if end < 0:
                    break
                if too_large is not None:
                    yield too_large
                    too_large = None
                else:
                    yield b"".join(parts)
                parts, size = [], 0
                start = end + 1
        if too_large is not None:
            yield too_large
        elif parts:
            yield b"".join(parts)

    def _read_loop(self) -> None:
        try:
            for raw in self._lines():
                if isinstance(raw, _TooLarge):
                    self.reply_error(raw.request_id(), RpcError(
                        INVALID_REQUEST, f"the message is larger than {MAX_LINE:,} bytes (refused)"))
                elif raw.strip():
                    self._take(raw)
        except (OSError, ValueError):
            pass
        finally:
            with self._lock:
                self.closed = True
                pending, self._pending = self._pending, {}
            for p in pending.values():
                p.error = RpcError(CLIENT_GONE, "the client closed the connection")
                p.done.set()
            self._inbox.put(None)

    def _take(self, raw: bytes) -> None:
        try:
            message, non_finite = load_json(raw)
        except RecursionError:
            self.reply_error(None, RpcError(PARSE_ERROR, "parse error: nested too deeply"))
            return
        except (ValueError, UnicodeDecodeError) as exc:
            self.reply_error(None, RpcError(PARSE_ERROR, f"parse error: {exc}"))
            return
        if not isinstance(message, dict):
            self.reply_error(None, RpcError(INVALID_REQUEST, "a message must be a JSON object"))
            return
        if non_finite:
            message[NON_FINITE] = non_finite  # refused by dispatch, which knows the method
        if "method" not in message and ("result" in message or "error" in message):
            self._resolve(message)
            return
        self._inbox.put(message)

    def _resolve(self, message: dict[str, object]) -> None:
        with self._lock:
            msg_id = message.get("id")  # ours are ints: any other id answers nothing we asked
            pending = self._pending.pop(msg_id, None) if isinstance(msg_id, int) else None
        if pending is None:
            return  # an answer nobody waits for any more (timed out): dropped
        error = message.get("error")
        if error is not None:
            err = error if isinstance(error, dict) else {}
            pending.error = RpcError(int(err.get("code") or INTERNAL_ERROR), str(err.get("message") or error))
        else:
            pending.result = message.get("result")
        pending.done.set()


def _json_default(value: object) -> object:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


# -- the host's UI, through the client -------------------------------------------------------


class StdioUI(NoUI):
    """``ctx.ui`` for plugins: every call goes to the host's own UI through the client.

    When the host has no UI (pi's print mode) the client answers with the host's no-UI defaults
    (confirm false, the rest null). If the client is gone or fails, the UI-less answer is used: a
    question nobody answered is never a yes.
    """

    def __init__(self, channel: Channel) -> None:
        super().__init__()
        self.channel = channel

    def _ask(self, method: str, params: dict[str, object]) -> object:
        try:
            return self.channel.request(method, params)
        except RpcError as exc:
            print(f"agenthooks serve --stdio: {method} failed: {exc.message}", file=sys.stderr)
            return None

    def confirm(self, title: str, message: str) -> bool:
        return self._ask("ui.confirm", {"title": str(title), "message": str(message)}) is True

    def select(self, title: str, options: list[str]) -> str | None:
        answer = self._ask("ui.select", {"title": str(title), "options": [str(o) for o in options]})
        return answer if isinstance(answer, str) else None

    def input(self, title: str, placeholder: str | None = None) -> str | None:
        answer = self._ask("ui.input", {"title": str(title), "placeholder": placeholder})
        return answer if isinstance(answer, str) else None

    def editor(self, title: str, prefill: str | None = None) -> str | None:
        answer = self._ask("ui.editor", {"title": str(title), "prefill": prefill})
        return answer if isinstance(answer, str) else None

    def notify(self, message: str, kind: str = "info") -> None:
        super().notify(message, kind)
        self.channel.notify("ui.notify", {"message": str(message), "level": kind})

    def set_status(self, key: str, text: str | None) -> None:
        super().set_status(key, text)
        self.channel.notify("ui.setStatus", {"key": str(key), "text": text})


def send_message_params(message: dict[str, object]) -> dict[str, object]:
    """``ctx.send_message(text, **extra)`` as pi's ``sendMessage(message, options)``."""
    extra = {k: v for k, v in message.items() if k not in ("text", "plugin")}
    options = {k: extra.pop(k) for k in ("deliver_as", "trigger_turn") if k in extra}
    native = {
        "customType": extra.pop("custom_type", None) or f"agent-hooks:{message.get('plugin') or 'plugin'}",
        "content": str(message.get("text", "")),
        "display": bool(extra.pop("display", True)),
    }
    if extra:
        native["details"] = extra.pop("details", None) if set(extra) == {"details"} else extra
    native_options = {{"deliver_as": "deliverAs", "trigger_turn": "triggerTurn"}[k]: v for k, v in options.items()}
    return {"message": native, "options": native_options or None}


# -- the server ----------------------------------------------------------------------------


class StdioOptions:
    def __init__(self) -> None:
        self.hooks: list[str] = []
        self.settings: str | None = None
        self.help = False


def parse_args(argv: list[str]) -> StdioOptions:
    """``--hook PATH`` (repeatable), ``--settings PATH``, ``-h/--help``; ``--stdio`` is accepted."""
    parsed = parse_command_args(argv, valued=("--hook", "--settings"), flags=("--stdio",))
    opts = StdioOptions()
    opts.hooks, opts.settings, opts.help = parsed.hooks, parsed.settings, parsed.help
    return opts


#: ``factory(cwd=..., host=..., session_id=..., ui=..., has_ui=..., on_send_message=...,
#: on_append_entry=..., hooks=[...], settings=...) -> Runtime``; tests may inject their own
RuntimeFactory = Callable[..., "Runtime"]


def default_runtime_factory(*, cwd: str, hooks: list[str], settings: str | None, **options: object) -> Runtime:
    from ..runtime import Runtime

    if hooks:
        options["hook_paths"] = list(hooks)
    if settings:
        options["settings_path"] = settings
    return Runtime.from_settings(cwd=cwd, **options)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("agent-hooks-core")
    except Exception:
        return "unknown"


class Server:
    """Answers the client's requests, one at a time, in the order they arrive."""

    def __init__(self, channel: Channel, options: StdioOptions, factory: RuntimeFactory | None = None) -> None:
        self.channel = channel
        self.options = options
        self.factory = factory or default_runtime_factory
        #: the runtime that answers, with what it was built from (serve/pool.py's Entry)
        self.entry: Entry | None = None
        self.host: str | None = None
        self.ui = StdioUI(channel)
        #: why the runtime could not be built (events then fail, gating ones closed)
        self.load_problem: str | None = None
        self._build: Callable[[], Runtime] | None = None
        self._where: tuple[str, str | None] = (os.getcwd(), None)
        self._reload_lock = threading.Lock()
        self._watching = threading.Event()
        self._watcher_started = False

    @property
    def rt(self) -> Runtime | None:
        return self.entry.rt if self.entry is not None else None

    # -- the watcher: a change of what decides what runs is in force within a second ----------

    def _fresh(self) -> None:
        """Rebuild the runtime when an input changed (serve/inputs.py); atomically, and never to a
        weaker gate (serve/pool.py ``successor``): a change that fails to load keeps the last good
        runtime and the user is told."""
        if self.entry is None or self._build is None:
            return
        from . import inputs
        from .pool import successor

        cwd, settings = self._where
        with self._reload_lock:
            old = self.entry
            if inputs.stamp_of(old.rt, cwd, settings) == old.stamp:
                return
            shown = old.error
            new = successor(old, self._build, cwd, settings)
            if new is not old:
                new.rt.loop_state = old.rt.loop_state  # the session's fallback state goes on
                self.entry = new
            problem = new.error if new is old and new.error != shown else None
            if problem is None and new.missing and new is not old:
                problem = f"gating plugin {', '.join(sorted(new.missing))} disappeared: gating hooks deny"
        if problem is not None:
            self.channel.notify("ui.notify", {"message": f"agent-hooks: {problem}", "level": "error"})
        self._register()

    def _watch(self) -> None:
        from .inputs import POLL_SECONDS

        while not self._watching.wait(POLL_SECONDS):
            try:
                self._fresh()
            except Exception as exc:  # the watcher must not die; the next event checks again
                print(f"agenthooks serve --stdio: watching the settings failed: {_describe(exc)}", file=sys.stderr)

    def _register(self) -> None:
        from . import sessions

        entry = self.entry
        if entry is not None:
            sessions.register(self.host or "?", self._where[0], entry.policy, entry.loaded_at, entry.error,
                              sorted(entry.missing))

    def _notices(self) -> None:
        from ..notices import due

        if self.rt is not None:
            for line in due(self.rt):
                self.channel.notify("ui.notify", {"message": line, "level": "warning"})

    def serve(self) -> int:
        while True:
            message = self.channel.next_message()
            if message is None:
                return 0  # EOF: the agent is gone
            if self.dispatch(message) == "shutdown":
                return 0

    def dispatch(self, message: dict[str, object]) -> str | None:
        msg_id = message.get("id")
        method = message.get("method")
        is_request = "id" in message
        if not isinstance(method, str) or message.get("jsonrpc") != "2.0":
            if is_request:
                self.channel.reply_error(msg_id, RpcError(INVALID_REQUEST, "not a JSON-RPC 2.0 request"))
            return None
        params = message.get("params")
        if params is None:
            params = {}
        try:
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, f"{method}: params must be an object")
            handler = getattr(self, "do_" + method.replace(".", "_"), None)
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"unknown method {method!r}")
            bad = message.get(NON_FINITE)
            result = self._refuse(method, params, f"malformed message: {bad}") if bad else handler(params)
        except RpcError as exc:
            if is_request:
                self.channel.reply_error(msg_id, exc)
            return None
        except BaseException as exc:  # a bug of ours: say so, keep serving
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            if is_request:
                self.channel.reply_error(msg_id, RpcError(INTERNAL_ERROR, f"internal error: {_describe(exc)}"))
            return None
        if is_request:
            self.channel.reply(msg_id, result)
        return "shutdown" if method == "shutdown" else None

    def _refuse(self, method: str, params: dict[str, object], problem: str) -> dict[str, object]:
        """The answer to a message holding a number JSON does not have: a host event gets the
        adapter's failure (a deny when it gates), a gating ``fire`` a deny naming the field; any
        other message is malformed."""
        if method == "event":
            name = params.get("name")
            answer = self._adapter(params.get("host")).failure(name if isinstance(name, str) else None, problem)
            return {"answer": answer.body, "blocked": bool(answer.blocked), "errors": list(answer.stderr)}
        if method == "fire" and isinstance(hook := params.get("hook"), str):
            from ..discovery.gate import refusal

            outcome = refusal(hook, problem)
            if outcome is not None:
                return outcome
        raise RpcError(INVALID_PARAMS, problem)

    # -- methods ---------------------------------------------------------------------------

    def do_initialize(self, params: dict[str, object]) -> dict[str, object]:
        host = params.get("host")
        if not isinstance(host, str) or not host:
            raise RpcError(INVALID_PARAMS, "initialize: `host` must name the host (pi, omp, opencode)")
        from ..bridges import registry

        if registry.find(host) is None:
            raise RpcError(INVALID_PARAMS, f"initialize: unknown host {host!r}; one of {', '.join(registry.names())}")
        cwd = params.get("cwd")
        if not (isinstance(cwd, str) and os.path.isdir(cwd)):
            cwd = os.getcwd()
        session_id = params.get("session_id")
        self.host = host
        self.load_problem = None
        factory: RuntimeFactory = self.factory
        args: dict[str, object] = {"cwd": cwd, "host": host, "session_id": session_id if isinstance(session_id, str) else None,
                "ui": self.ui, "has_ui": params.get("has_ui") is True, "on_send_message": self._send_message,
                "on_append_entry": self._append_entry, "hooks": self.options.hooks,
                "settings": self.options.settings}
        self._build = lambda: factory(**args)
        self._where = (cwd, self.options.settings)
        from .pool import successor

        try:
            self.entry = successor(None, self._build, cwd, self.options.settings)
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            self.entry = None
            self.load_problem = f"could not load the plugins: {_describe(exc)}"
        else:
            self._register()
            if not self._watcher_started:
                self._watcher_started = True
                threading.Thread(target=self._watch, name="agenthooks-stdio-watch", daemon=True).start()
        adapter = self._adapter()
        events = adapter.subscriptions(self.rt)
        return {
            "protocol": PROTOCOL,
            "version": _version(),
            "events": events,
            "commands": self._commands(),
            "plugins": list(self.rt.plugins) if self.rt is not None else [],
            "errors": [self.load_problem] if self.load_problem else
            [str(e) for e in getattr(self.rt, "load_errors", ())],
        }

    def do_event(self, params: dict[str, object]) -> dict[str, object]:
        adapter = self._adapter(params.get("host"))
        name = params.get("name")
        payload = params.get("payload")
        if not isinstance(name, str) or not name:
            raise RpcError(INVALID_PARAMS, "event: `name` must be the host's event name")
        event = {"name": name, "payload": payload}
        from ..transports.dispatch import MAX_DEPTH, depth_exceeds

        self._fresh()
        if depth_exceeds(payload):
            answer = adapter.failure(name, f"the event is nested deeper than {MAX_DEPTH} levels")
        elif self.rt is None:
            answer = adapter.failure(name, self.load_problem or "not initialized")
        else:
            has_ui = params.get("has_ui")
            if isinstance(has_ui, bool):
                self.rt.has_ui = has_ui
            try:
                answer = adapter.handle(self.rt, event)
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                answer = adapter.failure(name, _describe(exc) if not _is_input_error(exc) else str(exc))
            self._notices()
        return {"answer": answer.body, "blocked": bool(answer.blocked), "errors": list(answer.stderr)}

    def do_fire(self, params: dict[str, object]) -> dict[str, object]:
        rt = self._runtime()
        hook = params.get("hook")
        if not isinstance(hook, str):
            raise RpcError(INVALID_PARAMS, "fire: `hook` must be a hook name")
        dialect = params.get("dialect")
        from ..errors import AgentHooksError

        try:
            if dialect in (None, "canonical"):
                outcome = rt.fire(hook, params.get("payload"))
            else:
                from ..dialects import fire_dialect

                outcome = fire_dialect(rt, str(dialect), hook, params.get("payload"))
        except AgentHooksError as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from None
        result = outcome.to_dict()
        if dialect not in (None, "canonical"):
            result["native"] = outcome.native
        return result

    def do_command(self, params: dict[str, object]) -> dict[str, object]:
        rt = self._runtime()
        name = params.get("name")
        args = params.get("args")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "command: `name` must be a command name")
        from ..commands import run_command

        try:
            output = run_command(rt, name, args if isinstance(args, str) else "")
        except LookupError as exc:
            raise RpcError(INVALID_PARAMS, str(exc.args[0] if exc.args else exc)) from None
        return {"output": output} if output is not None else {}

    def do_shutdown(self, params: dict[str, object]) -> dict[str, object]:
        self.close()
        return {}

    def close(self) -> None:
        from . import sessions

        self._watching.set()
        sessions.unregister()

    # -- helpers ---------------------------------------------------------------------------

    def _runtime(self) -> Runtime:
        self._fresh()
        if self.rt is None:
            raise RpcError(NOT_INITIALIZED, self.load_problem or "call initialize first")
        return self.rt

    def _adapter(self, host: object = None) -> HostAdapter:
        from ..bridges import registry

        name = host if isinstance(host, str) and host else self.host
        if name is None:
            raise RpcError(NOT_INITIALIZED, "call initialize first")
        record = registry.find(name)
        if record is None:
            raise RpcError(INVALID_PARAMS, f"unknown host {name!r}; one of {', '.join(registry.names())}")
        return record.load_adapter()

    def _commands(self) -> list[dict[str, str]]:
        if self.rt is None:
            return []
        from ..commands import declared_commands

        return [{"name": c.name, "description": c.description} for c in declared_commands(self.rt)]

    def _send_message(self, message: dict[str, object]) -> None:
        self.channel.notify("session.sendMessage", send_message_params(message))

    def _append_entry(self, entry: dict[str, object]) -> None:
        self.channel.notify("session.appendEntry",
                            {"customType": str(entry.get("custom_type")), "data": entry.get("data")})


def _is_input_error(exc: BaseException) -> bool:
    from ..bridges.base import BridgeInputError
    from ..errors import AgentHooksError

    return isinstance(exc, (BridgeInputError, AgentHooksError))


def main(argv: list[str] | None = None, *, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None,
         runtime_factory: RuntimeFactory | None = None) -> int:
    """Serve until EOF or ``shutdown``; returns the exit code."""
    try:
        options = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        sys.stderr.write(f"agenthooks serve --stdio: error: {exc}\n")
        return 2
    if options.help:
        sys.stderr.write(USAGE) if stdout is not None else sys.stdout.write(USAGE)
        return 0
    out: IO[bytes]
    if stdout is None:
        # the protocol keeps the real stdout; everything else written to fd 1 goes to stderr
        sys.stdout.flush()
        out = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    else:
        out = stdout
    channel = Channel(stdin if stdin is not None else sys.stdin.buffer, out)
    server = Server(channel, options, runtime_factory)
    try:
        return server.serve()
    finally:
        server.close()
