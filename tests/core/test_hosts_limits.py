"""What ``agenthooks hosts`` and ``doctor`` say about each host's limits: what it does when we fail,
what it does at its own hook timeout (where that is open, no answer of ours can make it fail closed),
and whether the installed agent is the version its capabilities were proven on.

The installed agents are fake executables on PATH that print a version: the user's machine state,
not a stand-in for our code."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from agent_hooks_core.bridges import matrix, registry

RECORDS = registry.first_party()


def words(text: str) -> str:
    """The text with every run of whitespace as one space (the CLI wraps at the terminal's width)."""
    return " ".join(text.split())


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with a fresh HOME and a directory of agent executables first on PATH; returns that directory."""
    home = tmp_path / "home"
    home.mkdir()
    for var in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("COLUMNS", "200")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    return bin_dir


def agent(bin_dir: Path, name: str, body: str) -> Path:
    """An executable ``name`` on PATH running the shell ``body``."""
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    from agent_hooks_core.cli.app import run

    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_first_party_host_says_what_it_does_at_its_own_timeout() -> None:
    assert RECORDS
    missing = [r.name for r in RECORDS if r.timeout is None]
    assert missing == [], f"hosts without a described hook timeout: {missing}"


@pytest.mark.parametrize("record", RECORDS, ids=[r.name for r in RECORDS])
def test_hosts_name_shows_the_failure_text_and_the_timeout(record, machine, capsys, monkeypatch) -> None:
    code, out, err = cli(capsys, monkeypatch, "hosts", record.name)
    assert code == 0, err
    text = words(out)
    assert words(record.failure) in text
    assert record.timeout is not None
    expected = record.timeout.line(matrix.our_deadline() if "command" in record.transports else None)
    assert words(expected) in text
    if record.timeout.closed:
        assert "fails open" not in text
    else:
        assert f"fails open when it kills a hook at its own {record.timeout.seconds:g} s timeout" in text


@pytest.mark.parametrize("record", RECORDS, ids=[r.name for r in RECORDS])
def test_hosts_json_carries_failure_timeout_and_version(record, machine, capsys, monkeypatch) -> None:
    code, out, err = cli(capsys, monkeypatch, "hosts", "--json")
    assert code == 0, err
    entry = {h["host"]: h for h in json.loads(out)["hosts"]}[record.name]
    assert entry["failure"] == record.failure
    assert record.timeout is not None
    assert entry["timeout"]["fails_closed"] is record.timeout.closed
    assert entry["timeout"]["seconds"] == record.timeout.seconds
    assert entry["version"]["state"] in ("not installed", "protocol-tested")
    assert entry["version"]["proven"] == matrix.proven_version(record.name)


def test_the_table_has_a_timeout_column_open_or_blocking_per_host(machine, capsys, monkeypatch) -> None:
    code, out, err = cli(capsys, monkeypatch, "hosts")
    assert code == 0, err
    table = out.split("\n\n")[0].splitlines()  # the hosts table comes first, then the legends and the matrix
    rows = {line.split()[0]: line for line in table[1:]}
    for record in RECORDS:
        assert record.timeout is not None
        want = ("no limit" if record.timeout.seconds is None else
                f"{'blocks' if record.timeout.closed else 'open'} at {record.timeout.seconds:g} s")
        assert want in rows[record.name], (record.name, rows[record.name])


def test_an_unknown_host_is_one_line_and_exit_2(machine, capsys, monkeypatch) -> None:
    code, _, err = cli(capsys, monkeypatch, "hosts", "no-such-agent")
    assert code == 2
    assert "unknown host 'no-such-agent'" in err and "Traceback" not in err


def _with_proven() -> list[str]:
    return [r.name for r in RECORDS if matrix.proven_version(r.name)]


def _bumped(version: str) -> str:
    parts = version.split(".")
    return ".".join([*parts[:-1], str(int("".join(c for c in parts[-1] if c.isdigit()) or 0) + 1)])


@pytest.mark.parametrize("host", _with_proven())
@pytest.mark.parametrize("case", ["same", "newer", "garbage", "failing"])
def test_the_installed_version_against_the_proven_one(host, case, machine, capsys, monkeypatch) -> None:
    record = registry.get(host)
    proven = matrix.proven_version(host)
    printed = {"same": f"{proven} (build abc)", "newer": _bumped(proven), "garbage": "dev build", "failing": ""}[case]
    body = "exit 3" if case == "failing" else f"echo '{printed}'"
    agent(machine, record.executable or record.name, body)
    code, out, err = cli(capsys, monkeypatch, "hosts", "--json")
    assert code == 0, err
    version = {h["host"]: h for h in json.loads(out)["hosts"]}[host]["version"]
    want = {"same": "verified", "newer": "unverified", "garbage": "unknown", "failing": "unknown"}[case]
    assert version == {"proven": proven, "installed": printed.split()[0] if case in ("same", "newer") else None,
                       "state": want}
    caps = {h["host"]: h for h in json.loads(out)["hosts"]}[host]["capabilities"]
    proven_caps = [c for c in caps.values() if c.get("proven")]
    assert proven_caps and all(c["unverified"] is (case == "newer") for c in proven_caps)
    code, out, err = cli(capsys, monkeypatch, "hosts")
    cells = out.split("\n\n", 3)[-1]  # the matrix, after the table and the two legends
    assert ("!" in cells) is (case == "newer"), cells
    code, out, err = cli(capsys, monkeypatch, "hosts", host)
    text = words(out)
    if case == "newer":
        assert f"proven on {proven}; you have {printed}: unverified" in text
    elif case == "same":
        assert f"proven on {proven}; you have {proven}" in text and "unverified" not in text
    else:
        assert f"proven on {proven}; your version is unknown" in text


def test_doctor_says_an_installed_hosts_timeout_and_an_unverified_version(machine, capsys, monkeypatch) -> None:
    """Codex wired (the real installer) fails open at its own timeout: a warning; a newer Qwen Code
    than the proven one: a warning naming both versions; hosts not installed: nothing."""
    from agent_hooks_core.bridges.codex import install as cx

    agent(machine, "codex", "echo 'codex-cli 0.169.0'")
    cx.plan_install("user", argv=[sys.executable, "-m", "agent_hooks_core", "codex"]).apply()
    qwen = matrix.proven_version("qwen")
    assert qwen, "qwen's capabilities name the version they were proven on"
    agent(machine, "qwen", f"echo {_bumped(qwen)}")
    _, out, _ = cli(capsys, monkeypatch, "doctor", "--json")
    findings = [(f["level"], f["message"]) for f in json.loads(out)["findings"] if f["section"] == "hosts"]
    assert ("warning", "codex: fails open when it kills a hook at its own 60 s timeout (PreToolUse, "
                       f"PermissionRequest); our deadline answers at {matrix.our_deadline():g} s") in findings
    assert any(level == "warning" and message.startswith(f"qwen: proven on {qwen}; you have {_bumped(qwen)}: "
                                                         "unverified") for level, message in findings), findings
    assert any(level == "info" and message.startswith("qwen: fails open") for level, message in findings)
    assert not any(message.startswith(("gemini:", "cursor:", "claude-code:")) for _, message in findings)


def test_a_version_that_never_comes_is_unknown_within_the_bound(machine, monkeypatch) -> None:
    agent(machine, "gemini", "exec sleep 30")
    monkeypatch.setattr(matrix, "VERSION_TIMEOUT", 0.5)
    assert matrix.installed_version("gemini") is None


@pytest.mark.parametrize("where", ["relative PATH entry", "inside the working directory"])
def test_an_agent_executable_the_repository_could_have_put_there_is_never_run(where, machine, tmp_path,
                                                                             monkeypatch) -> None:
    """``hosts`` and ``doctor`` run in a cloned repository: its own ``./codex`` must not run to print a version."""
    project = Path.cwd()
    ran = tmp_path / "ran"
    if where == "relative PATH entry":
        agent(project, "codex", f"touch {ran}; echo 0.169.0")
        monkeypatch.setenv("PATH", f".{os.pathsep}{os.environ['PATH']}")
        assert matrix.executable("codex") is None
    else:
        inner = project / "node_modules" / ".bin"
        inner.mkdir(parents=True)
        agent(inner, "codex", f"touch {ran}; echo 0.169.0")
        monkeypatch.setenv("PATH", f"{inner}{os.pathsep}{os.environ['PATH']}")
        assert matrix.executable("codex") == str(inner / "codex")
    matrix.prefetch_versions(["codex"])
    assert matrix.installed_version("codex") is None
    assert matrix.version_state("codex")["state"] in ("unknown", "not installed")
    assert not ran.exists()
