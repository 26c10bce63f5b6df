"""Writers of one audit database take turns on ``<db>.writers.lock`` before SQLite's own lock
(store.AuditStore._turn): a courtesy for throughput that must never stop or misdirect a write."""

from __future__ import annotations

import fcntl
import os
import stat
import threading
from pathlib import Path

import pytest
from agent_hooks_audit import store as store_mod
from agent_hooks_audit.store import AuditStore, Query

RECORD = {"ts": 1.0, "kind": "hook", "hook": "pre_tool", "error_count": 0, "truncated": 0}


def _add_in_thread(store: AuditStore, uid: str) -> bool:
    """True when ``add`` returned (within a generous bound: without its own bound it never would)."""
    done = threading.Event()
    worker = threading.Thread(target=lambda: (store.add({**RECORD, "uid": uid}), done.set()), daemon=True)
    worker.start()
    return done.wait(60)


def test_writers_take_turns_on_a_private_lock_file(tmp_path: Path) -> None:
    store = AuditStore(tmp_path / "audit.db")
    store.add({**RECORD, "uid": "a"})
    lock = tmp_path / "audit.db.writers.lock"
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    held = os.open(lock, os.O_RDWR)
    try:  # the store let go of its turn: another writer gets it at once
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(held)
    store.close()


def test_a_writer_that_keeps_its_turn_does_not_stop_the_others(tmp_path: Path) -> None:
    """A writer stopped while it holds the turn (SIGSTOP, an agent's `flock`) costs the others a
    short wait, then they write under SQLite's busy timeout as before."""
    store = AuditStore(tmp_path / "audit.db")
    held = os.open(tmp_path / "audit.db.writers.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        assert _add_in_thread(store, "b"), "a write waited for a turn that never came"
    finally:
        os.close(held)
    assert [r["uid"] for r in store.rows(Query())] == ["b"]
    store.close()


def test_a_planted_lock_file_link_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    (tmp_path / "audit.db.writers.lock").symlink_to(target)
    store = AuditStore(tmp_path / "audit.db")
    assert _add_in_thread(store, "c")
    assert not target.exists()
    assert [r["uid"] for r in store.rows(Query())] == ["c"]
    store.close()


def test_a_waiting_writer_writes_as_soon_as_the_turn_is_given_back(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The contended path: the wait happens in ``flock`` (woken by the kernel), not in SQLite."""
    monkeypatch.setattr(store_mod, "TURN_WAIT", 120.0)
    store = AuditStore(tmp_path / "audit.db")
    store.add({**RECORD, "uid": "first"})  # the database and the lock file exist
    held = os.open(tmp_path / "audit.db.writers.lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    done = threading.Event()
    writer = threading.Thread(target=lambda: (store.add({**RECORD, "uid": "second"}), done.set()), daemon=True)
    writer.start()
    try:
        turns = store._turns
        assert turns is not None
        while not (turns._waiter is not None and not turns._want.is_set()):  # the waiter is in flock
            assert writer.is_alive()
            threading.Event().wait(0.001)
        reader = AuditStore(tmp_path / "audit.db")  # the writer holds the store's own lock
        assert not done.is_set() and [r["uid"] for r in reader.rows(Query())] == ["first"]
        reader.close()
    finally:
        os.close(held)  # the turn is given back
    assert done.wait(60)
    assert [r["uid"] for r in store.rows(Query())] == ["first", "second"]
    store.close()
