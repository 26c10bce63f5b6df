"""Secrets in tool output, replaced before the model sees them.

Only formats that are secrets with high confidence, so source code the model reads is not
mangled: provider key and token formats, private key blocks, JWTs, bearer tokens, passwords in
URLs and ``.env``-style ``UPPER_CASE_SECRET=value`` lines (no spaces around ``=``, so
``SECRET_KEY = os.environ[...]`` in code stays as it is). Add your own with ``redact_patterns``
(a named group ``secret``, if present, is the part replaced).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_hooks_core.secret_formats import FORMATS

PATTERNS: list[tuple[str, str]] = [
    *FORMATS,
    ("bearer-token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"),
    ("env-secret", r"(?m)^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|"
                   r"ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*=(?P<secret>[^\s\"'#]+)"),
]


class Redactor:
    def __init__(self, extra: Sequence[str] = ()) -> None:
        self.patterns = [(name, re.compile(rx)) for name, rx in PATTERNS]
        self.patterns += [(f"pattern-{i + 1}", re.compile(rx)) for i, rx in enumerate(extra)]

    def redact(self, text: str) -> tuple[str, list[str]]:
        """(the text with secrets replaced, the names of the patterns that fired)"""
        fired: list[str] = []
        for name, rx in self.patterns:
            if not rx.search(text):
                continue
            fired.append(name)
            marker = f"[REDACTED:{name}]"

            def repl(m: re.Match[str], marker: str = marker) -> str:
                if "secret" in m.re.groupindex and m.group("secret") is not None:
                    if m.group("secret").startswith("[REDACTED:"):
                        return m.group(0)  # an earlier pattern got it already
                    s, e = m.span("secret")
                    return m.group(0)[: s - m.start()] + marker + m.group(0)[e - m.start():]
                return marker

            text = rx.sub(repl, text)
        return text, fired
