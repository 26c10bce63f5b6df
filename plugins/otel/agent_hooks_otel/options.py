"""The settings as plain data, and what may leave the machine: allowed payload fields, redacted."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_hooks_core.secret_formats import FORMATS, HEURISTICS, SECRET_KEYS

DEFAULTS: dict[str, Any] = {"payload_fields": ["tool_name"], "max_attribute_chars": 1024, "exclude_hooks": []}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_KEY = re.compile(r"(?:^|[^a-z])(?:" + "|".join(re.escape(k).replace("_", "[_-]?") for k in SECRET_KEYS)
                         + r")(?:$|[^a-z])")
_CONTROL = re.compile("[\x00\ud800-\udfff]")


class Redactor:
    """Provider formats and the looser heuristics of :mod:`agent_hooks_core.secret_formats`."""

    def __init__(self) -> None:
        self.patterns = [(name, re.compile(rx)) for name, rx in (*FORMATS, *HEURISTICS)]

    @staticmethod
    def secret_key(key: str) -> bool:
        return _SECRET_KEY.search(_CAMEL.sub("_", key).lower()) is not None

    def text(self, text: str) -> str:
        text = _CONTROL.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
        for name, rx in self.patterns:
            if rx.search(text) is None:
                continue
            marker = f"[REDACTED:{name}]"

            def repl(m: re.Match[str], marker: str = marker) -> str:
                if "secret" in m.re.groupindex and m.group("secret") is not None:
                    s, e = m.span("secret")
                    return m.group(0)[: s - m.start()] + marker + m.group(0)[e - m.start():]
                return marker

            text = rx.sub(repl, text)
        return text

    def value(self, obj: Any, secret: bool = False) -> Any:
        """A JSON-able copy of ``obj`` with keys and values redacted."""
        if obj is None or isinstance(obj, bool):
            return obj
        if secret and not isinstance(obj, (dict, list, tuple)):
            return "[REDACTED:key]"
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, (int, float)):
            return obj
        if isinstance(obj, dict):
            return {self.text(str(k)): self.value(v, secret or self.secret_key(str(k))) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.value(v, secret) for v in obj]
        return self.text(str(obj))


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
            clean = self.redactor.value(value, secret)
            if not isinstance(clean, (str, bool, int, float)):
                clean = json.dumps(clean, ensure_ascii=False, default=str)
            if isinstance(clean, str) and len(clean) > self.max_attribute_chars:
                clean = clean[: self.max_attribute_chars] + "…"
            out[path] = clean
        return out


_MISSING = object()
