"""The settings as plain data, and what may leave the machine: allowed payload fields, redacted."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_hooks_core.secret_formats import Redactor

DEFAULTS: dict[str, Any] = {"payload_fields": ["tool_name"], "max_attribute_chars": 1024, "exclude_hooks": []}


@dataclass
class OtelOptions:
    payload_fields: list[str] = field(default_factory=lambda: ["tool_name"])
    max_attribute_chars: int = 1024
    exclude_hooks: frozenset[str] = frozenset()
    redactor: Redactor = field(default_factory=Redactor)

    @classmethod
    def from_raw(cls, raw: Any) -> OtelOptions:
        if raw is None or (isinstance(raw, Mapping) and not raw):
            data = dict(DEFAULTS)
        else:
            dump = getattr(raw, "model_dump", None)
            if dump is None:
                from .config import OtelConfig

                dump = OtelConfig.model_validate(dict(raw)).model_dump
            data = {**DEFAULTS, **dump()}
        return cls(list(data["payload_fields"]), int(data["max_attribute_chars"]), frozenset(data["exclude_hooks"]))

    def payload(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """The allowed fields of ``event`` as span attribute values (str, int, float, bool), redacted."""
        out: dict[str, Any] = {}
        for path in self.payload_fields:
            value: Any = event
            secret = False
            for part in path.split("."):
                if not isinstance(value, Mapping) or part not in value:
                    value = _MISSING
                    break
                secret = secret or self.redactor.secret_key(part)
                value = value[part]
            if value is _MISSING or value is None:
                continue
            clean, _ = self.redactor.value(value, secret=secret)
            if not isinstance(clean, (str, bool, int, float)):
                clean = json.dumps(clean, ensure_ascii=False, default=str)
            if isinstance(clean, str) and len(clean) > self.max_attribute_chars:
                clean = clean[: self.max_attribute_chars] + "…"
            out[path] = clean
        return out


_MISSING = object()
