"""The reducer adapter: turns the answers of many handlers into one result, by the hook's rule.

One :class:`Reduction` lives for one hook call. The runtime feeds it each handler's answer in
order (:meth:`Reduction.accept`) or each handler's failure (:meth:`Reduction.fail`); either may
end the call (short-circuit, first-result, fail-closed). :meth:`Reduction.finish` returns the
combined result. The rules, per docs/design.md (per hook: docs/hooks.md):

========================  =====================================================================
observe                   answers ignored; every handler runs
chain(f)                  each handler sees the event as updated by earlier answers' fields ``f``
short-circuit(x)          the first answer setting ``x`` truthy ends the call; its fields win
concat(inject)            non-empty strings joined with newlines, in handler order
accumulate                lists from every handler, in order
include/exclude           includes intersect, excludes union; both in one answer is invalid
merge-patch               each ``request_body`` applied in order as an RFC 7386 merge patch
last-wins                 the last handler that sets the field wins
saturating-sum            ``fuel_delta`` summed; ``fuel`` applied step by step, never below 0
deny-wins                 any ``denied: true`` denies (first reason kept); no handler → denied
first-result              the first answer that sets one of the hook's claim fields (not to
                          ``false``) wins
verdict                   ``decision``: any deny wins (ends the call), else any ask, else an allow
                          from a plugin in :attr:`Reduction.approvers`; an allow from anyone else
                          is invalid (and fails closed)
bounded                   a ``continue`` is overruled (``limit_reached``) once the payload's
                          ``continuations`` reached its ``limit``
fail-closed               an error or an invalid answer blocks (``pre_tool``) or denies
========================  =====================================================================

A ``block``/``denied`` answer without a reason gets one naming the plugin (``blocked by guard``);
``reason`` and ``message`` mirror each other where the hook's result has both. An answer setting a
field the runtime computes (``HookDef.computed``: ``tools``, ``fuel``, ``fallback_source``) is
invalid.
"""

from __future__ import annotations

import copy
from typing import Any

from .errors import HookError
from .event import HookEvent
from .hookspecs._fields import RESULT_FIELDS
from .hookspecs.catalogue import HookDef
from .mergepatch import merge_patch
from .validation import check_answer

#: hook -> the fields of its result that say why ("reason", "message"), for block/deny mirroring
_WHY: dict[str, tuple[str, ...]] = {
    hook: tuple(name for name in ("reason", "message") if name in fields)
    for hook, fields in RESULT_FIELDS.items() if fields
}
_WHY["pre_tool_output"] = ()  # its `message` is what the model sees instead of the output, not a reason


class LoopState:
    """Fallback set by ``pre_agentic_loop``, read by ``post_tool_batch`` (per context)."""

    def __init__(self, default_fallback: str | None = None) -> None:
        self.default_fallback = default_fallback
        self.fallback: dict[Any, str | None] = {}


#: the fields whose truthy value means the action does not happen, and the decision name
_STOPS = (("denied", "denied"), ("block", "blocked"), ("cancel", "blocked"), ("handled", "blocked"),
          ("continue", "blocked"))
_STOP_FIELDS = frozenset(name for name, _ in _STOPS)
#: combined-result fields that describe rather than change
_NEUTRAL = frozenset({"denied", "reason", "message", "tools", "fallback_source", "decision", "continue",
                      "limit_reached"})


def decide(hook: str, data: dict[str, object] | None) -> str:
    """The decision a combined result stands for: denied, blocked, modified, allowed or observed.

    :meth:`Reduction.finish` calls it once per hook call; an :class:`~agent_hooks_core.runtime.Outcome`
    built by hand (tests, replays) falls back to it.
    """
    if data is None:
        return "observed"
    if data.get("decision") == "deny":
        return "denied"
    for name, decision in _STOPS:
        if data.get(name):
            return decision
    if data.get("fallback_source") == "default":
        data = {k: v for k, v in data.items() if k != "fallback"}
    if hook == "pre_api_tools":
        return "modified" if ("include" in data or "exclude" in data) else "allowed"
    return "modified" if any(k not in _NEUTRAL for k in data) else "allowed"


