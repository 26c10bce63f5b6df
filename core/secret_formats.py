"""Secrets in text and payloads: the formats recognised, and the one :class:`Redactor` that the
audit, OpenTelemetry and guard plugins use.

Each format is ``(name, regex)``; a named group ``secret``, where present, is the part to replace
(the rest is context such as ``aws_secret_access_key=``). :data:`FORMATS` are secrets with high
confidence wherever they appear: provider keys and tokens, private key blocks, JWTs, passwords in
URLs, connection-string keys, docker/netrc/pgpass credentials. Replacing them never mangles
source code.

:data:`HEURISTICS` and :data:`SECRET_KEYS` are looser: ``password=...`` assignments, ``curl -u``,
``mysql -p``, bare 40-character AWS secret keys, secret-looking key names. They suit stores that
err on the side of removing (the audit database, OpenTelemetry attributes: ``Redactor()``), not
text handed back to an agent, which gets :data:`FORMATS` and :data:`OUTPUT_FORMATS` only
(``Redactor(loose=False)``, the guard).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

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
    # the user may be empty (redis://:pw@host) and the password may hold '@' (up to the last '@' before the host);
    # a scheme is short: bounded, a run like "a-a-a-…" costs linear time, not quadratic
    ("url-password", r"(?i)\b[a-z][a-z0-9+.-]{0,31}://[^/\s:@]*:(?P<secret>[^/\s]+)@"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{34,40}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    # an auth token after the account or API key SID it belongs to (ACxxx:token, as curl -u and URLs spell it),
    # or assigned to a Twilio-named or auth_token key; before the SIDs, which would hide the pairing
    ("twilio-auth-token", r"(?:\b(?:AC|SK)[0-9a-f]{32}:|(?i:(?:twilio[\w.-]{0,40}|auth_?token)[\"']?\s*[=:]\s*[\"']?))"
                          r"(?P<secret>[0-9a-f]{32})\b"),
    ("twilio-sid", r"\b(?:AC|SK)[0-9a-f]{32}\b"),
    ("shopify-token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    # Azure storage / Service Bus connection strings
    ("azure-account-key", r"(?i)\b(?:AccountKey|SharedAccessKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{20,}={0,2})"),
    # ~/.docker/config.json: "auths": {"registry": {"auth": "<base64 user:password>"}}, and the token forms
    ("docker-auth", r"\"(?:auth|identitytoken|registrytoken)\"\s*:\s*\"(?P<secret>[A-Za-z0-9+/=._-]{8,})\""),
    # ~/.netrc: "machine HOST [login USER] [account A] password PW", on one line or several
    ("netrc-password", r"\b(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(?P<secret>\S+)"),
    # ~/.pgpass: host:port:database:user:password, the host a name, an address or *, the port digits or *
    # (a line of its own, or quoted in a command that writes one)
    ("pgpass-password", r"(?m)(?:^|(?<=[\s\"'=]))(?:\*|(?=[\w.-]*[A-Za-z.])[\w.-]+|\[[0-9A-Fa-f:]+\]):(?:\d{1,5}|\*):"
                        r"[^:\s]+:[^:\s]+:(?P<secret>[^\s\"']+)(?=[\s\"']|$)"),
]

#: for text handed back to an agent (with :data:`FORMATS`): bearer tokens long enough to be one, and
#: ``.env``-style ``UPPER_CASE_SECRET=value`` lines (no spaces around ``=``, so
#: ``SECRET_KEY = os.environ[...]`` in code stays as it is)
OUTPUT_FORMATS: list[tuple[str, str]] = [
    ("bearer-token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"),
    ("env-secret", r"(?m)^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|"
                   r"ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*=(?P<secret>[^\s\"'#]+)"),
]

#: looser patterns for stores that err on the side of removing (see the module docstring)
HEURISTICS: list[tuple[str, str]] = [
    # Name parts around a keyword are bounded ({0,64}) and a match starts at the keyword, never at every
    # word boundary before it: a run like "a-a-a-…" or "token-token-…" then costs linear time, not quadratic.
    ("bearer-token", r"(?i)\b(?:bearer|token)\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)"),
    ("basic-auth", r"(?i)\bbasic\s+(?P<secret>[A-Za-z0-9+/]{12,}=*)"),
    # curl -u user:pw, curl --user=user:pw (also wget/http clients that copied the flag)
    ("user-password", r"(?:^|[\s\"'])(?:-u|--user|--proxy-user)(?:\s+|=)[\"']?[^\s:\"']*:(?P<secret>[^\s\"']+)"),
    # mysql -pPW / mysqldump -pPW (the password glued to -p); --password=PW is a password assignment
    ("mysql-password", r"\bmysql[\w-]{0,64}\b[^\n|;&]{0,512}?\s-p(?P<secret>[^\s\"']+)"),
    ("password", r"(?i)(?:password|passwd|pwd)[\w.-]{0,64}[\"']?\s*[=:]\s*[\"']?(?P<secret>[^\s\"'&,;]{2,})"),
    ("secret-assignment", r"(?i)(?:secret|token|api_?key|access_?key|private_?key|credential)[\w.-]{0,64}"
                          r"[\"']?\s*[=:]\s*[\"']?(?P<secret>[A-Za-z0-9_\-+/=.]{8,})"),
    # DB_PASS=..., export REDIS_PASS=..., "db_pass": "..." (PASS as a word of the name: "bypass" is not)
    ("pass-assignment", r"(?i)(?:(?<=[_.-])|\b)pass(?:phrase)?(?:[_.-][\w.-]{0,64})?[\"']?\s*[=:]\s*[\"']?"
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


#: containers nested deeper than this are replaced by a marker (keeps the walk and json.dumps off the recursion limit)
MAX_DEPTH = 64
_TOKEN_TAIL = re.compile(r"[\w+/=.\-]+\Z")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: a lone surrogate (from ``\\ud800`` in JSON, or invalid UTF-8 decoded with surrogateescape), and NUL,
#: which PostgreSQL's text refuses
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` that every store can take: a lone surrogate (or NUL) becomes its escape (``\\ud800``), so
    the evidence is kept and the record can be written (SQLite, PostgreSQL and the spool files refuse it)."""
    if _UNSTORABLE.search(text) is None:
        return text
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


