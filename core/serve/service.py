"""The server's work, apart from HTTP: answer a host event, fire a canonical hook, report status.

In the server, :class:`Service` hands the raw request to a worker process (:mod:`.workers`) with a
deadline (the adapter's ``answer_deadline``, capped by :data:`MAX_DEADLINE`); the worker runs the
same class's ``*_inline`` methods, which decode and validate it. A worker that gives no
answer in time is killed and replaced, and the request gets ``adapter.failure`` (a deny on gating
events): a hung plugin costs its own request that long, never another request. With
``AGENT_HOOKS_SERVE_WORKERS=0`` the work runs in a thread of the server instead (bounded, but a
plugin that holds the GIL stalls everyone: for debugging only).
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..bridges import registry
from ..bridges.base import CommandOptions, HostAdapter, HostAnswer, UsageError
from ..bridges.hostkit.shape import load_json
from ..transports import dispatch
from ..transports.process import default_runtime_factory
from .pool import Pool
from .stats import Stats

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..runtime import Runtime
    from .loop import Loop
    from .workers import Workers

MAX_DEADLINE = 55.0

T = TypeVar("T")


class _Refused(Exception):
    """A gating request answered with a deny before any plugin saw it (``outcome``: its answer)."""

    def __init__(self, outcome: dict[str, Any]) -> None:
        super().__init__(outcome.get("hook"))
        self.outcome = outcome


class RequestError(Exception):
    """A request we will not serve: ``status`` and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Service:
    def __init__(self, pool: Pool | None = None, deadline: float | None = None, workers: Workers | None = None) -> None:
        self.pool = pool or Pool()
        #: the worker processes (.workers.Workers); None: answer in this process
        self.workers = workers
        self.stats = Stats()
        if deadline is None:  # the same override as the per-event process (tests, slow machines)
            import os

            try:
                deadline = float(os.environ.get("AGENT_HOOKS_ANSWER_DEADLINE", "")) or None
            except ValueError:
                deadline = None
        self.deadline = deadline
        self._adapters: dict[str, HostAdapter] = {}
        self._loop: Loop | None = None
        self._loop_lock = threading.Lock()
        from ..runpaths import environment_key

        #: what a per-event process must match to have its event answered here (taken before
        #: anything could change sys.path)
        self.environment = environment_key()

    # -- hosts ----------------------------------------------------------------------------------

    def adapter(self, host: str) -> HostAdapter:
        record = registry.find(host)
        if record is None:
            raise RequestError(404, f"unknown host {host!r} (known: {', '.join(sorted(registry.names()))})")
        if host not in self._adapters:
            self._adapters[host] = record.load_adapter()
        return self._adapters[host]

    def refuse_relay(self, host: str, environment: str) -> tuple[int, str] | None:
        """(status, why) when a per-event process of ``host`` with ``environment`` must answer its
        event itself: its runtime would be built from other inputs, or the host has no such process."""
        if environment != self.environment:
            return 409, "this server runs for another environment (settings or host directories, sys.path)"
        record = registry.find(host)
        if record is None or record.command is None:
            return 404, f"{host!r} has no per-event command"
        return None

    def host_event(self, host: str, args: list[str], raw: bytes) -> HostAnswer:
        """The answer to one host event, as the per-event command would give it."""
        start = time.monotonic()
        answer = self._host_event(host, args, raw, self.workers is None)
        self.stats.record(host, time.monotonic() - start, answer.blocked, answer.exit_code != 0)
        return answer

    def host_event_inline(self, host: str, args: list[str], raw: bytes) -> HostAnswer:
        """The same, computed in this process with no deadline of its own (in a worker)."""
        return self._host_event(host, args, raw, False, inline=True)

    def _host_event(self, host: str, args: list[str], raw: bytes, threaded: bool, inline: bool = False) -> HostAnswer:
        base = self.adapter(host)
        if not (inline or threaded):
            return self._in_worker(host, base, args, raw)
        try:
            options = base.parse_args(args)
        except UsageError as exc:
            _, name, _ = dispatch.decode(base, raw)
            return base.failure(name, str(exc))
        adapter = base.configure(options)
        event, name, problem = dispatch.decode(adapter, raw, options.event)
        if problem is not None or event is None:
            return adapter.failure(name, problem or "unreadable event")
        if inline:
            return _scoped(lambda: dispatch.answer(adapter, event, name, self._builder(options)))
        deadline = self._deadline(adapter)
        late = f"no answer within {deadline:g} s (a plugin is hung?)"
        return self._with_deadline(lambda: dispatch.answer(adapter, event, name, self._builder(options)),
                                   deadline, lambda: adapter.failure(name, late))

    def _in_worker(self, host: str, base: HostAdapter, args: list[str], raw: bytes) -> HostAnswer:
        """The raw event goes to a worker as it came: the worker decodes and validates it (and
        answers a bad one with the adapter's failure); only when the worker fails does this process
        read the event, for the failure's event name (:meth:`host_failure`)."""
        from .workers import WorkerGone

        if self.workers is None:  # not reached: without workers the work is threaded
            return self.host_failure(host, args, raw, "no worker to answer")
        try:
            reply = self.workers.call({"op": "host", "host": host, "args": list(args)}, raw, self._deadline(base))
        except WorkerGone as exc:
            return self.host_failure(host, args, raw, str(exc))
        if "answer" not in reply:
            error = reply.get("error")
            return self.host_failure(host, args, raw, str(error[1]) if isinstance(error, list) and len(error) == 2
                                     else "the worker's answer is malformed")
        try:
            return dispatch.answer_from_dict(reply["answer"])
        except ValueError as exc:
            return self.host_failure(host, args, raw, f"the worker's answer is unreadable ({exc})")

    def host_failure(self, host: str, args: list[str], raw: bytes, problem: str) -> HostAnswer:
        """``adapter.failure`` for this event (a deny on gating events): what a request gets when
        the worker gave no answer."""
        base = self.adapter(host)
        try:
            options = base.parse_args(args)
        except UsageError:
            _, name, _ = dispatch.decode(base, raw)
            return base.failure(name, problem)
        adapter = base.configure(options)
        _, name, _ = dispatch.decode(adapter, raw, options.event)
        return adapter.failure(name, problem)

    def fire_deadline(self) -> float:
        return self.deadline if self.deadline is not None else MAX_DEADLINE

    def answering_loop(self) -> Loop | None:
        """The loop that answers both listeners' requests through the workers (loop.py); None
        without workers (each connection then has a thread of its own)."""
        if self.workers is None:
            return None
        with self._loop_lock:
            if self._loop is None:
                from .loop import Loop

                self._loop = Loop(self)
            return self._loop

    def host_deadline(self, host: str) -> float:
        """Seconds a worker has for one event of ``host`` (RequestError for an unknown host)."""
        return self._deadline(self.adapter(host))

    def _deadline(self, adapter: HostAdapter) -> float:
        if self.deadline is not None:
            return self.deadline
        return min(float(adapter.answer_deadline), MAX_DEADLINE)

    def _builder(self, options: CommandOptions) -> Callable[[dict[str, Any]], Runtime]:
        """``build(runtime_options)`` for dispatch.answer: the pooled runtime, with this request's
        state installed until the work ends (:func:`_scoped` closes it)."""
        pool = self.pool

        def build(runtime_options: dict[str, Any]) -> Runtime:
            full = {**runtime_options, "hooks": list(options.hooks), "settings": options.settings}
            scope = pool.request(full, lambda o: default_runtime_factory(**o))
            rt = scope.__enter__()
            _SCOPES.set(scope)
            return rt

        return build

    @staticmethod
    def _with_deadline(work: Callable[[], T], deadline: float, late: Callable[[], T]) -> T:
        """``work()`` in a daemon thread (with this context); ``late()`` if it takes past ``deadline``."""
        box: list[T | BaseException] = []
        done = threading.Event()
        context = contextvars.copy_context()

        def run() -> None:
            try:
                box.append(context.run(_scoped, work))
            except BaseException as exc:  # dispatch.answer catches; a bug here must still answer
                box.append(exc)
            finally:
                done.set()

        threading.Thread(target=run, name="agent-hooks-request", daemon=True).start()
        if not done.wait(deadline) or not box:
            return late()
        result = box[0]
        if isinstance(result, BaseException):
            raise result
        return result

    # -- canonical fire -------------------------------------------------------------------------

    def fire(self, raw: bytes) -> dict[str, object]:
        """``{"hook", "payload", "dialect"?, "cwd"?, "session_id"?, "hooks"?, "settings"?}`` -> Outcome."""
        start = time.monotonic()
        try:
            self._fire_options(raw)  # a bad request is refused here, before any worker is busy with it
        except _Refused as refused:
            self.stats.record("fire", time.monotonic() - start, True, False)
            return refused.outcome
        deadline = self.fire_deadline()
        if self.workers is None:
            result = self._with_deadline(lambda: self.fire_inline(raw), deadline, lambda: None)
        else:
            from .workers import WorkerGone

            try:
                reply = self.workers.call({"op": "fire"}, raw, deadline)
            except WorkerGone as exc:
                raise RequestError(504, str(exc)) from None
            error = reply.get("error")
            if isinstance(error, list) and len(error) == 2:
                raise RequestError(int(error[0]), str(error[1]))
            result = reply.get("result")
        if not isinstance(result, dict):
            raise RequestError(504, f"no answer within {deadline:g} s (a plugin is hung?)")
        self.stats.record("fire", time.monotonic() - start, result.get("decision") in ("denied", "blocked"), False)
        return dict(result)

    @staticmethod
    def _fire_options(raw: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the request, runtime options); RequestError for a request we will not serve."""
        try:
            request, non_finite = load_json(raw) if raw.strip() else (None, None)
        except RecursionError:
            raise RequestError(400, f"the request is nested deeper than {dispatch.MAX_DEPTH} levels") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise RequestError(400, f"the request is not valid JSON ({exc})") from None
        if not isinstance(request, dict) or not isinstance(request.get("hook"), str):
            raise RequestError(400, 'expected a JSON object with "hook" (and "payload")')
        if dispatch.depth_exceeds(request, dispatch.MAX_DEPTH + 2):
            raise RequestError(400, f"the request is nested deeper than {dispatch.MAX_DEPTH} levels")
        if non_finite:  # a gating hook is denied naming the field; any other request is malformed
            from ..discovery.gate import refusal

            outcome = refusal(request["hook"], f"malformed request: {non_finite}")
            if outcome is None:
                raise RequestError(400, f"malformed request: {non_finite}")
            raise _Refused(outcome)
        cwd = request.get("cwd")
        hooks = request.get("hooks") or []
        if not (cwd is None or isinstance(cwd, str)) or not (isinstance(hooks, list)
                                                            and all(isinstance(h, str) for h in hooks)):
            raise RequestError(400, '"cwd" must be a string and "hooks" a list of strings')
        import os

        options = {"cwd": cwd if cwd and os.path.isdir(cwd) else os.getcwd(), "host": "python",
                   "session_id": request.get("session_id") if isinstance(request.get("session_id"), str) else None,
                   "hooks": hooks, "settings": request.get("settings") if isinstance(request.get("settings"), str)
                   else None}
        return request, options

    def fire_inline(self, raw: bytes) -> dict[str, object]:
        """The Outcome of one ``/fire`` request, computed in this process (in a worker)."""
        try:
            request, options = self._fire_options(raw)
        except _Refused as refused:
            return refused.outcome
        try:
            with self.pool.request(options, lambda o: default_runtime_factory(**o)) as rt:
                out = rt.fire(request["hook"], request.get("payload"), dialect=request.get("dialect"))
                result = out.to_dict()
                if out.native is not None:
                    result["native"] = out.native
                return result
        except Exception as exc:
            from ..errors import AgentHooksError

            if isinstance(exc, AgentHooksError):
                raise RequestError(400, str(exc).splitlines()[0]) from None
            raise

    def pool_status(self) -> dict[str, Any]:
        """This process's warm runtimes (a worker's part of ``serve status``)."""
        return {"runtimes": len(self.pool), "plugins": self.pool.plugins(), "builds": self.pool.builds,
                "last_reload": self.pool.last_reload, "last_error": self.pool.last_error,
                "policies": self.pool.policies()}

    def status(self) -> dict[str, Any]:
        snap = self.stats.snapshot()
        if self.workers is None:
            parts = [self.pool_status()]
            snap["workers"] = []
        else:
            ws = self.workers.status()
            parts = list(ws["pools"].values())
            snap.update({"workers": ws["workers"], "workers_replaced": ws["workers_replaced"]})
            for pid, part in ws["pools"].items():
                for policy in part.get("policies", []):
                    policy["worker"] = pid
        reloads = [p["last_reload"] for p in parts if p.get("last_reload")]
        snap.update({"runtimes": sum(p.get("runtimes", 0) for p in parts),
                     "plugins": sorted({n for p in parts for n in p.get("plugins", [])}),
                     "builds": sum(p.get("builds", 0) for p in parts),
                     "last_reload": max(reloads) if reloads else None,
                     "policy_errors": sorted({p["last_error"] for p in parts if p.get("last_error")}),
                     "policies": [q for p in parts for q in p.get("policies", [])]})
        return snap


# the pool scope entered by build() in the request thread, closed when the work ends
_SCOPES: contextvars.ContextVar[AbstractContextManager[Runtime] | None] = contextvars.ContextVar("agent_hooks_serve_scope", default=None)


def _scoped(work: Callable[[], T]) -> T:
    try:
        return work()
    finally:
        scope = _SCOPES.get()
        if scope is not None:
            _SCOPES.set(None)
            scope.__exit__(None, None, None)
