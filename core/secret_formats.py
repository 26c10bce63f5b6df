"""Secret formats recognised with high confidence, shared by plugins that redact.

Each entry is ``(name, regex)``; a named group ``secret``, where present, is the part to replace
(the rest is context such as ``aws_secret_access_key=``). These are the provider key and token
formats, private key blocks, JWTs and passwords in URLs: text that is a secret wherever it
appears, so replacing it never mangles source code. Looser heuristics (``password=...``,
``.env`` lines, secret-looking keys) differ by use and stay with each plugin.
"""

from __future__ import annotations

FORMATS: list[tuple[str, str]] = [
    # PEM (RSA, EC, OPENSSH, ENCRYPTED) and PGP armour ("PRIVATE KEY BLOCK"); an unterminated block runs to the end
    ("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
                    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
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
    # the user may be empty (redis://:pw@host) and the password may hold '@' (up to the last '@' before the host)
    ("url-password", r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]*:(?P<secret>[^/\s]+)@"),
]
