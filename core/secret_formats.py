"""Secret formats recognised with high confidence, shared by plugins that redact.

Each entry is ``(name, regex)``; a named group ``secret``, where present, is the part to replace
(the rest is context such as ``aws_secret_access_key=``). These are the provider key and token
formats, private key blocks, JWTs and passwords in URLs: text that is a secret wherever it
appears, so replacing it never mangles source code.

:data:`HEURISTICS` and :data:`SECRET_KEYS` are looser: ``password=...`` assignments, ``curl -u``,
``mysql -p``, bare 40-character AWS secret keys, secret-looking key names. They suit stores that
err on the side of removing (the audit database, OpenTelemetry attributes), not text handed back
to an agent (the guard uses :data:`FORMATS` only).
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

#: looser patterns for stores that err on the side of removing (see the module docstring)
HEURISTICS: list[tuple[str, str]] = [
    ("bearer-token", r"(?i)\b(?:bearer|token)\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)"),
    ("basic-auth", r"(?i)\bbasic\s+(?P<secret>[A-Za-z0-9+/]{12,}=*)"),
    # curl -u user:pw, curl --user=user:pw (also wget/http clients that copied the flag)
    ("user-password", r"(?:^|[\s\"'])(?:-u|--user|--proxy-user)(?:\s+|=)[\"']?[^\s:\"']*:(?P<secret>[^\s\"']+)"),
    # mysql -pPW / mysqldump -pPW (the password glued to -p); --password=PW is a password assignment
    ("mysql-password", r"\bmysql[\w-]*\b[^\n|;&]*?\s-p(?P<secret>[^\s\"']+)"),
    ("password", r"(?i)\b[\w.-]*(?:password|passwd|pwd)[\w.-]*[\"']?\s*[=:]\s*[\"']?(?P<secret>[^\s\"'&,;]{2,})"),
    ("secret-assignment", r"(?i)\b[\w.-]*(?:secret|token|api_?key|access_?key|private_?key|credential)[\w.-]*"
                          r"[\"']?\s*[=:]\s*[\"']?(?P<secret>[A-Za-z0-9_\-+/=.]{8,})"),
    # DB_PASS=..., export REDIS_PASS=..., "db_pass": "..." (PASS as a word of the name)
    ("pass-assignment", r"(?i)\b(?:[\w.-]*[_.-])?pass(?:phrase)?(?:[_.-][\w.-]*)?[\"']?\s*[=:]\s*[\"']?"
                        r"(?P<secret>[^\s\"'&,;]{2,})"),
    # a bare AWS secret access key: 40 characters of base64 with upper, lower case and a digit, standing alone
    # (git SHAs are lower-case hex and never match)
    ("aws-secret-key-bare", r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
                            r"(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
]

#: keys whose values are always replaced (matched as words inside the key)
SECRET_KEYS = ["password", "passwd", "pwd", "pass", "passphrase", "secret", "secrets", "token",
               "api_key", "apikey", "access_key", "private_key", "client_secret", "authorization", "cookie",
               "set-cookie", "credentials", "x-api-key"]
