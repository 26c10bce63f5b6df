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

PATTERNS: list[tuple[str, str]] = [
    ("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"),
    ("aws-secret-key", r"(?i)aws_?secret_?access_?key[\"']?\s*[=:]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]+"),
    ("stripe-key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("bearer-token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"),
    ("url-password", r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<secret>[^/\s@]+)@"),
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
