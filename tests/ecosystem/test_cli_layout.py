"""Every CLI screen reads at 80 columns (no line longer, no word cut), and file text is printed literally."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_hooks_core.cli.tables import MIN_TEXT, Column, layout
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from .conftest import FakeSite, plain, write

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "examples/sessions/coding-session.jsonl"


def fits(text: str, width: int = 80) -> None:
    long = [line for line in text.splitlines() if cell_len(line) > width]
    assert not long, f"{len(long)} lines wider than {width}: {long[:3]}"


def intact(text: str, *words: str) -> None:
    """Each word is there, on one line; a word longer than the screen (a deep temporary path) may be
    cut into indented pieces, the only way it fits."""
    import re

    joined = re.sub(r"\n +", "", text)
    for word in words:
        assert word in text or (len(word) > 60 and word in joined), f"{word!r} is cut or missing in:\n{text}"


# -- the layout itself --------------------------------------------------------------------------

COLS = [Column("#", right=True), Column("name"), Column("hooks", text=True), Column("reason", text=True)]
SHORT = [["1", "audit", "hook_called", ""], ["2", "guard", "pre_tool, pre_file_read", ""]]
LONG = [["1", "guard-with-a-long-name", "pre_tool, pre_tool_output, pre_api_tools, pre_file_read, "
         "pre_file_write, pre_shell_exec, pre_fetch_url", "invalid [plugins.guard] in settings.toml: mode: "
         "Input should be 'enforce' or 'observe'"]]


@pytest.mark.parametrize(("rows", "width", "shape"), [
    (SHORT, 80, "grid"),       # fits as is: one line per row under a header
    (LONG, 160, "wrapped"),    # text columns wrap inside the table
    (LONG, 80, "wrapped"),
    (LONG, 72, "records"),     # too narrow for that: key line, then label: value lines
    (LONG, 40, "records"),
])
def test_layout_picks_the_first_shape_that_fits(rows: list[list[str]], width: int, shape: str) -> None:
    lines = [line.plain for line in layout(COLS, rows, width)]
    assert all(len(line) <= width for line in lines), lines
    assert lines[0].split() == (["#", "name"] if shape == "records" else ["#", "name", "hooks", "reason"])
    assert (len(lines) == 1 + len(rows)) == (shape == "grid")
    assert any(line.lstrip().startswith("hooks:") for line in lines) == (shape == "records")
    text = " ".join(lines)
    for word in " ".join(" ".join(r) for r in rows).split():
        assert word in text


def test_markup_in_cells_is_literal_text() -> None:
    lines = layout([Column("reason", text=True)], [["[plugins.guard] is [bold]wrong[/bold]"]], 80)
    assert lines[1].plain == "[plugins.guard] is [bold]wrong[/bold]"


words = st.text(alphabet="abcdefghij-_.[]:/", min_size=1, max_size=30)


@settings(deadline=None, max_examples=60)  # pure computation: a loaded machine must not fail it
@given(rows=st.lists(st.lists(st.lists(words, max_size=8).map(" ".join), min_size=4, max_size=4),
                     min_size=1, max_size=5),
       width=st.integers(min_value=40, max_value=200))
def test_no_line_is_wider_than_the_screen_and_no_short_word_is_cut(rows: list[list[str]], width: int) -> None:
    lines = [line.plain for line in layout(COLS, rows, width)]
    assert all(len(line) <= width for line in lines)
    tokens = {tok for line in lines for tok in line.split()}
    for row in rows:
        for cell in row:
            for word in cell.split():
                assert word in tokens or len(word) > MIN_TEXT, (word, lines)


# -- the commands at 80 columns -----------------------------------------------------------------


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_plugins_list_at_80_columns(cli, site: FakeSite, home: Path, narrow: None) -> None:
    site.add("long-plugin-name", plain("long-plugin-name"), dist="agent-hooks-long-plugin-name", version="12.3.4")
    site.add("broken", "import nope_nope_nope\n")
    r = cli("plugins", "list")
    assert r.code == 0, r.err
    fits(r.out)
    intact(r.out, "agent-hooks-long-plugin-name", "12.3.4", "long-plugin-name", "nope_nope_nope", "failed")


def test_hooks_at_80_columns(cli, narrow: None) -> None:
    r = cli("hooks")
    assert r.code == 0
    fits(r.out)
    intact(r.out, "pi-agent:session:before_switch", "short-circuit(cancel),", "pre_session_switch")
    r = cli("hooks", "pre_tool")
    assert r.code == 0
    fits(r.out)
    intact(r.out, "PreToolEvent", "tool_call_id")


def test_replay_at_80_columns(cli, home: Path, narrow: None) -> None:
    r = cli("replay", SESSION)
    assert r.code == 0, r.err
    fits(r.out)
    intact(r.out, "reason=startup", "[guard:protected-read]", "[guard:force-push]", "pre_tool_output",
           "169.254.169.254")
    assert len(r.out.splitlines()) < 100  # 26 events; a table that wraps every cell took 149 lines


def test_doctor_at_80_columns_and_file_text_is_not_markup(cli, home: Path, narrow: None) -> None:
    settings = write(home / "settings.toml", '[plugins.guard]\nmode = "obsrve"\n')
    r = cli("doctor")
    assert r.code == 1
    fits(r.out)
    intact(r.out, "[plugins.guard]", str(settings))
    for args in (["plugins", "list"], ["plugins", "info", "guard"]):
        r = cli(*args)
        assert "[plugins.guard]" in r.out, r.out


def test_plugin_text_with_brackets_is_printed_as_is(cli, site: FakeSite, home: Path) -> None:
    site.add("brackets", "raise RuntimeError('[red]not markup[/red] [plugins.x]')\n")
    for args in (["plugins", "list"], ["plugins", "info", "brackets"], ["doctor"]):
        r = cli(*args)
        assert "[red]not markup[/red] [plugins.x]" in " ".join(r.out.split()), (args, r.out)


def test_audit_tables_at_80_columns(cli, home: Path, narrow: None) -> None:
    assert cli("replay", SESSION, "--session-id", "layout-test").code == 0
    r = cli("audit", "search", "--session", "layout-test")
    assert r.code == 0, r.err
    fits(r.out)
    intact(r.out, "[guard:protected-read]", "layout-test", "pre_tool_output", "blocked")
    r = cli("audit", "stats", "--session", "layout-test")
    assert r.code == 0, r.err
    fits(r.out)
    intact(r.out, "pre_tool_output", "guard")


# -- every other screen at 80 columns -----------------------------------------------------------


def continued_indented(text: str, starts: str) -> None:
    """A line that does not start a record (``starts``, a regex) is a continuation: indented."""
    import re

    for line in text.splitlines():
        assert not line or re.match(starts, line) or line.startswith(" "), f"continuation at column 0: {line!r}"


def test_every_help_screen_at_80_columns(cli, narrow: None) -> None:
    import typer
    from agent_hooks_core.cli.app import build_app
    from agent_hooks_core.cli.helptext import finish, walk

    root = typer.main.get_command(build_app(plugin_commands=True))
    finish(root)
    paths = [path for path, _ in walk(root)]
    assert "audit search" in paths and "install claude-code" in paths and "serve status" in paths
    for path in paths:
        r = cli(*path.split(), "--help")
        assert r.code == 0, (path, r.err)
        fits(r.out)
        assert "…" not in r.out, f"`agenthooks {path} --help` cuts its text:\n{r.out}"


def test_hosts_at_80_columns(cli, narrow: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    r = cli("hosts")
    assert r.code == 0, r.err
    fits(r.out)
    intact(r.out, "claude-code", "opencode", "pre_shell_exec", "FB-C", "auto_compaction_start")
    for width in (60, 120):  # the matrix splits into blocks of hosts as the width needs
        monkeypatch.setenv("COLUMNS", str(width))
        fits(cli("hosts").out, width)


def test_plugins_info_wraps_under_its_labels(cli, site: FakeSite, home: Path, narrow: None) -> None:
    site.add("long", plain("long"), dist="agent-hooks-" + "long-" * 12 + "name")
    write(home / "settings.toml", '[plugins.long]\nnote = "' + "a few words " * 12 + '"\n')
    r = cli("plugins", "info", "guard")
    assert r.code == 0, r.err
    fits(r.out)
    continued_indented(r.out, r"guard ")
    intact(r.out, "short-circuit(block)", "pre_tool_output:")


def test_audit_tail_at_80_columns(cli, home: Path, narrow: None) -> None:
    assert cli("replay", SESSION, "--session-id", "tail-layout").code == 0
    r = cli("audit", "tail", "--no-follow", "-n", "40")
    assert r.code == 0, r.err
    fits(r.out)
    continued_indented(r.out, r"\d{4}-\d\d-\d\d ")
    intact(r.out, "[guard:protected-read]", "tail-layout")


def test_install_summary_and_trust_show_at_80_columns(cli, narrow: None, tmp_path: Path, project: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    r = cli("install", "claude-code")
    assert r.code == 0, r.err
    fits(r.out)
    continued_indented(r.out, r"Wired ")
    intact(r.out, "PreToolUse,", "SessionEnd")
    write(project / ".agent-hooks/hooks/" / ("a-hook-file-with-a-rather-long-name" + ".py"), "")
    r = cli("trust", "--show")
    assert r.code == 0, r.err
    fits(r.out)


def test_serve_status_at_80_columns(cli, narrow: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_hooks_core.serve import server

    status = {"pid": 4242, "version": "0.1.0", "python": "3.12.1", "uptime_s": 12.5,
              "socket": "/run/user/1000/agent-hooks/" + "x" * 40 + "/serve.sock", "http": "127.0.0.1:47311",
              "events": 3, "blocked": 1, "failures": 0, "rejected": 0, "p50_ms": 1.2, "p99_ms": 3.4, "runtimes": 1,
              "builds": 1, "plugins": ["guard", "audit", "otel", "a-plugin-with-a-long-name", "another-one", "more"],
              "last_reload": None}
    monkeypatch.setattr(server, "status", lambda *a, **k: status)
    r = cli("serve", "status")
    assert r.code == 0, r.err
    fits(r.out)
    continued_indented(r.out, r"[a-z ]+:")
    intact(r.out, "a-plugin-with-a-long-name", "p50 1.2 ms")
