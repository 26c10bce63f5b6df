"""Both audit stores answer exactly the calls of ``AuditBackend``: one store passes for the other
(mypy checks the signatures; this checks that neither grows a public call the other lacks)."""

from __future__ import annotations

import inspect
import sqlite3

import pytest
from agent_hooks_audit.backend import AuditBackend
from agent_hooks_audit.pg import PgStore
from agent_hooks_audit.store import AuditStore, Query


def _calls(cls: type) -> set[str]:
    return {name for name, value in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}


@pytest.mark.parametrize("store", [AuditStore, PgStore])
def test_public_calls_are_the_protocol(store: type) -> None:
    calls = _calls(store)
    assert {"add", "rows", "count", "prune", "flush", "flush_pending", "lost_count"} <= calls
    assert calls == _calls(AuditBackend)


def test_a_sqlite_store_flushes_at_once(tmp_path) -> None:
    store = AuditStore(tmp_path / "audit.db")
    store.add({"ts": 1.0, "kind": "hook", "hook": "pre_tool", "error_count": 0, "truncated": 0, "notes": "[1]", "uid": "a"})
    assert store.flush(0.0) is True
    assert [(r["hook"], r["notes"]) for r in store.rows(Query())] == [("pre_tool", [1])]
    assert "corrupt" in store.describe(sqlite3.DatabaseError("file is not a database"))
    store.close()