class Reduction:
    __slots__ = ("answered", "approvers", "decision", "errors", "event", "exclude", "fuel_delta", "hd",
                 "include", "loop", "parts", "result", "stopped", "stopped_by", "stopper")

    def __init__(self, hd: HookDef, data: dict[str, object], loop: LoopState | None = None) -> None:
        self.hd = hd
        for name in hd.deep_copy:
            if name in data:
                data[name] = copy.deepcopy(data[name])
        self.event = HookEvent(hd.name, data)
        self.result: dict[str, object] = {}
        self.answered: list[str] = []
        self.errors: list[HookError] = []
        self.stopped = False
        #: the last plugin whose answer (or failure, on a fail-closed hook) set a stop field
        self.stopper: str | None = None
        #: set by :meth:`finish`: the decision, and who made it when the action does not happen
        self.decision = "observed"
        self.stopped_by: str | None = None
        self.include: list[str] | None = None
        self.exclude: list[str] = []
        self.parts: dict[str, list[str]] = {}
        self.fuel_delta: list[int] = []
        self.loop = loop
        #: plugins whose ``allow`` counts on a verdict hook (they declare ``agent_hooks_approver``)
        self.approvers: frozenset[str] = frozenset()

    # -- feeding -------------------------------------------------------------------------

    def accept(self, plugin: str, answer: object) -> bool:
        """Apply one handler's answer; True when the call ends here."""
        if answer is None:
            return False
        hd = self.hd
        if hd.observe:
            return False  # observe hooks ignore what handlers return
        if type(answer) is not dict:
            as_dict = _as_dict(answer)
            if as_dict is None:
                return self.fail(plugin, "answer must be a dict, a result model or None, not "
                                         f"{type(answer).__name__}", "invalid")
            answer = as_dict
        fields, problem = check_answer(hd.name, answer)
        if problem:
            return self.fail(plugin, problem, "invalid")
        if not fields:
            return False  # {} = no opinion
        for name in hd.computed:
            if name in fields:
                return self.fail(plugin, f"result field {name!r} is computed by the runtime; "
                                         "a handler may not set it", "invalid")
        if hd.tool_filter:
            return self._filter(plugin, fields)
        if hd.verdict:
            return self._verdict(plugin, fields)
        if not _STOP_FIELDS.isdisjoint(fields) and any(fields.get(n) for n in _STOP_FIELDS):
            self.stopper = plugin
        if hd.first_result:
            if any(fields.get(n, False) is not False for n in hd.first_result_needs):
                self.answered.append(plugin)
                self.result.update(fields)
                if fields.get("block"):
                    self._default_reason(plugin)
                return self._stop()
            return False
        self.answered.append(plugin)
        result = self.result
        event = self.event
        for name in hd.stop_on:
            if fields.get(name):
                self._apply_chain(fields)
                result.update(fields)
                if name in ("block", "denied", "continue"):
                    self._default_reason(plugin)
                return self._stop()
        self._apply_chain(fields)
        if hd.merge_patch and hd.merge_patch in fields:
            name = hd.merge_patch
            event[name] = merge_patch(event.get(name), fields[name])
            result[name] = event[name]
        for name in hd.concat:
            if fields.get(name):
                self.parts.setdefault(name, []).append(fields[name])
        for source, target in hd.accumulate:
            if source in fields:
                value = fields[source]
                acc = result.setdefault(target, [])
                if isinstance(acc, list):
                    acc.extend(value if isinstance(value, list) else [value])
        for name in hd.last_wins:
            if name in fields:
                result[name] = fields[name]
        if "fuel_delta" in fields and hd.fuel:
            self.fuel_delta.append(fields["fuel_delta"])
        return False

    def _default_reason(self, plugin: str) -> None:
        """A block or denial without a reason gets one naming the plugin (hosts show it)."""
        why = _WHY.get(self.hd.name, ())
        if why and not any(self.result.get(n) for n in why):
            if self.hd.bounded:
                self.result[why[0]] = f"{self.hd.name}: {plugin} says the work is not done"
            else:
                verb = "denied" if self.hd.permission or self.hd.verdict else "blocked"
                self.result[why[0]] = f"{self.hd.name}: {verb} by {plugin}"

    def _verdict(self, plugin: str, fields: dict[str, object]) -> bool:
        decision = fields.get("decision")
        if decision == "allow" and plugin not in self.approvers:
            return self.fail(plugin, "answered allow but is not an approver (a plugin that may approve "
                                     "declares agent_hooks_approver = True)", "invalid")
        self.answered.append(plugin)
        self._apply_chain(fields)
        result = self.result
        if decision == "deny":
            result["decision"] = "deny"
            result.pop("reason", None)
            if fields.get("reason"):
                result["reason"] = fields["reason"]
            self._default_reason(plugin)
            self.stopper = plugin
            return self._stop()
        # ask beats allow whatever the order; the first reason of the winning kind is kept
        if decision == "ask" and result.get("decision") != "ask":
            result["decision"] = "ask"
            result.pop("reason", None)
        elif decision == "allow" and result.get("decision") is None:
            result["decision"] = "allow"
        else:
            return False
        if fields.get("reason"):
            result["reason"] = fields["reason"]
        return False

    def _apply_chain(self, fields: dict[str, object]) -> None:
        for name in self.hd.chain:
            if name in fields:
                self.event[name] = fields[name]
                self.result[name] = fields[name]

    def _filter(self, plugin: str, fields: dict[str, object]) -> bool:
        inc, exc = _names(fields.get("include")), _names(fields.get("exclude"))
        if inc is not None and exc is not None:
            return self.fail(plugin, "an answer may carry include or exclude, not both", "invalid",
                             closed=False)
        if inc is None and exc is None:
            return False
        self.answered.append(plugin)
        if inc is not None:
            self.include = list(inc) if self.include is None else [n for n in self.include if n in inc]
        if exc is not None:
            self.exclude.extend(n for n in exc if n not in self.exclude)
        return False

    def fail(self, plugin: str, message: str, kind: str = "error", *, closed: bool = True) -> bool:
        """Record a handler's failure; True when the hook fails closed and the call ends here."""
        hd = self.hd
        self.errors.append(HookError(plugin, hd.name, message, kind))
        if not (closed and hd.fail_closed):
            return False
        reason = f"{plugin} failed ({message}); {hd.name} fails closed"
        if hd.permission:
            self.result.update(denied=True, reason=reason)
        elif hd.verdict:
            self.result.update(decision="deny", reason=reason)
        else:
            self.result["block"] = True
            for name in _WHY.get(hd.name, ()):
                self.result[name] = reason
        self.answered.append(plugin)
        self.stopper = plugin
        return self._stop()

    def _stop(self) -> bool:
        self.stopped = True
        return True

    # -- the combined result ----------------------------------------------------------------

    def finish(self, handler_count: int) -> dict[str, object] | None:
        """The combined result; also sets :attr:`decision` and :attr:`stopped_by`."""
        result = self._combine(handler_count)
        self.decision = decide(self.hd.name, result)
        self.stopped_by = self.stopper if self.decision in ("denied", "blocked") else None
        return result

    def _combine(self, handler_count: int) -> dict[str, object] | None:
        hd = self.hd
        if hd.observe:
            return None
        result = self.result
        for name, parts in self.parts.items():
            result[name] = "\n".join(parts)
        if hd.tool_filter:
            tools = self.event.get("tools") or []
            include, exclude = self.include, set(self.exclude)
            result["tools"] = [
                t for t in tools
                if (include is None or _tool_name(t) in include) and _tool_name(t) not in exclude
            ]
            if include is not None:
                result["include"] = include
            if self.exclude:
                result["exclude"] = list(self.exclude)
        if hd.permission:
            if handler_count == 0 and hd.deny_without_handler:
                result.update(denied=True, reason=f"no handler for {hd.name}: denied (fail-safe)")
            result.setdefault("denied", False)
        if result.get("block") and len(_WHY.get(hd.name, ())) == 2:
            # chibi says `message`, pi says `reason`: hosts may read either
            reason, message = result.get("reason"), result.get("message")
            if reason is None and message is not None:
                result["reason"] = message
            elif message is None and reason is not None:
                result["message"] = reason
        if hd.fuel:
            self._fuel(result)
        if hd.bounded and result.get("continue"):
            limit, done = self.event.get("limit"), self.event.get("continuations") or 0
            if limit is not None and done >= limit:
                result.update({"continue": False, "limit_reached": True})
                self.stopper = None
        return result

    def _fuel(self, result: dict[str, object]) -> None:
        event, loop = self.event, self.loop
        key = event.get("context_name")
        if self.fuel_delta:
            result["fuel_delta"] = sum(self.fuel_delta)
            fuel = event.get("fuel_remaining")
            if fuel is not None:
                for delta in self.fuel_delta:  # saturating at every step, like chibi's counter
                    fuel = max(0, fuel + delta)
                result["fuel"] = fuel
        # fallback precedence: post_tool_batch > pre_agentic_loop > configured default
        if "fallback" in result:
            result["fallback_source"] = self.hd.name
        elif self.hd.name == "post_tool_batch" and loop is not None and loop.fallback.get(key):
            result["fallback"] = loop.fallback[key]
            result["fallback_source"] = "pre_agentic_loop"
        else:
            default = event.get("current_fallback") or (loop.default_fallback if loop else None)
            if default:
                result["fallback"] = default
                result["fallback_source"] = "default"
        if loop is not None and self.hd.name == "pre_agentic_loop":
            fallback = result["fallback"] if result.get("fallback_source") == self.hd.name else None
            loop.fallback[key] = fallback if isinstance(fallback, str) else None


def _names(value: object) -> list[str] | None:
    """A list of tool names as validation passed it (None when absent)."""
    return [str(v) for v in value] if isinstance(value, list) else None


def _tool_name(tool: object) -> object:
    return tool.get("name") if isinstance(tool, dict) else tool


def _as_dict(answer: object) -> dict[str, object] | None:
    """A dict subclass or a result model (anything with ``model_dump``) as a plain dict."""
    if isinstance(answer, dict):
        return dict(answer)
    dump = getattr(answer, "model_dump", None)
    if not callable(dump):
        return None
    data = dump(exclude_none=True, by_alias=True)
    return data if isinstance(data, dict) else None
