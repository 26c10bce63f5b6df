"""The audit's settings as plain data, and where its database lives (no pydantic, no sqlite3)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENV_DB = "AGENT_HOOKS_AUDIT_DB"
ENV_URL = "AGENT_HOOKS_AUDIT_URL"
ENV_HOME = "AGENT_HOOKS_HOME"

#: every setting of ``[plugins.audit]`` and its default (config.AuditConfig mirrors it)
DEFAULTS: dict[str, Any] = {
    "db": None,
    "url": None,
    "connect_timeout": 5.0,
    "queue_size": 10000,
    "retention_days": 90.0,
    "redact_patterns": [],
    "redact_keys": [],
    "record_payloads": True,
    "max_payload_chars": 65536,
    "exclude_hooks": [],
    "busy_timeout": 5.0,
}


def resolve(raw: Any) -> dict[str, Any]:
    """The settings section (an AuditConfig, a dict or nothing) as a complete dict."""
    if raw is None or (isinstance(raw, Mapping) and not raw):
        return dict(DEFAULTS)
    dump = getattr(raw, "model_dump", None)
    if dump is None:
        from .config import AuditConfig  # an unvalidated dict (Runtime(plugin_config=...))

        dump = AuditConfig.model_validate(dict(raw)).model_dump
    return {**DEFAULTS, **dump()}


def default_db() -> Path:
    """``$AGENT_HOOKS_HOME/audit.db`` when that is set, else the platform's user data directory."""
    home = os.environ.get(ENV_HOME)
    if home:
        return Path(home).expanduser() / "audit.db"
    import platformdirs

    return Path(platformdirs.user_data_dir("agent-hooks", appauthor=False)) / "audit.db"


def target(config: Mapping[str, Any], cwd: str | None = None) -> str | Path:
    """Where records go: ``$AGENT_HOOKS_AUDIT_URL``, else ``$AGENT_HOOKS_AUDIT_DB``, else ``url``, else
    ``db`` (see :func:`db_path`). A ``postgresql://`` URL is returned as a string, a file as a Path."""
    url = os.environ.get(ENV_URL) or (None if os.environ.get(ENV_DB) else config.get("url"))
    if url:
        return str(url)
    return db_path(config, cwd)


def db_path(config: Mapping[str, Any], cwd: str | None = None) -> Path:
    """Where the audit database is: ``$AGENT_HOOKS_AUDIT_DB``, else ``db`` from the settings, else
    :func:`default_db`. A relative path is taken from ``cwd``."""
    raw = os.environ.get(ENV_DB) or config.get("db")
    if not raw:
        return default_db()
    path = Path(str(raw)).expanduser()
    if not path.is_absolute():
        path = Path(cwd or os.getcwd()) / path
    return path


def state_dir() -> Path:
    """``$AGENT_HOOKS_HOME/state`` when that is set, else the platform's user state directory."""
    home = os.environ.get(ENV_HOME)
    if home:
        return Path(home).expanduser() / "state"
    import platformdirs

    return Path(platformdirs.user_state_dir("agent-hooks", appauthor=False))


def fallback_pending(db: Path) -> Path:
    """Where records for ``db`` wait when its own directory cannot be written (read-only): the
    state directory, one file per database."""
    import hashlib

    digest = hashlib.sha256(str(db).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return state_dir() / "audit-pending" / f"{db.stem}-{digest}.jsonl"
