"""The per-event command transport: one host event on stdin, one answer on stdout, an exit code.

Every command host runs it (``agenthooks claude-code``; Codex, Gemini CLI and Cursor the same
way): ``main(adapter, argv)``. What it guarantees, whatever a plugin does:

* **one answer, always**: a gating event is answered in a *worker*, a fork of this process made
  before any plugin is imported; this process (the *answerer*) only reads stdin, waits for the
  worker's answer on a pipe and writes it. A worker that crashes, calls ``os._exit``, is killed
  or runs past the adapter's ``answer_deadline`` (cut to ``AGENT_HOOKS_ANSWER_BY`` when the fast
  client passes what is left of the event's budget) leaves no answer, and the answerer writes
  ``adapter.failure`` instead: a deny. Other events are answered in this process (the fork only
  pays where it protects a decision: a plugin that ends the process there costs an answer that
  decides nothing, and in-process hook timeouts still apply). Without ``fork`` (Windows), or
  with ``AGENT_HOOKS_BRIDGE_WORKER=0``, every event is answered in this process (no guard against
  ``os._exit``: the host config's fail-closed setting is the backstop there);
* **exactly one answer**: only the worker's own pid may send it; a plugin's forked child that
  returns through our code ends with ``os._exit(0)``, silently, and any child a plugin forks gets
  /dev/null for stdin, stdout and stderr (it can neither answer nor hold the host's pipes open);
* **stdout holds only the answer**: plugins' ``print()`` and child processes write to stderr;
* **prompt exit**: the answerer never runs plugin code, so nothing keeps it alive; the worker is
  given a short grace to finish and is then killed (a plugin's non-daemon thread cannot hold the
  host); inline, the process ends with ``os._exit`` after the answer when such a thread is left;
* **bad input is an answer**: oversized, non-JSON or too deeply nested input becomes
  ``adapter.failure`` (dispatch.py), never a traceback.

Standard library only: this is imported before the runtime.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from ..bridges.base import CommandOptions, HostAdapter, HostAnswer, UsageError
from . import dispatch

if TYPE_CHECKING:
    from ..runtime import Runtime

#: ``AGENT_HOOKS_BRIDGE_WORKER=0`` answers in this process (no worker fork)
ENV_WORKER = "AGENT_HOOKS_BRIDGE_WORKER"
#: seconds; overrides the adapter's ``answer_deadline``
ENV_DEADLINE = "AGENT_HOOKS_ANSWER_DEADLINE"
#: wall-clock time (seconds since the epoch) by which the answer must be written: the fast client
#: passes what is left of the event's budget, so the start-up of this process counts against it
ENV_ANSWER_BY = "AGENT_HOOKS_ANSWER_BY"
#: seconds kept after the deadline to write the answer and exit
WRITE_MARGIN = 0.2
#: when the adapter names none
DEFAULT_DEADLINE = 55.0
#: seconds the worker gets to exit after its answer before it is killed
GRACE = 1.0

RuntimeFactory = Callable[..., "Runtime"]


def default_runtime_factory(*, hooks: list[str], settings: str | None, **options: Any) -> Runtime:
    """The installed plugins and local hook files, with the user's and the project's settings."""
    from ..runtime import BRIDGE_GATE_TIMEOUT, Runtime

    options.setdefault("gate_timeout", BRIDGE_GATE_TIMEOUT)  # pre_tool fails closed before the deadline
    if hooks:
        options["hook_paths"] = list(hooks)
    if settings:
        options["settings_path"] = settings
    return Runtime.from_settings(**options)


def main(adapter: HostAdapter, argv: list[str] | None = None, *, stdin: IO[bytes] | None = None,
         stdout: IO[str] | None = None, stderr: IO[str] | None = None,
         runtime_factory: RuntimeFactory | None = None) -> int:
    """Answer one host event; returns the exit code the host should see.

    With the real process streams (no ``stdin``/``stdout`` given) the event is answered in a worker
    (see the module docstring); tests pass streams and a ``runtime_factory`` to answer in-process.
    """
    err = stderr if stderr is not None else sys.stderr
    real = stdin is None and stdout is None
    args = sys.argv[1:] if argv is None else list(argv)
    usage_problem: str | None = None
    try:
        options = adapter.parse_args(args)
    except UsageError as exc:
        options, usage_problem = CommandOptions(), str(exc)
    if options.help and usage_problem is None:
        (stdout if stdout is not None else sys.stdout).write(adapter.usage)
        return 0
    raw, read_problem = _read(stdin)
    if usage_problem is not None or read_problem is not None:
        _, name, _ = dispatch.decode(adapter, raw, options.event)
        answer = adapter.failure(name, usage_problem or read_problem or "")
    else:
        adapter = adapter.configure(options)
        factory = runtime_factory or default_runtime_factory
        if real and hasattr(os, "fork") and os.environ.get(ENV_WORKER, "1") != "0" and _gating(adapter, raw, options):
            answer = _in_worker(adapter, raw, options, factory, _deadline(adapter))
        else:
            answer = _inline(adapter, raw, options, factory, redirect=stdout is None)
    code = _write(adapter, answer, stdout, err)
    if real:
        _autostart()
    if real and _lingering_threads():
        os._exit(code)  # a plugin's non-daemon thread must not keep the host waiting
    return code


def _autostart() -> None:
    """After answering here because no server listens: start one for the next events (.autostart)."""
    relay = sys.modules.get(f"{__package__}.relay")
    if relay is not None and getattr(relay, "found_no_server", False):
        from .autostart import after_answer

        after_answer()


def _read(stdin: IO[bytes] | None) -> tuple[bytes, str | None]:
    try:
        raw = (stdin if stdin is not None else sys.stdin.buffer).read(dispatch.MAX_EVENT_BYTES + 1)
    except (OSError, ValueError) as exc:
        return b"", f"could not read stdin ({exc})"
    return raw or b"", None


def _gating(adapter: HostAdapter, raw: bytes, options: CommandOptions) -> bool:
    """True when the event decides whether an action runs (or cannot be read well enough to tell)."""
    _, name, _ = dispatch.decode(adapter, raw, options.event)
    return name is None or adapter.is_gating(name)


def _deadline(adapter: HostAdapter) -> float:
    """Seconds from now the worker gets: the adapter's (or ``ENV_DEADLINE``), cut to what is left
    before ``ENV_ANSWER_BY``."""
    try:
        value = float(os.environ.get(ENV_DEADLINE, ""))
    except ValueError:
        value = 0.0
    deadline = value if value > 0 else float(adapter.answer_deadline)
    try:
        by = float(os.environ.get(ENV_ANSWER_BY, ""))
    except ValueError:
        return deadline
    if by == by:  # not NaN
        deadline = min(deadline, max(by - time.time() - WRITE_MARGIN, 0.05))
    return deadline


def answer_event(adapter: HostAdapter, raw: bytes, options: CommandOptions, factory: RuntimeFactory) -> HostAnswer:
    """The answer to ``raw`` (no I/O besides what plugins do)."""
    event, name, problem = dispatch.decode(adapter, raw, options.event)
    if problem is not None or event is None:
        return adapter.failure(name, problem or "unreadable event")

    def build(runtime_options: dict[str, Any]) -> Runtime:
        return factory(**runtime_options, hooks=options.hooks, settings=options.settings)

    return dispatch.answer(adapter, event, name, build)


def _detach_from_host() -> None:
    """In a child a plugin forks (``os.fork``): stdin, stdout and stderr become /dev/null, so it can
    neither write a second answer nor keep the host waiting for our pipes to close, however long
    it lives (a child forked from a handler thread may never come back through our code)."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        for fd in list(_HOST_FDS):  # our saved copy of the host's stdout, too
            os.close(fd)
    except OSError:
        pass
    _HOST_FDS.clear()