class Redactor:
    """Replaces secrets with ``[REDACTED:<format>]``.

    ``Redactor()`` (``loose``): :data:`FORMATS` and :data:`HEURISTICS`, values under
    :data:`SECRET_KEYS`, for what is stored or exported. ``Redactor(loose=False)``: :data:`FORMATS`
    and :data:`OUTPUT_FORMATS`, for text an agent reads. ``extra_patterns`` are the user's regexes
    (a group named ``secret``, if present, is the part replaced), ``extra_keys`` more key names.
    """

    def __init__(self, extra_patterns: Sequence[str] = (), extra_keys: Sequence[str] = (), *,
                 loose: bool = True) -> None:
        formats = [*FORMATS, *(HEURISTICS if loose else OUTPUT_FORMATS)]
        self.patterns = [(name, re.compile(rx)) for name, rx in formats]
        self.patterns += [(f"pattern-{i + 1}", re.compile(rx)) for i, rx in enumerate(extra_patterns)]
        keys = [*SECRET_KEYS, *extra_keys] if loose else list(extra_keys)
        words = "|".join(re.escape(k.lower()).replace("_", "[_-]?") for k in keys)
        self._secret_key = re.compile(rf"(?:^|[^a-z])(?:{words})(?:$|[^a-z])") if words else None

    def secret_key(self, key: str) -> bool:
        """``api_key``, ``X-Api-Key``, ``accessToken``, ``DB_PASSWORD``: yes; ``max_tokens``: no."""
        return self._secret_key is not None and self._secret_key.search(_CAMEL.sub("_", key).lower()) is not None

    def redact(self, text: str) -> tuple[str, list[str]]:
        """(``text`` with secrets replaced, the names of the formats that fired)."""
        fired: list[str] = []
        for name, rx in self.patterns:
            if rx.search(text) is None:
                continue
            fired.append(name)
            marker = f"[REDACTED:{name}]"

            def repl(m: re.Match[str], marker: str = marker) -> str:
                if "secret" in m.re.groupindex and m.group("secret") is not None:
                    if "[REDACTED:" in m.group("secret"):
                        return m.group(0)  # an earlier format got it already (markers hold ':')
                    s, e = m.span("secret")
                    return m.group(0)[: s - m.start()] + marker + m.group(0)[e - m.start():]
                return marker

            text = rx.sub(repl, text)
        return text, fired

    def text(self, text: str) -> str:
        """``text`` redacted and storable (:func:`clean_text`)."""
        return self.redact(clean_text(text))[0]

    def value(self, obj: object, budget: float = math.inf, *, secret: bool = False) -> tuple[object, bool]:
        """(a JSON-able copy of ``obj`` with secrets replaced, cut to about ``budget`` characters;
        whether it was cut).

        Keys are redacted like values (a secret used as a key is still a secret), and every scalar
        below a secret-looking key (or everything, with ``secret``) is replaced, whatever its type
        or depth. Long strings are cut *before* the patterns run, and a cut never leaves the start
        of a token behind, so the work is bounded and no half secret is kept."""
        state = _Walk(budget)
        return self._walk(obj, secret, state, 0), state.cut

    def _key(self, key: object, taken: dict[str, object]) -> str:
        clean = self.text(str(key))
        n = 1
        while clean in taken:  # two secrets redacted to the same marker keep both values
            n += 1
            clean = f"{self.text(str(key))}#{n}"
        return clean

    def _walk(self, obj: object, secret: bool, state: _Walk, depth: int) -> object:
        if obj is None or isinstance(obj, bool):
            return obj
        if depth > MAX_DEPTH and isinstance(obj, (dict, list, tuple, set, frozenset)):
            state.cut = True  # hostile nesting: the record is kept, the deep part is not
            return f"…[nested deeper than {MAX_DEPTH}]"
        if secret and isinstance(obj, (str, int, float, bytes)):
            return "[REDACTED:key]"
        if isinstance(obj, str):
            left = state.budget
            if left <= 0:
                state.cut = True
                return "…"
            if len(obj) > left:
                state.cut = True
                keep = int(left)
                obj = _TOKEN_TAIL.sub("", obj[:keep]) + f"…[{len(obj) - keep} more chars]"
            state.budget = left - len(obj)
            return self.text(obj)
        if isinstance(obj, (int, float)):
            state.budget -= 8
            return obj
        if isinstance(obj, dict):
            out: dict[str, object] = {}
            for k, v in obj.items():
                if state.budget <= 0:
                    out["…"] = f"{len(obj) - len(out)} more keys"
                    state.cut = True
                    break
                raw = str(k)
                out[self._key(raw, out)] = self._walk(v, secret or self.secret_key(raw), state, depth + 1)
                state.budget -= len(raw) + 4
            return out
        if isinstance(obj, (list, tuple, set, frozenset)):
            items: list[object] = []
            for i, v in enumerate(obj):
                if state.budget <= 0:
                    items.append(f"… {len(obj) - i} more items")
                    state.cut = True
                    break
                items.append(self._walk(v, secret, state, depth + 1))
                state.budget -= 2
            return items
        dump = getattr(obj, "model_dump", None)
        if callable(dump):
            return self._walk(dump(mode="json"), secret, state, depth)
        if isinstance(obj, bytes):
            obj = obj.decode("utf-8", "backslashreplace")
        return self._walk(str(obj), secret, state, depth)


@dataclass
class _Walk:
    """What is left of one :meth:`Redactor.value` call's budget, and whether anything was cut."""

    budget: float
    cut: bool = False
