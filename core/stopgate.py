"""The stop gate's per-session count of continuations in a row.

A bridge is a fresh process per host event, so the count lives in a small file per (host,
session) in ``<user dir>/stop-gate/`` (beside ``trust.json``: the agent-hooks user directory, not
a cache an agent is free to rewrite: a count it raised would switch quality gates off); without a
session id it lives on the runtime only. Losing the file only restarts the count: the limit still
holds for every run of continuations the file records, and the host's own cap (Claude Code and omp
stop obeying a stop hook after 8 in a row) remains.
"""

from __future__ import annotations

from pathlib import Path

#: continuations in a row a session gets when the settings do not say (``stop_gate_limit``)
DEFAULT_LIMIT = 3
#: the count file is a few digits; anything longer is not ours
_MAX_READ = 32


class StopCounter:
    """Continuations in a row for one session (0 when the agent was last let stop)."""

    def __init__(self, host: str, session_id: str | None) -> None:
        self.path: Path | None = None
        self._memory = 0
        if session_id:
            import hashlib  # only here: its OpenSSL load costs every bridge process ~2 ms

            from .settings import user_dir

            key = hashlib.sha256(f"{host}\0{session_id}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
            self.path = user_dir() / "stop-gate" / key

    def get(self) -> int:
        if self.path is None:
            return self._memory
        try:
            with open(self.path, "rb") as f:
                raw = f.read(_MAX_READ)
        except OSError:
            return 0
        try:
            value = int(raw.decode("ascii").strip() or 0)
        except (UnicodeDecodeError, ValueError):
            return 0
        return max(value, 0)

    def set(self, value: int) -> None:
        self._memory = value
        if self.path is None:
            return
        from .fileio import atomic_write

        try:
            if value:
                atomic_write(self.path, f"{value}\n", mode=0o600)
            else:
                self.path.unlink(missing_ok=True)
        except OSError:
            pass  # the runtime's own count still bounds this process; the host caps the rest
