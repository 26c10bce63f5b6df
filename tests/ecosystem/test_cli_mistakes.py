"""A user's mistake ends in one line and exit 2, never "internal error" or a server that dies in the
background; and nothing reports success for what did not happen (the real command line, in a
subprocess, with its own HOME)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .conftest import Run, agenthooks


def one_line(r: Run, fragment: str) -> None:
    assert r.code == 2, (r.code, r.out, r.err)
    assert r.err.startswith("agenthooks: error: ") and r.err.count("\n") == 1, r.err
    assert "internal error" not in r.err and "Traceback" not in r.err + r.out
    assert fragment in r.err, r.err


DEEP = "[" * 100_000 + "]" * 100_000


def _no_psycopg(tmp_path: Path) -> dict[str, str]:
    """A psycopg that cannot be imported, as where the [postgres] extra is not installed."""
    shadow = tmp_path / "nopsycopg"
    for name in ("psycopg", "psycopg_pool"):
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text(f"raise ImportError('No module named {name}')\n")
    return {"PYTHONPATH": str(shadow)}


# (case, argv (TMP is the test's directory), extra environment, user settings, what the line says)
MISTAKES = [
    ("fire: nested deeper than any event", ["fire", "pre_tool", "-d", "@TMP/deep.json"], {}, None,
     "deep.json is nested deeper than 100 levels"),
    ("fire: a deep payload on stdin", ["fire", "pre_tool"], {"STDIN": DEEP}, None,
     "stdin is nested deeper than 100 levels"),
    ("fire: NaN is not JSON", ["fire", "pre_tool", "-d", '{"tool_name": "bash", "n": NaN}'], {}, None,
     "NaN is not a JSON number"),
    ("fire: Infinity is not JSON", ["fire", "pre_tool", "-d", '{"n": -Infinity}'], {}, None,
     "-Infinity is not a JSON number"),
    ("fire: an endless file", ["fire", "pre_tool", "-d", "@/dev/zero"], {}, None,
     "/dev/zero is larger than 67,108,864 bytes"),
    ("fire: a file that is not text", ["fire", "pre_tool", "-d", "@TMP/binary"], {}, None, "not UTF-8 text"),
    ("--settings names a device", ["--settings", "/dev/zero", "plugins", "list"], {}, None,
     "--settings /dev/zero: not a regular file"),
    ("replay --expect names a device", ["replay", "TMP/deep.json", "--expect", "/dev/zero"], {}, None,
     "--expect /dev/zero: not a regular file"),
    ("new-plugin under a file", ["new-plugin", "x", "--dir", "TMP/a-file/sub"], {}, None, "cannot create"),
    ("serve run: port out of range", ["serve", "run", "--port", "99999"], {}, None,
     "--port 99999: expected a TCP port number"),
    ("serve start: port out of range", ["serve", "start", "--port", "99999"], {}, None,
     "--port 99999: expected a TCP port number"),
    ("serve start: bad port variable", ["serve", "start"], {"AGENT_HOOKS_SERVE_PORT": "x"}, None,
     "AGENT_HOOKS_SERVE_PORT='x': expected a TCP port number"),
    ("serve run: bad port variable", ["serve", "run"], {"AGENT_HOOKS_SERVE_PORT": "70000"}, None,
     "AGENT_HOOKS_SERVE_PORT='70000'"),
    ("serve start: [serve] port a string", ["serve", "start"], {"AGENT_HOOKS_SERVE_PORT": ""},
     '[serve]\nport = "x"\n', "serve.port: expected a TCP port number (1-65535), got a string ('x')"),
    ("doctor: [serve] port out of range", ["doctor"], {}, "[serve]\nport = 123456\n", "serve.port"),
    ("audit stats: PostgreSQL without psycopg", ["audit", "stats", "--db", "postgresql://u@127.0.0.1:9/x"],
     {"NO_PSYCOPG": "1"}, None, "agent-hooks-audit[postgres]"),
    ("plugins uninstall: nothing of that name", ["plugins", "uninstall", "nosuch"], {}, None,
     "no installed plugin or distribution 'nosuch'"),
    ("hosts: no such directory", ["hosts", "--dir", "TMP/nonexistent"], {}, None, "no such directory"),
    ("install: no such project directory", ["install", "claude-code", "--project", "--dir", "TMP/no/x"], {}, None,
     "--dir TMP/no/x: no such directory"),
    ("uninstall: no such project directory", ["uninstall", "gemini", "--project", "--dir", "TMP/no/x"], {}, None,
     "no such directory"),
    ("trust: --show and --revoke", ["trust", "--show", "--revoke"], {}, None,
     "--show and --revoke cannot be combined"),
    ("trust: --list and --show", ["trust", "--list", "--show"], {}, None, "cannot be combined"),
]


@pytest.mark.parametrize(("argv", "extra", "settings", "fragment"), [m[1:] for m in MISTAKES],
                         ids=[m[0] for m in MISTAKES])
def test_a_mistake_is_one_line_and_exit_2(env: dict[str, str], tmp_path: Path, argv: list[str],
                                          extra: dict[str, str], settings: str | None, fragment: str) -> None:
    (tmp_path / "a-file").write_text("")
    (tmp_path / "deep.json").write_text(DEEP)
    (tmp_path / "binary").write_bytes(b"\xff\xfe\x00garbage")
    extra = dict(extra)
    stdin = extra.pop("STDIN", "")
    if extra.pop("NO_PSYCOPG", None):
        extra = {**extra, **_no_psycopg(tmp_path)}
    if settings is not None:
        Path(env["AGENT_HOOKS_HOME"]).mkdir(exist_ok=True)
        Path(env["AGENT_HOOKS_HOME"], "settings.toml").write_text(settings)
    args = [a.replace("TMP", str(tmp_path)) for a in argv]
    r = agenthooks(env, *args, cwd=tmp_path, stdin=stdin, **extra)
    if argv == ["doctor"]:  # doctor reports settings problems as findings (exit 1), in its own layout
        assert r.code == 1 and fragment in r.out and "Traceback" not in r.err, (r.out, r.err)
        return
    one_line(r, fragment.replace("TMP", str(tmp_path)))
    assert not (tmp_path / "no").exists()  # no project tree made for a mistyped --dir


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a system without /proc")
def test_new_plugin_in_proc(env: dict[str, str], tmp_path: Path) -> None:
    one_line(agenthooks(env, "new-plugin", "x", "--dir", "/proc", cwd=tmp_path), "cannot create /proc/agent-hooks-x")


def test_replay_reports_a_nan_line_and_goes_on(env: dict[str, str], tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    good = {"hook": "pre_tool", "event": {"tool_name": "bash", "arguments": {"command": "ls"}}}
    session.write_text('{"hook": "pre_tool", "event": {"n": NaN}}\n' + json.dumps(good) + "\n")
    r = agenthooks(env, "-p", "no:audit", "replay", session, cwd=tmp_path)
    assert r.code == 2, r.err  # replay's exit status for malformed lines
    assert "line 1: not JSON: NaN is not a JSON number" in r.err and "1 malformed" in r.out
    assert "1 events replayed" in r.out or "2 events replayed" in r.out


# -- nothing claimed that did not happen ---------------------------------------------------------


def test_trust_json_shows_and_trusts_nothing(env: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".agent-hooks" / "hooks").mkdir(parents=True)
    (project / ".agent-hooks" / "hooks" / "h.py").write_text("")
    r = agenthooks(env, "trust", "--json", cwd=project)
    assert r.code == 0, r.err
    assert json.loads(r.out)["trusted"] is False
    assert json.loads(agenthooks(env, "trust", "--list", "--json", cwd=project).out) == []


def test_http_dry_run_does_not_print_the_token(env: dict[str, str], tmp_path: Path) -> None:
    token = "not-to-be-shown-" + "x" * 20
    ah = Path(env["AGENT_HOOKS_HOME"])
    ah.mkdir()
    (ah / "serve-token").write_text(token + "\n")
    (ah / "serve-token").chmod(0o600)
    r = agenthooks(env, "install", "claude-code", "--transport", "http", "--dry-run", cwd=tmp_path)
    assert r.code == 0, r.err
    assert "AGENT_HOOKS_TOKEN" in r.out and token not in r.out + r.err
    assert not (Path(env["HOME"]) / ".claude").exists()


def test_serve_status_without_events_says_so() -> None:
    from agent_hooks_core.cli.serve import _describe

    status = {"pid": 1, "version": "0.1.0", "python": "3.12.1", "uptime_s": 2, "socket": "/run/s", "events": 0,
              "blocked": 0, "failures": 0, "rejected": 0, "p50_ms": None, "p99_ms": None, "runtimes": 0,
              "builds": 0, "plugins": [], "last_reload": None}
    lines = "\n".join(_describe(status))
    assert "None" not in lines and "latency:     no events yet" in lines
    lines = "\n".join(_describe({**status, "events": 3, "p50_ms": 1.5, "p99_ms": 4.0}))
    assert "p50 1.5 ms, p99 4.0 ms" in lines


def test_hosts_wired_column_names_scopes_only(env: dict[str, str], tmp_path: Path) -> None:
    extra = {"PATH": os.path.dirname(sys.executable)}  # neither pi nor omp on PATH
    r = agenthooks(env, "hosts", "--json", cwd=tmp_path, **extra)
    assert r.code == 0, r.err
    assert {h["host"]: h["wired"] for h in json.loads(r.out)["hosts"]}["pi"] == []
    assert agenthooks(env, "install", "pi", cwd=tmp_path, **extra).code == 0
    data = json.loads(agenthooks(env, "hosts", "--json", cwd=tmp_path, **extra).out)
    wired = {h["host"]: h["wired"] for h in data["hosts"]}
    assert wired["pi"] == ["user"] and wired["omp"] == [] and wired["claude-code"] == []
    text = agenthooks(env, "hosts", cwd=tmp_path, **extra).out
    table = text.split("\n\n", 1)[0].splitlines()[1:]  # the hosts table: host, wired in, executable
    scopes = {line.split()[0]: line.split()[1] for line in table if not line.startswith(" ")}
    assert scopes["pi"] == "user" and scopes["omp"] == "no" and "yes" not in scopes.values()
