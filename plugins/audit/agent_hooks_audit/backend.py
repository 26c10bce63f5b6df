"""What every audit store answers: the SQLite file (:class:`.store.AuditStore`) and the PostgreSQL
database (:class:`.pg.PgStore`). The recorder and the ``audit`` commands only call these, so a store
passes for the other; mypy checks both classes against this Protocol (see the bottom of this module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .store import Query


class AuditBackend(Protocol):
    written: int
    """records this process handed to the store"""

    @property
    def display(self) -> str:
        """Where the records go, fit to print (a PostgreSQL password masked)."""

    @property
    def pending_files(self) -> list[Path]:
        """Where records wait while the store cannot be written."""

    # -- writing ----------------------------------------------------------------------------

    def add(self, record: dict[str, Any], retention_days: float | None = None) -> None:
        """Store one record, or keep it pending; raises :class:`.store.AuditError` saying which."""

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for records this process added to be tried; True if they were."""

    def flush_pending(self) -> int:
        """Move records kept pending (by any process) into the store; returns how many."""

    def prune(self, older_than_days: float) -> int:
        """Delete records older than ``older_than_days``; returns how many."""

    def ensure(self) -> None:
        """Create the store (schema included) if it does not exist yet."""

    def close(self) -> None: ...

    def describe(self, exc: BaseException) -> str:
        """One line saying what ``exc`` means for this store."""

    # -- reading ----------------------------------------------------------------------------

    def rows(self, query: Query, *, limit: int | None = None, newest_first: bool = False) -> Iterator[dict[str, Any]]:
        """The records ``query`` selects, JSON columns decoded."""

    def count(self, query: Query | None = None) -> int: ...

    def last_session(self) -> str | None: ...

    def pending_count(self) -> int: ...

    def lost_count(self) -> int:
        """Records lost for good (neither stored nor kept pending)."""


if TYPE_CHECKING:
    from .pg import PgStore
    from .store import AuditStore

    def _both_conform(sqlite: AuditStore, pg: PgStore) -> tuple[AuditBackend, AuditBackend]:
        return sqlite, pg  # mypy fails here when either store drifts from the Protocol