#: descriptors of the host's pipes we keep aside (closed in a plugin's forked child)
_HOST_FDS: set[int] = set()
_guarded = False


def _guard_forks() -> None:
    global _guarded
    if not _guarded and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_detach_from_host)
        _guarded = True


def _inline(adapter: HostAdapter, raw: bytes, options: CommandOptions, factory: RuntimeFactory,
            redirect: bool) -> HostAnswer:
    pid = os.getpid()
    if redirect:  # the real process streams (tests that pass streams keep theirs)
        _guard_forks()
    with _StdoutToStderr(fd_level=redirect):
        answer = answer_event(adapter, raw, options, factory)
    if os.getpid() != pid:  # a plugin forked and its child came back through us: not our answer
        os._exit(0)
    return answer


# -- the worker ----------------------------------------------------------------------------------


def _in_worker(adapter: HostAdapter, raw: bytes, options: CommandOptions, factory: RuntimeFactory,
               deadline: float) -> HostAnswer:
    """The answer computed by a forked worker; ``adapter.failure`` when it gives none in time.

    The worker's stdout and stderr are a pipe this process relays to its own stderr: a process a
    plugin leaves behind (a fork, a child) then holds only that pipe, never the host's, so the host
    sees this process end when it ends."""
    _, name, _ = dispatch.decode(adapter, raw, options.event)  # cheap: for the failure answer
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    r, w = os.pipe()
    er, ew = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: never returns
        _worker(adapter, raw, options, factory, r, w, er, ew)
    os.close(w)
    os.close(ew)
    try:
        data, problem = _receive(r, er, pid, time.monotonic() + deadline, deadline)
    finally:
        os.close(r)
    _reap(pid, er)
    if data is not None:
        try:
            return dispatch.answer_from_dict(json.loads(data))
        except (ValueError, RecursionError) as exc:
            problem = f"the bridge worker's answer is unreadable ({exc})"
    return adapter.failure(name, problem or "the bridge worker gave no answer")


