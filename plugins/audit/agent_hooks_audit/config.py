"""The audit's settings section ``[plugins.audit]``, validated by pydantic."""

from __future__ import annotations

import re

from agent_hooks_core.config_fields import HookNames
from pydantic import BaseModel, ConfigDict, Field, field_validator


class AuditConfig(BaseModel):
    """``[plugins.audit]`` in settings.toml. ``AGENT_HOOKS_AUDIT_DB`` overrides ``db``."""

    model_config = ConfigDict(extra="forbid")

    db: str | None = Field(None, description="the SQLite file (default: the user data directory's "
                                             "agent-hooks/audit.db, or $AGENT_HOOKS_HOME/audit.db)")
    url: str | None = Field(None, description="a PostgreSQL database instead of the SQLite file: "
                                              "postgresql://user:password@host/db (AGENT_HOOKS_AUDIT_URL overrides)")
    connect_timeout: float = Field(5.0, gt=0, le=120, description="PostgreSQL: seconds to connect, and per "
                                   "statement; past it records go to the local spool")
    queue_size: int = Field(10000, ge=1, description="PostgreSQL: no longer used (every record is written to the "
                            "local spool before the answer); accepted so older settings still load")
    retention_days: float | None = Field(90.0, ge=0, description="records older than this are deleted "
                                                                 "(checked hourly); 0 or null keeps everything")
    redact_patterns: list[str] = Field(default_factory=list, description="extra regexes to redact before "
                                       "storing (a group named 'secret' limits the part replaced)")
    redact_keys: list[str] = Field(default_factory=list, description="extra key names whose values are redacted")
    record_payloads: bool = Field(True, description="store event and result bodies (false: only the metadata)")
    max_payload_chars: int = Field(65536, ge=256, description="event and result are each cut to about this size")
    exclude_hooks: HookNames = Field(default_factory=list, description="hooks not recorded (e.g. message_update)")
    busy_timeout: float = Field(5.0, gt=0, le=120, description="seconds a write waits for another process's lock")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("url must start with postgresql:// (for a SQLite file use db)")
        return value

    @field_validator("redact_patterns")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regex {pattern!r}: {exc}") from None
        return value
