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

from agent_hooks_core.secret_formats import FORMATS, HEURISTICS, SECRET_KEYS

PATTERNS: list[tuple[str, str]] = [*FORMATS, *HEURISTICS]

#: containers nested deeper than this are replaced by a marker (keeps the walk and json.dumps off the recursion limit)
MAX_DEPTH = 64
_TOKEN_TAIL = re.compile(r"[\w+/=.\-]+\Z")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: a lone surrogate (from ``\\ud800`` in JSON, or invalid UTF-8 decoded with surrogateescape), and NUL,
#: which PostgreSQL's text refuses
_SURROGATE = re.compile("[\x00\ud800-\udfff]")


#: str.translate table: every lone surrogate to U+FFFD (for text already in JSON, where an escape would decode back)
JSON_SAFE = {c: 0xFFFD for c in range(0xD800, 0xE000)}
_LONE = re.compile("[\ud800-\udfff]")


def json_safe(text: str) -> str:
    """JSON text with any lone surrogate replaced by U+FFFD (a quick scan first: it almost never has one)."""
    return text.translate(JSON_SAFE) if _LONE.search(text) else text


def clean_text(text: str) -> str:
    """``text`` that every store can take: a lone surrogate (or NUL) becomes its escape (``\\ud800``), so
    the evidence is kept and the record can be written (SQLite, PostgreSQL and the spool files refuse it)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


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
        text = clean_text(text)
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
        """(``obj`` with secrets replaced and cut to about ``budget`` characters, whether it was cut).

        Keys are redacted like values (a secret used as a key is still a secret), and every scalar
        below a secret-looking key is replaced, whatever its type or depth."""
        state = {"budget": budget, "cut": False}
        return self._walk(obj, False, state, 0), bool(state["cut"])

    def _key(self, key: Any, taken: dict[str, Any]) -> str:
        clean = self.text(str(key))
        n = 1
        while clean in taken:  # two secrets redacted to the same marker keep both values
            n += 1
            clean = f"{self.text(str(key))}#{n}"
        return clean

    def _walk(self, obj: Any, secret: bool, state: dict[str, Any], depth: int) -> Any:
        if obj is None or isinstance(obj, bool):
            return obj
        if depth > MAX_DEPTH and isinstance(obj, (dict, list, tuple, set, frozenset)):
            state["cut"] = True  # hostile nesting: the record is kept, the deep part is not
            return f"…[nested deeper than {MAX_DEPTH}]"
        if secret and isinstance(obj, (str, int, float, bytes)):
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
                raw = str(k)
                out[self._key(raw, out)] = self._walk(v, secret or self.secret_key(raw), state, depth + 1)
                state["budget"] -= len(raw) + 4
            return out
        if isinstance(obj, (list, tuple, set, frozenset)):
            items = []
            for i, v in enumerate(obj):
                if state["budget"] <= 0:
                    items.append(f"… {len(obj) - i} more items")
                    state["cut"] = True
                    break
                items.append(self._walk(v, secret, state, depth + 1))
                state["budget"] -= 2
            return items
        dump = getattr(obj, "model_dump", None)
        if callable(dump):
            return self._walk(dump(mode="json"), secret, state, depth)
        if isinstance(obj, bytes):
            obj = obj.decode("utf-8", "backslashreplace")
        return self._walk(str(obj), secret, state, depth)
