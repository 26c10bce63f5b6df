"""Every secret format: a positive it removes and a near miss it leaves, through the one Redactor
that audit, OpenTelemetry and the guard share, and end to end in tool output (guard) and in tool
arguments (audit's store, OpenTelemetry's attributes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.secret_formats import FORMATS, HEURISTICS, OUTPUT_FORMATS, Redactor

# built from parts so no scanner mistakes the fixtures for live credentials
HEX32 = "0123456789abcdef" * 2
HEX64 = HEX32 * 2
B64_88 = "Zm9vYmFyYmF6cXV4" * 5 + "Zm9vYmFy" + "=="
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

#: (list, format name, text with the secret, the secret, a near miss the format must not take)
CASES: list[tuple[str, str, str, str, str]] = [
    ("formats", "private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEkeyBody01\n-----END RSA PRIVATE KEY-----",
     "MIIEkeyBody01", "-----BEGIN PUBLIC KEY-----\nMIIBpublic\n-----END PUBLIC KEY-----"),
    ("formats", "aws-access-key", "id AKIA" + "IOSFODNN7EXAMPLE", "AKIA" + "IOSFODNN7EXAMPLE",
     "id AKIA" + "IOSFODNN7EXAMPL"),
    ("formats", "aws-secret-key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET,
     f"aws_secret_access_key = {AWS_SECRET[:39]}"),
    ("formats", "github-token", "ghp_" + "a1B2" * 9, "ghp_" + "a1B2" * 9, "ghp_" + "a1B2" * 8),
    ("formats", "gitlab-token", "glpat-" + "xY9_" * 5, "glpat-" + "xY9_" * 5, "glpat-" + "xY9_" * 4),
    ("formats", "anthropic-key", "sk-ant-api03-" + "xY9-" * 8, "sk-ant-api03-" + "xY9-" * 8, "sk-ant-x"),
    ("formats", "openai-key", "sk-proj-" + "Ab3_" * 8, "sk-proj-" + "Ab3_" * 8, "sk-" + "Ab3" * 3),
    ("formats", "slack-token", "xoxb-1234567890-abcdefghijkl", "xoxb-1234567890-abcdefghijkl",
     "xoxz-1234567890-abcdefghijkl"),
    ("formats", "slack-webhook", "https://hooks.slack.com/services/T000/B000/XXXX", "T000/B000/XXXX",
     "https://hooks.slack.com/apps/T000"),
    ("formats", "stripe-key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
     "pk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("formats", "google-api-key", "AIza" + "SyA-1234567890abcdefghijklmnopqrstu",
     "AIza" + "SyA-1234567890abcdefghijklmnopqrstu", "AIza" + "SyA-12345"),
    ("formats", "npm-token", "npm_" + "abcDEF123456" * 3, "npm_" + "abcDEF123456" * 3, "npm_" + "abcDEF123456"),
    ("formats", "pypi-token", "pypi-AgEIcHlwaS5vcmc" + "Q2xpZW50" * 4, "pypi-AgEIcHlwaS5vcmc" + "Q2xpZW50" * 4,
     "pypi-AgEIcHlwaS5vcmc" + "Q2xp"),
    ("formats", "jwt", f"token {JWT}", JWT, "eyJhbGciOiJIUzI1NiJ9.notatoken"),
    ("formats", "url-password", "postgres://bob:hunter2pw@db.example/app", "hunter2pw",
     "https://example.com/a:b@c"),
    ("formats", "huggingface-token", "HF_TOKEN " + "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
     "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_hub_download(repo_id)"),
    ("formats", "sendgrid-key", "SG." + "aB3" * 7 + "x." + "Cd4_e" * 8 + "Fgh", "SG." + "aB3" * 7 + "x." + "Cd4_e" * 8
     + "Fgh", "SG.short.value"),
    ("formats", "twilio-auth-token", f"curl -u AC{HEX32}:{HEX32[::-1]} https://api.twilio.com", HEX32[::-1],
     f"twilio_auth_token = {HEX32[:31]}"),
    ("formats", "twilio-sid", f"sid SK{HEX32}", f"SK{HEX32}", f"sid SK{HEX32.upper()}"),
    ("formats", "shopify-token", "shpat_" + HEX32, "shpat_" + HEX32, "shpat_" + "ghijklmnopqrstuv" * 2),
    ("formats", "digitalocean-token", "DIGITALOCEAN_TOKEN: dop_v1_" + HEX64, "dop_v1_" + HEX64,
     "dop_v2_" + HEX64),
    ("formats", "azure-account-key",
     f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={B64_88};EndpointSuffix=core.windows.net",
     B64_88, "AccountKeyName=primary;AccountName=acct"),
    ("formats", "docker-auth", '{"auths": {"ghcr.io": {"auth": "Ym9iOmh1bnRlcjJodW50ZXIy"}}}',
     "Ym9iOmh1bnRlcjJodW50ZXIy", '{"authType": "Ym9iOmh1bnRlcjJodW50ZXIy", "auth": "basic"}'),
    ("formats", "netrc-password", "machine api.example.com\n  login bob\n  password Netrc-pw-77", "Netrc-pw-77",
     "Enter your password below, then press return"),
    ("formats", "pgpass-password", "db.example.com:5432:app:alice:Pgpass-pw-77\n", "Pgpass-pw-77",
     "2026:11:26:05:42\n"),
    ("output", "bearer-token", "Authorization: Bearer abcdefghijklmnop1234", "abcdefghijklmnop1234",
     "Bearer shortone"),
    ("output", "env-secret", "export API_TOKEN=abc123def456", "abc123def456",
     "API_TOKEN = os.environ['API_TOKEN']"),
    ("heuristics", "bearer-token", "token abcdefghijkl99", "abcdefghijkl99", "token abc"),
    ("heuristics", "basic-auth", "Authorization: Basic Ym9iOmh1bnRlcjI=", "Ym9iOmh1bnRlcjI=", "basic usage"),
    ("heuristics", "user-password", "curl -u admin:CurlPw-2024 https://x", "CurlPw-2024", "curl -u admin https://x"),
    ("heuristics", "mysql-password", "mysql -u root -pMyS3cretPw db", "MyS3cretPw", "mysql -u root -p db"),
    ("heuristics", "password", "db_password=hunter2pw", "hunter2pw", "the password is long"),
    ("heuristics", "secret-assignment", "client_secret: abcdefgh12345", "abcdefgh12345", "client_secret: abc"),
    ("heuristics", "pass-assignment", "DB_PASS=hunter2pw", "hunter2pw", "bypass=hunter2pw compass"),
    ("heuristics", "aws-secret-key-bare", f"the key is {AWS_SECRET} ok", AWS_SECRET,
     "git checkout 3f786850e387550fdab836ed7e6dc881de23001b"),
]

LISTS = {"formats": FORMATS, "output": OUTPUT_FORMATS, "heuristics": HEURISTICS}
IDS = [f"{kind}-{name}" for kind, name, *_ in CASES]


def _redactor(kind: str) -> Redactor:
    return Redactor(loose=kind == "heuristics")


def test_every_format_has_a_case() -> None:
    declared = {(kind, name) for kind, formats in LISTS.items() for name, _ in formats}
    assert declared == {(kind, name) for kind, name, *_ in CASES}


@pytest.mark.parametrize(("kind", "name", "text", "secret", "near_miss"), CASES, ids=IDS)
def test_the_format_removes_its_secret(kind: str, name: str, text: str, secret: str, near_miss: str) -> None:
    clean, fired = _redactor(kind).redact(text)
    assert name in fired and secret not in clean, clean
    assert f"[REDACTED:{name}]" in clean


@pytest.mark.parametrize(("kind", "name", "text", "secret", "near_miss"), CASES, ids=IDS)
def test_the_format_leaves_its_near_miss(kind: str, name: str, text: str, secret: str, near_miss: str) -> None:
    _, fired = _redactor(kind).redact(near_miss)
    assert name not in fired


def test_strict_redaction_leaves_prose_and_code_alone() -> None:
    for text in ("Enter your password below", "SECRET_KEY = os.environ['SECRET_KEY']", "12:30:45:10:99",
                 "max_tokens: 4096", "see https://example.com:8080/a@b"):
        assert Redactor(loose=False).redact(text) == (text, [])


NEW = [c for c in CASES if c[1] in {"huggingface-token", "sendgrid-key", "twilio-auth-token", "twilio-sid",
                                     "shopify-token", "digitalocean-token", "azure-account-key", "docker-auth",
                                     "netrc-password", "pgpass-password"}]
NEW_IDS = [c[1] for c in NEW]


@pytest.mark.parametrize(("kind", "name", "text", "secret", "near_miss"), NEW, ids=NEW_IDS)
def test_the_guard_redacts_it_in_tool_output(tmp_path: Path, kind: str, name: str, text: str, secret: str,
                                             near_miss: str) -> None:
    import agent_hooks_guard

    rt = Runtime(plugins=[("guard", agent_hooks_guard)], cwd=str(tmp_path))
    out = rt.fire("pre_tool_output", {"tool_name": "read", "output": f"{text}\nend"})
    assert out.decision == "modified" and secret not in out.data["output"]
    assert f"[REDACTED:{name}]" in out.data["output"]


@pytest.mark.parametrize(("kind", "name", "text", "secret", "near_miss"), NEW, ids=NEW_IDS)
def test_the_audit_never_stores_it_from_tool_arguments(tmp_path: Path, kind: str, name: str, text: str, secret: str,
                                                       near_miss: str) -> None:
    import agent_hooks_audit
    from agent_hooks_audit import store

    db = tmp_path / "audit.db"
    rt = Runtime(plugins=[("audit", agent_hooks_audit)], plugin_config={"audit": {"db": str(db)}}, session_id="s1")
    assert rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": f"echo '{text}'"}}).errors == []
    store.store_for(db).close()  # checkpoint the WAL into the file
    raw = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    assert secret.encode() not in raw
    conn = sqlite3.connect(db)
    try:
        (event,) = conn.execute("SELECT event FROM events").fetchone()
    finally:
        conn.close()
    assert f"[REDACTED:{name}]" in event


@pytest.mark.parametrize(("kind", "name", "text", "secret", "near_miss"), NEW, ids=NEW_IDS)
def test_opentelemetry_never_exports_it_from_tool_arguments(kind: str, name: str, text: str, secret: str,
                                                            near_miss: str) -> None:
    from agent_hooks_otel.options import OtelOptions

    opts = OtelOptions.from_raw({"payload_fields": ["tool_name", "arguments"]})
    attrs: dict[str, Any] = opts.payload({"tool_name": "bash", "arguments": {"command": text}})
    assert secret not in str(attrs) and f"[REDACTED:{name}]" in str(attrs)