def _worker(adapter: HostAdapter, raw: bytes, options: CommandOptions, factory: RuntimeFactory, r: int, w: int,
            er: int, ew: int) -> None:
    me = os.getpid()
    try:
        os.close(r)
        os.close(er)
        os.dup2(ew, 1)  # only the answerer writes stdout: what plugins print goes to the relay
        os.dup2(ew, 2)
        os.close(ew)
        sys.stdout = sys.stderr
        _guard_forks()
        try:
            answer = answer_event(adapter, raw, options, factory)
        except BaseException as exc:  # answer_event catches everything; this is belt and braces
            answer = adapter.failure(dispatch.decode(adapter, raw, options.event)[1],
                                     f"internal error: {dispatch.describe(exc)}")
        if os.getpid() != me:  # a plugin's forked child came back through us
            os._exit(0)
        data = json.dumps(dispatch.answer_to_dict(answer)).encode("ascii")
        _write_all(w, b"%d\n" % len(data) + data)
        os.close(w)
        try:
            sys.stderr.flush()
            import atexit

            atexit._run_exitfuncs()  # what plugins registered (bounded: the answerer kills us after GRACE)
        except BaseException:
            pass
    finally:
        if os.getpid() == me:
            try:
                sys.stderr.flush()
            except BaseException:
                pass
        os._exit(0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _relay(er: int) -> bool:
    """Copy what the worker wrote to its stderr to ours; False at EOF."""
    try:
        chunk = os.read(er, 1 << 16)
    except OSError:
        return False
    if chunk:
        try:
            _write_all(2, chunk)
        except OSError:
            pass
    return bool(chunk)


def _receive(r: int, er: int, pid: int, until: float, deadline: float) -> tuple[bytes | None, str | None]:
    """(the worker's message, None) or (None, why there is none)."""
    import select

    chunks: list[bytes] = []
    size = 0
    expected: int | None = None
    relaying = True
    while True:
        remaining = until - time.monotonic()
        if remaining <= 0:
            return None, f"no answer within {deadline:g} s (a plugin is hung?)"
        ready, _, _ = select.select([r, er] if relaying else [r], [], [], min(remaining, 0.5))
        if not ready:
            # EOF never comes while a plugin's forked child holds the pipe: check the worker itself
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return None, _ended(status)
            continue
        if er in ready:
            relaying = _relay(er)
        if r not in ready:
            continue
        chunk = os.read(r, 1 << 16)
        if not chunk:
            done, status = os.waitpid(pid, 0)
            return None, _ended(status)
        chunks.append(chunk)
        size += len(chunk)
        if expected is None:
            head = b"".join(chunks)
            newline = head.find(b"\n")
            if newline < 0:
                continue
            try:
                expected = newline + 1 + int(head[:newline])
            except ValueError:
                return None, "the bridge worker's answer is malformed"
        if size >= expected:
            data = b"".join(chunks)
            return data[data.index(b"\n") + 1:expected], None


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"the bridge worker was killed by signal {os.WTERMSIG(status)} before answering"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return f"the bridge worker exited (status {code}) before answering: a plugin ended the process"


def _reap(pid: int, er: int) -> None:
    """Relay the worker's last stderr while it finishes, up to :data:`GRACE`; then kill it."""
    import select
    import signal

    until = time.monotonic() + GRACE
    relaying = True
    try:
        pidfd: int | None = os.pidfd_open(pid)  # readable when it exits: no polling
    except (AttributeError, OSError):
        pidfd = None
    try:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                return
            if done:
                while relaying and select.select([er], [], [], 0)[0]:
                    relaying = _relay(er)  # what it wrote just before exiting
                return
            remaining = until - time.monotonic()
            if remaining <= 0:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
                return
            # wait for more output, its exit or the grace to pass; without a pidfd a quiet worker is
            # polled every 10 ms
            watch = ([er] if relaying else []) + ([pidfd] if pidfd is not None else [])
            step = remaining if pidfd is not None else min(remaining, 0.01)
            if watch:
                ready = select.select(watch, [], [], step)[0]
                if er in ready:
                    relaying = _relay(er)
            else:
                time.sleep(step)  # polling a child's exit: bounded by GRACE
    finally:
        os.close(er)
        if pidfd is not None:
            os.close(pidfd)


# -- writing -------------------------------------------------------------------------------------


def write_answer(adapter: HostAdapter, answer: HostAnswer) -> int:
    """Write ``answer`` to this process's stdout and stderr; returns its exit code."""
    return _write(adapter, answer, None, sys.stderr)


def _write(adapter: HostAdapter, answer: HostAnswer, stdout: IO[str] | None, err: IO[str]) -> int:
    """Write ``answer``; returns its exit code. A body that cannot be encoded becomes a failure."""
    try:
        data = dispatch.encode_body(answer.body) if answer.body is not None else b""
    except (TypeError, ValueError, RecursionError) as exc:
        answer = adapter.failure(None, f"internal error: the answer cannot be encoded ({dispatch.describe(exc)})")
        data = dispatch.encode_body(answer.body) if answer.body is not None else b""
    for line in answer.stderr:
        err.write(line.rstrip("\n") + "\n")
    err.flush()
    if data:
        if stdout is not None:
            stdout.write(data.decode("utf-8") + "\n")
            stdout.flush()
        else:
            sys.stdout.buffer.write(data + b"\n")
            sys.stdout.buffer.flush()
    return answer.exit_code


def _lingering_threads() -> bool:
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


class _StdoutToStderr:
    """While plugins run, anything written to stdout (fd 1 too, with ``fd_level``) goes to stderr."""

    def __init__(self, fd_level: bool) -> None:
        self.fd_level = fd_level
        self.saved_fd: int | None = None
        self.saved_obj: Any = None

    def __enter__(self) -> None:
        self.saved_obj = sys.stdout
        sys.stdout = sys.stderr
        if self.fd_level:
            try:
                sys.__stdout__.flush() if sys.__stdout__ else None
                self.saved_fd = os.dup(1)
                _HOST_FDS.add(self.saved_fd)
                os.dup2(2, 1)
            except OSError:
                self.saved_fd = None

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self.saved_obj
        if self.saved_fd is not None:
            try:
                sys.stderr.flush()
                os.dup2(self.saved_fd, 1)
            finally:
                _HOST_FDS.discard(self.saved_fd)
                os.close(self.saved_fd)
