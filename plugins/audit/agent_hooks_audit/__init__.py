"""agent-hooks-audit: every hook call and every bridged host event, recorded in SQLite.

Through the runtime's ``hook_called`` meta hook it stores, per call: the hook, the event, the
combined decision and result, which plugins were called and which answered, errors, duration,
host and session. Bridged host events without a canonical hook (``host_event``) are stored too.
Secrets are redacted before anything is written (``agent_hooks_core.secret_formats.Redactor``: the provider
formats, the looser heuristics and secret-looking keys, each payload cut to ``max_payload_chars`` first).

Settings: ``[plugins.audit]`` (:class:`agent_hooks_audit.config.AuditConfig`); the database is
``$AGENT_HOOKS_AUDIT_DB``, else ``db``, else the user data directory. Commands:
``agenthooks audit tail|search|stats|export|prune|path``.

A plugin that observes without acting can leave a note for the audit: append
``{"plugin": ..., "kind": ..., "text": ...}`` to the event's ``audit_notes`` list (the guard's
observe mode does); it is stored in the record's ``notes``.

Importing this module is cheap: sqlite3 loads on the first record, pydantic only to validate
settings, typer and rich only for the commands.
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
from typing import TYPE_CHECKING, Any

from agent_hooks_core import HookContext, Outcome, hookimpl

if TYPE_CHECKING:
    from agent_hooks_core.secret_formats import Redactor

    from .backend import AuditBackend

__all__ = ["hook_called", "host_event", "plugin_config_model", "register_commands", "session_summary"]


class _Recorder:
    """A settings section turned into what recording needs."""

    def __init__(self, config: dict[str, Any], cwd: str) -> None:
        from agent_hooks_core.secret_formats import Redactor

        from .options import target

        self.config = config
        self.path = target(config, cwd)
        self.redactor: Redactor = Redactor(config["redact_patterns"], config["redact_keys"])
        self.exclude = frozenset(config["exclude_hooks"])
        # the session id, cwd, host and hook repeat call after call: redact each distinct one once
        self.short_text = functools.lru_cache(maxsize=512)(self.redactor.text)
        self.budget = int(config["max_payload_chars"])
        self.payloads = bool(config["record_payloads"])
        self.retention = config["retention_days"] or None
        self.busy_timeout = float(config["busy_timeout"])
        from .store import is_url

        self.pg_options = ({"connect_timeout": float(config["connect_timeout"]), "queue_size": int(config["queue_size"])}
                           if is_url(self.path) else {})

    @property
    def store(self) -> AuditBackend:
        from .store import store_for

        return store_for(self.path, self.busy_timeout, **self.pg_options)

    def dump(self, value: Any) -> tuple[str | None, bool]:
        if value is None or not self.payloads:
            return None, False
        clean, cut = self.redactor.value(value, self.budget)
        return json.dumps(clean, ensure_ascii=False, default=str, separators=(",", ":")), cut

    def add(self, record: dict[str, Any]) -> None:
        self.store.add(self.scrub(record), self.retention)

    def scrub(self, record: dict[str, Any]) -> dict[str, Any]:
        """The last pass before anything is written: every text column redacted (a secret in a
        session id, a cwd or a hook name is still a secret), and nothing left that UTF-8 cannot
        encode (a lone surrogate would make SQLite, PostgreSQL and the spool refuse the row)."""
        out: dict[str, Any] = {}
        for key, value in record.items():
            if isinstance(value, str):
                # JSON columns were redacted structurally; the regexes would not respect their quoting
                if key in _JSON_COLUMNS:
                    value = json_safe(value)
                else:
                    value = self.short_text(value) if len(value) <= 512 else self.redactor.text(value)
            out[key] = value
        return out


def json_safe(text: str) -> str:
    """JSON text with any lone surrogate replaced by U+FFFD (an escape would decode back to it)."""
    return text.translate(_JSON_SAFE) if _LONE.search(text) else text


_JSON_SAFE = {c: 0xFFFD for c in range(0xD800, 0xE000)}
_LONE = re.compile("[\ud800-\udfff]")
_JSON_COLUMNS = frozenset({"answered", "handlers", "errors", "notes", "event", "result"})
_RECORDERS: dict[tuple[int, str, str], tuple[Any, _Recorder]] = {}


def _recorder(ctx: HookContext) -> _Recorder:
    raw = ctx.config
    key = (id(raw), ctx.cwd, "|".join(os.environ.get(v, "") for v in (
        "AGENT_HOOKS_AUDIT_DB", "AGENT_HOOKS_AUDIT_URL", "AGENT_HOOKS_HOME")))
    hit = _RECORDERS.get(key)
    if hit is not None and hit[0] is raw:
        return hit[1]
    from .options import resolve

    rec = _Recorder(resolve(raw), ctx.cwd)
    if len(_RECORDERS) > 64:
        _RECORDERS.clear()
    _RECORDERS[key] = (raw, rec)
    return rec


def _base(ctx: HookContext, rec: _Recorder) -> dict[str, Any]:
    # uid: the record's idempotent key (a record kept pending or spooled and moved twice is stored once)
    return {"ts": time.time(), "host": ctx.host, "session": ctx.session_id, "cwd": ctx.cwd, "pid": os.getpid(),
            "uid": os.urandom(12).hex()}


@hookimpl
def hook_called(outcome: Outcome, ctx: HookContext) -> None:
    rec = _recorder(ctx)
    if outcome.hook in rec.exclude:
        return
    event = dict(outcome.event)
    notes: list[Any] = list(outcome.notes)
    plugin_notes = event.pop("audit_notes", None)
    if isinstance(plugin_notes, list):
        notes += plugin_notes
    decision = outcome.decision
    answered = list(outcome.answered)
    redact = rec.redactor.text
    event_json, cut_event = rec.dump(event)
    result_json, cut_result = rec.dump(outcome.data)
    errors = [rec.redactor.value(e.to_dict(), 4096)[0] for e in outcome.errors]
    record = _base(ctx, rec)
    record.update(
        kind="hook", hook=outcome.hook, decision=decision,
        decided_by=answered[-1] if decision in ("blocked", "denied") and answered else None,
        reason=redact(outcome.reason) if outcome.reason else None,
        answered=json.dumps(answered), handlers=json.dumps(list(outcome.handlers)),
        errors=json.dumps(errors, ensure_ascii=False), error_count=len(errors),
        notes=json.dumps([rec.redactor.value(n, 2048)[0] for n in notes],
                         ensure_ascii=False, default=str) if notes else None,
        duration_ms=round(outcome.duration * 1000, 3),
        event=event_json, result=result_json, truncated=int(cut_event or cut_result),
    )
    rec.add(record)


@hookimpl
def host_event(host: str, name: str, payload: dict[str, Any], ctx: HookContext) -> None:
    rec = _recorder(ctx)
    event_json, cut = rec.dump(payload)
    record = _base(ctx, rec)
    record.update(kind="host_event", hook=name, decision="observed", host=host, answered="[]", handlers="[]",
                  errors="[]", error_count=0, event=event_json, truncated=int(cut))
    rec.add(record)


@hookimpl
def plugin_config_model() -> Any:
    from .config import AuditConfig

    return AuditConfig


@hookimpl
def register_commands(cli: Any) -> None:
    from .cli import make_app

    cli.add_typer(make_app(), name="audit")


@hookimpl
def session_summary(ctx: HookContext) -> str:
    """One line for ``agenthooks replay`` (where this session's records went, how many there are)
    and ``agenthooks doctor`` (no session: the whole log); both say how many records were lost."""
    rec = _recorder(ctx)
    store = rec.store
    sid = ctx.session_id
    from .store import AuditError, Query

    lost = store.lost_count()
    lost_note = (f"; {lost} records LOST (neither the database nor a pending file could take them; "
                 "counted in loss files)" if lost else "")
    try:
        store.flush_pending()
        count = store.count(Query(session=sid) if sid else Query())
    except AuditError as exc:
        where = " or ".join(str(p) for p in store.pending_files)
        return (f"audit log: {store.display} unavailable ({exc}); {store.pending_count()} records pending in "
                f"{where}{lost_note}")
    what = "for this session" if sid else "in all"
    where = f" --session {sid}" if sid else ""
    return f"audit log: {store.display} ({count} records {what}{lost_note}; `agenthooks audit stats{where}`)"
