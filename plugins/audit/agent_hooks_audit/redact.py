"""Secrets removed from everything the audit stores.

Storage errs on the side of removing: besides the provider formats (AWS, GitHub, GitLab, OpenAI,
Anthropic, Slack, Stripe, Google, npm, PyPI keys and tokens, private key blocks, JWTs, bearer
tokens, passwords in URLs) it removes ``password=...``-style assignments and the values of
secret-looking keys (``password``, ``api_key``, ``Authorization``, ...), anywhere in the payload.
``redact_patterns`` adds regexes (a group named ``secret``, if present, is the part replaced);
``redact_keys`` adds key names.

Long payloads are cut to a budget *before* the patterns run, and a cut never leaves the start of a
token behind, so the work per event is bounded and no half secret is stored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_hooks_core.secret_formats import FORMATS

PATTERNS: list[tuple[str, str]] = [
    *FORMATS,
    ("bearer-token", r"(?i)\b(?:bearer|token)\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)"),
    ("basic-auth", r"(?i)\bbasic\s+(?P<secret>[A-Za-z0-9+/]{12,}=*)"),
    ("password", r"(?i)\b[\w.-]*(?:password|passwd|pwd)[\w.-]*[\"']?\s*[=:]\s*[\"']?(?P<secret>[^\s\"'&,;]{2,})"),
    ("secret-assignment", r"(?i)\b[\w.-]*(?:secret|token|api_?key|access_?key|private_?key|credential)[\w.-]*"
                          r"[\"']?\s*[=:]\s*[\"']?(?P<secret>[A-Za-z0-9_\-+/=.]{8,})"),
]

#: keys whose string values are always replaced (matched as words inside the key)
SECRET_KEYS = ["password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "access_key",
               "private_key", "client_secret", "authorization", "cookie", "set-cookie", "credentials",
               "x-api-key"]
_TOKEN_TAIL = re.compile(r"[\w+/=.\-]+\Z")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class Redactor:
    def __init__(self, extra_patterns: Sequence[str] = (), extra_keys: Sequence[str] = ()) -> None:
        self.patterns = [(name, re.compile(rx)) for name, rx in PATTERNS]
        self.patterns += [(f"pattern-{i + 1}", re.compile(rx)) for i, rx in enumerate(extra_patterns)]
        words = "|".join(re.escape(k.lower()).replace("_", "[_-]?") for k in [*SECRET_KEYS, *extra_keys])
        self._secret_key = re.compile(rf"(?:^|[^a-z])(?:{words})(?:$|[^a-z])")

    def secret_key(self, key: str) -> bool:
        """``api_key``, ``X-Api-Key``, ``accessToken``, ``DB_PASSWORD``: yes; ``max_tokens``: no."""
        return self._secret_key.search(_CAMEL.sub("_", key).lower()) is not None

    def text(self, text: str) -> str:
        for name, rx in self.patterns:
            if rx.search(text) is None:
                continue
            marker = f"[REDACTED:{name}]"

            def repl(m: re.Match[str], marker: str = marker) -> str:
                if "secret" in m.re.groupindex and m.group("secret") is not None:
                    if m.group("secret").startswith("[REDACTED"):
                        return m.group(0)
                    s, e = m.span("secret")
                    return m.group(0)[: s - m.start()] + marker + m.group(0)[e - m.start():]
                return marker

            text = rx.sub(repl, text)
        return text

    def value(self, obj: Any, budget: int) -> tuple[Any, bool]:
        """(``obj`` with secrets replaced and cut to about ``budget`` characters, whether it was cut)"""
        state = {"budget": budget, "cut": False}
        return self._walk(obj, None, state), bool(state["cut"])

    def _walk(self, obj: Any, key: str | None, state: dict[str, Any]) -> Any:
        if obj is None or isinstance(obj, bool):
            return obj
        if key is not None and isinstance(obj, str) and self.secret_key(key):
            return "[REDACTED:key]"
        if isinstance(obj, str):
            left = state["budget"]
            if left <= 0:
                state["cut"] = True
                return "…"
            if len(obj) > left:
                state["cut"] = True
                obj = _TOKEN_TAIL.sub("", obj[:left]) + f"…[{len(obj) - left} more chars]"
            state["budget"] = left - len(obj)
            return self.text(obj)
        if isinstance(obj, (int, float)):
            state["budget"] -= 8
            return obj
        if isinstance(obj, dict):
            out: dict[str, Any] = {}
            for k, v in obj.items():
                if state["budget"] <= 0:
                    out["…"] = f"{len(obj) - len(out)} more keys"
                    state["cut"] = True
                    break
                out[str(k)] = self._walk(v, str(k), state)
                state["budget"] -= len(str(k)) + 4
            return out
        if isinstance(obj, (list, tuple)):
            items = []
            for i, v in enumerate(obj):
                if state["budget"] <= 0:
                    items.append(f"… {len(obj) - i} more items")
                    state["cut"] = True
                    break
                items.append(self._walk(v, None, state))
                state["budget"] -= 2
            return items
        dump = getattr(obj, "model_dump", None)
        if callable(dump):
            return self._walk(dump(mode="json"), key, state)
        return self._walk(str(obj), key, state)
