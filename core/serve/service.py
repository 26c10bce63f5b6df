"""The server's work, apart from HTTP: answer a host event, fire a canonical hook, report status.

Every answer is computed in a worker thread with a deadline (the adapter's ``answer_deadline``,
capped by :data:`MAX_DEADLINE`): a hung plugin costs its own request that long, never another
request, and the request still gets ``adapter.failure`` (a deny on gating events). Handlers that
run in these threads get the runtime's per-hook timeouts like anywhere else.
"""

from __future__ import annotations

import contextvars
import json
import threading
import time
from typing import Any

from ..bridges import ADAPTERS
from ..bridges import adapter as load_adapter
from ..bridges.base import CommandOptions, HostAnswer, UsageError, parse_command_args
from ..transports import dispatch
from ..transports.process import default_runtime_factory
from .pool import Pool
from .stats import Stats

MAX_DEADLINE = 55.0


class RequestError(Exception):
    """A request we will not serve: ``status`` and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Service:
    def __init__(self, pool: Pool | None = None, deadline: float | None = None) -> None:
        self.pool = pool or Pool()
        self.stats = Stats()
        if deadline is None:  # the same override as the per-event process (tests, slow machines)
            import os

            try:
                deadline = float(os.environ.get("AGENT_HOOKS_ANSWER_DEADLINE", "")) or None
            except ValueError:
                deadline = None
        self.deadline = deadline
        self._adapters: dict[str, Any] = {}

    # -- hosts ----------------------------------------------------------------------------------

    def adapter(self, host: str) -> Any:
        if host not in ADAPTERS:
            raise RequestError(404, f"unknown host {host!r} (known: {', '.join(sorted(ADAPTERS))})")
        if host not in self._adapters:
            self._adapters[host] = load_adapter(host)
        return self._adapters[host]

    def host_event(self, host: str, args: list[str], raw: bytes) -> HostAnswer:
        """The answer to one host event, as the per-event command would give it."""
        base = self.adapter(host)
        start = time.monotonic()
        try:
            parse = getattr(base, "parse_args", None)
            options: CommandOptions = parse(args) if parse is not None else parse_command_args(args)
        except UsageError as exc:
            _, name, _ = dispatch.decode(base, raw)
            answer = base.failure(name, str(exc))
        else:
            configure = getattr(base, "configure", None)
            adapter = configure(options) if configure is not None else base
            event, name, problem = dispatch.decode(adapter, raw, options.event)
            if problem is not None or event is None:
                answer = adapter.failure(name, problem or "unreadable event")
            else:
                deadline = self._deadline(adapter)
                answer = self._with_deadline(
                    lambda: dispatch.answer(adapter, event, name, self._builder(options)),
                    deadline, lambda: adapter.failure(name, f"no answer within {deadline:g} s (a plugin is hung?)"))
        self.stats.record(host, time.monotonic() - start, answer.blocked, answer.exit_code != 0)
        return answer

    def _deadline(self, adapter: Any) -> float:
        if self.deadline is not None:
            return self.deadline
        return min(float(getattr(adapter, "answer_deadline", MAX_DEADLINE)), MAX_DEADLINE)

    def _builder(self, options: CommandOptions) -> Any:
        """``build(runtime_options)`` for dispatch.answer: the pooled runtime, with this request's
        state installed until the work ends (:func:`_scoped` closes it)."""
        pool = self.pool

        def build(runtime_options: dict[str, Any]) -> Any:
            full = {**runtime_options, "hooks": list(options.hooks), "settings": options.settings}
            scope = pool.request(full, lambda o: default_runtime_factory(**o))
            rt = scope.__enter__()
            _SCOPES.set(scope)
            return rt

        return build

    @staticmethod
    def _with_deadline(work: Any, deadline: float, late: Any) -> Any:
        """``work()`` in a daemon thread (with this context); ``late()`` if it takes past ``deadline``."""
        box: list[Any] = []
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

    def fire(self, raw: bytes) -> dict[str, Any]:
        """``{"hook", "payload", "dialect"?, "cwd"?, "session_id"?, "hooks"?, "settings"?}`` -> Outcome."""
        try:
            request = json.loads(raw) if raw.strip() else None
        except RecursionError:
            raise RequestError(400, f"the request is nested deeper than {dispatch.MAX_DEPTH} levels") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise RequestError(400, f"the request is not valid JSON ({exc})") from None
        if not isinstance(request, dict) or not isinstance(request.get("hook"), str):
            raise RequestError(400, 'expected a JSON object with "hook" (and "payload")')
        if dispatch.depth_exceeds(request, dispatch.MAX_DEPTH + 2):
            raise RequestError(400, f"the request is nested deeper than {dispatch.MAX_DEPTH} levels")
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
        start = time.monotonic()

        def work() -> dict[str, Any]:
            with self.pool.request(options, lambda o: default_runtime_factory(**o)) as rt:
                out = rt.fire(request["hook"], request.get("payload"), dialect=request.get("dialect"))
                result = out.to_dict()
                if out.native is not None:
                    result["native"] = out.native
                return result

        deadline = self.deadline if self.deadline is not None else MAX_DEADLINE
        try:
            result = self._with_deadline(work, deadline, lambda: None)
        except Exception as exc:
            from ..errors import AgentHooksError

            if isinstance(exc, AgentHooksError):
                raise RequestError(400, str(exc).splitlines()[0]) from None
            raise
        if result is None:
            raise RequestError(504, f"no answer within {deadline:g} s (a plugin is hung?)")
        self.stats.record("fire", time.monotonic() - start, result.get("decision") in ("denied", "blocked"), False)
        return dict(result)

    def status(self) -> dict[str, Any]:
        snap = self.stats.snapshot()
        snap.update({"runtimes": len(self.pool), "plugins": self.pool.plugins(), "builds": self.pool.builds,
                     "last_reload": self.pool.last_reload})
        return snap


# the pool scope entered by build() in the request thread, closed when the work ends
_SCOPES: contextvars.ContextVar[Any] = contextvars.ContextVar("agent_hooks_serve_scope", default=None)


def _scoped(work: Any) -> Any:
    try:
        return work()
    finally:
        scope = _SCOPES.get()
        if scope is not None:
            _SCOPES.set(None)
            scope.__exit__(None, None, None)
