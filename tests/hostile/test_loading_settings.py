"""Settings edits never lose an update; every settings mistake is one clear line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

from .loading_support import agenthooks, env_for, one_line, write

PLUGINS = [f"p{i}" for i in range(6)]


def _hooks(home: Path) -> None:
    for name in PLUGINS:
        write(home / "hooks" / f"{name}.py", "from agent_hooks_core import hookimpl\n")


@pytest.mark.parametrize("round_", range(2))
def test_concurrent_disables_lose_nothing(tmp_path: Path, round_: int) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    _hooks(home)
    write(home / "settings.toml", "# mine\ndisabled = []\n")
    procs = [subprocess.Popen([sys.executable, "-m", "agent_hooks_core", "plugins", "disable", name],
                              cwd=cwd, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for name in PLUGINS]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(PLUGINS), results
    text = (home / "settings.toml").read_text()
    assert text.startswith("# mine\n")
    assert sorted(tomlkit.parse(text).unwrap()["disabled"]) == PLUGINS
    assert sorted(p.name for p in home.iterdir()) == ["cache", "hooks", "settings.toml"]  # no leftovers


def test_a_settings_dir_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    # a file where the settings directory should be: fails for root too, unlike chmod
    blocker = write(tmp_path / "not-a-dir", "not a directory\n")
    line = one_line(agenthooks("plugins", "disable", "guard", cwd=tmp_path, home=blocker / "home"))
    assert "Not a directory" in line and "Error" not in line
    write(tmp_path / ".agent-hooks", "not a directory\n")
    line = one_line(agenthooks("plugins", "disable", "guard", "--project", cwd=tmp_path, home=tmp_path / "home"))
    assert line.endswith(f"{tmp_path / '.agent-hooks' / 'settings.toml'}: cannot write settings: "
                         f"{tmp_path / '.agent-hooks'} is a file, not a directory")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_settings_dir_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / "settings.toml", "")
    home.chmod(0o500)
    try:
        line = one_line(agenthooks("plugins", "disable", "guard", cwd=tmp_path, home=home))
    finally:
        home.chmod(0o700)
    assert "cannot write settings: Permission denied" in line


@pytest.mark.parametrize(("text", "expected"), [
    ('disabled = ["guard", 3]\n', "disabled[1]: expected a string, got an integer (3)"),
    ("disabled = \"guard\"\n", "disabled: expected a list of strings, got a string ('guard')"),
    ("hook_timeout = -5\n", "hook_timeout: expected a number of seconds >= 0 (0 = no timeout), got an integer (-5)"),
    ("required = [true]\n", "required[0]: expected a string, got a boolean (true)"),
    ("stop_gate_limit = -1\n", "stop_gate_limit: expected a whole number >= 0 (continuations in a row; 0 = never)"),
    ("stop_gate_limit = true\n", "stop_gate_limit: expected a whole number >= 0"),
    ("stop_gate_limit = 2.5\n", "stop_gate_limit: expected a whole number >= 0"),
    ("[timeouts]\npre_tool = 1979-05-27\n", "timeouts.pre_tool: expected a number of seconds"),
    ('organisation = {url = "https://example.org/p.toml"}\n', "organisation: expected a sha256 pin beside the url"),
    ('organisation = {url = "ftp://example.org/p.toml", sha256 = "00"}\n', "organisation.url: expected an https:// URL"),
])
def test_a_bad_value_names_the_key_the_item_and_what_it_got(tmp_path: Path, text: str, expected: str) -> None:
    home = tmp_path / "home"
    write(home / "settings.toml", text)
    for args in (("plugins", "list"), ("fire", "turn_start")):
        line = one_line(agenthooks(*args, cwd=tmp_path, home=home, data={}))
        assert expected in line and f"{home / 'settings.toml'}:" in line
        assert "NoneType" not in line and "datetime" not in line


def test_an_unknown_key_warns_with_a_suggestion_wherever_settings_are_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / "settings.toml", 'disabld = ["guard"]\n')
    for args in (("plugins", "list"), ("fire", "turn_start"), ("plugins", "disable", "audit")):
        run = agenthooks(*args, cwd=tmp_path, home=home, data={})
        assert run.code == 0, run
        assert "unknown key 'disabld' (ignored); did you mean 'disabled'?" in run.err
        assert run.err.count("disabld") == 1  # said once per invocation
