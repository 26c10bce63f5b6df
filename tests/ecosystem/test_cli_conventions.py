"""Conventions users bring from pytest and llm: -p no:NAME, --version with plugins, completion, global
options before every command, flags shown as flags, examples and exit codes in every --help, and
`fire` exit codes scripts can branch on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core.__main__ import fast_command
from agent_hooks_core.cli.helptext import EPILOGS

from .conftest import FakeSite, plain, write

DANGER = json.dumps({"tool_name": "bash", "arguments": {"command": "danger"}})
SAFE = json.dumps({"tool_name": "bash", "arguments": {"command": "ls"}})
NO_REPO_PLUGINS = 'disabled = ["guard", "audit", "otel"]\n'


def statuses(r) -> dict[str, str]:
    assert r.code == 0, r.err
    return {row["name"]: row["status"] for row in r.json}


def agenthooks(*args: str | os.PathLike[str], input: str = "", env: dict[str, str] | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line in a subprocess (fd-level output, environment, exit status)."""
    return subprocess.run([sys.executable, "-m", "agent_hooks_core", *map(os.fspath, args)], input=input,
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=60)


# -- -p no:NAME -------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["-p", "no:alpha"], ["-pno:alpha"], ["-p=no:alpha"]])
def test_p_no_name_switches_a_plugin_off_for_one_run(cli, site: FakeSite, home: Path, args: list[str]) -> None:
    site.add("alpha", plain("alpha"))
    site.add("beta", plain("beta"))
    write(home / "settings.toml", NO_REPO_PLUGINS)
    got = statuses(cli(*args, "plugins", "list", "--json"))
    assert got["alpha"] == "disabled" and got["beta"] == "loaded"
    assert not site.imported("alpha")
    r = cli(*args, "fire", "pre_tool", "--data", DANGER)
    assert r.json["reason"] == "beta says no"
    assert not (home / "settings.toml").read_text().count("alpha")  # for this run only
    assert statuses(cli("plugins", "list", "--json"))["alpha"] == "loaded"


def test_p_no_name_after_the_command_and_a_misspelled_name(cli, site: FakeSite, home: Path) -> None:
    site.add("alpha", plain("alpha"))
    write(home / "settings.toml", NO_REPO_PLUGINS)
    assert statuses(cli("plugins", "list", "--json", "-p", "no:agent-hooks-alpha"))["alpha"] == "disabled"
    r = cli("-p", "no:alpah", "plugins", "list", "--json")
    assert statuses(r)["alpha"] == "loaded"
    assert "-p no:alpah names 'alpah', which matches no plugin (did you mean 'alpha'?)" in r.err


@pytest.mark.parametrize("value", ["alpha", "no:", "yes:alpha"])
def test_p_takes_only_no_name(cli, value: str) -> None:
    r = cli("-p", value, "plugins", "list")
    assert r.code == 2 and r.err.startswith("agenthooks: error: -p ") and "no:NAME" in r.err
    assert r.err.count("\n") == 1


# -- --version ----------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_lists_plugins_and_their_versions_without_importing_them(
        cli, site: FakeSite, home: Path, flag: str) -> None:
    site.add("alpha", plain("alpha"), version="1.2.3")
    site.add("off", plain("off"), version="0.9")
    write(home / "settings.toml", 'disabled = ["off"]\n')
    r = cli(flag)
    assert r.code == 0
    lines = r.out.splitlines()
    assert lines[0].startswith("agenthooks 0.1.0 (agent-hooks-core, Python ")
    assert "  alpha  agent-hooks-alpha 1.2.3" in lines
    assert any(line.startswith("  off  agent-hooks-off 0.9  [disabled]") for line in lines), lines
    assert not site.imported("alpha") and not site.imported("off")


def test_version_with_broken_settings_still_answers(cli, home: Path) -> None:
    write(home / "settings.toml", "disabled = [\n")
    r = cli("--version")
    assert r.code == 0 and r.out.startswith("agenthooks 0.1.0") and "plugins: unknown (" in r.out


# -- help ---------------------------------------------------------------------------------------


def command_paths() -> list[list[str]]:
    import typer
    from agent_hooks_core.cli.app import build_app
    from agent_hooks_core.cli.helptext import walk

    root = typer.main.get_command(build_app())
    return [path.split() for path, cmd in walk(root) if path and getattr(cmd, "add_help_option", True)]


def test_every_command_has_examples_and_exit_codes_and_flags_read_as_flags(cli) -> None:
    paths = command_paths()
    assert ["fire"] in paths and ["plugins", "install"] in paths and ["install", "claude-code"] in paths
    for path in [[], *paths]:
        r = cli(*path, "--help")
        assert r.code == 0, (path, r.err)
        assert "<bool>" not in r.out, path
        assert "Exit codes:" in r.out, path
        if " ".join(path) in EPILOGS:
            assert "Examples:" in r.out and "agenthooks " + " ".join(path) in r.out, path


def test_plugins_install_is_found_from_install_help_and_top_level_help(cli) -> None:
    for path in ([], ["install"]):
        assert "agenthooks plugins install agent-hooks-guard" in cli(*path, "--help").out


def test_fire_help_documents_the_blocked_exit_code(cli) -> None:
    out = " ".join(cli("fire", "--help").out.split())
    assert "3 blocked or denied" in out


# -- completion ---------------------------------------------------------------------------------


def test_shell_completion(tmp_path: Path) -> None:
    script = agenthooks("--show-completion", "bash")
    assert script.returncode == 0 and "_AGENTHOOKS_COMPLETE" in script.stdout, script.stderr
    env = {"_AGENTHOOKS_COMPLETE": "complete_bash", "COMP_WORDS": "agenthooks plu", "COMP_CWORD": "1"}
    done = agenthooks(env=env)
    assert done.returncode == 0 and "plugins" in done.stdout.split(), (done.stdout, done.stderr)
    env = {"_AGENTHOOKS_COMPLETE": "complete_bash", "COMP_WORDS": "agenthooks plugins en", "COMP_CWORD": "2"}
    assert agenthooks(env=env).stdout.split() == ["enable"]
    assert "--install-completion" in agenthooks("--help").stdout


# -- global options before the per-event commands ------------------------------------------------


@pytest.mark.parametrize(("argv", "expected"), [
    (["claude-code", "--event", "PreToolUse"], ("claude-code", ["--event", "PreToolUse"])),
    (["--trace", "claude-code"], ("claude-code", [])),
    (["--hook", "a.py", "--settings=s.toml", "chibi", "--schema"],
     ("chibi", ["--hook", "a.py", "--settings=s.toml", "--schema"])),
    (["--hook=a.py", "--trace", "claude-code", "--ask"], ("claude-code", ["--hook=a.py", "--ask"])),
    (["-p", "no:audit", "claude-code"], None),         # the typer app explains
    (["--chibi-plugins", "d", "chibi"], None),
    (["fire", "claude-code"], None),
    (["serve", "status"], ("serve", ["status"])),
    (["--hook", "a.py", "serve", "start"], None),          # typer's serve takes the global options
    (["--hook"], None),
])
def test_fast_command_dispatch(argv: list[str], expected: tuple[str, list[str]] | None,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_HOOKS_TRACE", raising=False)
    assert fast_command(argv) == expected


def test_global_options_before_claude_code(tmp_path: Path, home: Path) -> None:
    hook = write(tmp_path / "mine.py", plain("mine"))
    settings = write(tmp_path / "s.toml", NO_REPO_PLUGINS)
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "danger"}})
    env = {"AGENT_HOOKS_HOME": str(home)}
    r = agenthooks("--trace", "--hook", hook, "--settings", settings, "claude-code", "--event", "PreToolUse",
                   input=event, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny" and "mine says no" in answer["permissionDecisionReason"]
    assert "agenthooks: trace: load mine (file)" in r.stderr
    r = agenthooks("-p", "no:audit", "claude-code", input=event, env=env, cwd=tmp_path)
    assert r.returncode == 2 and "only --hook, --settings and --trace may come before claude-code" in r.stderr


# -- fire: exit codes and handler output ----------------------------------------------------------


def test_fire_exit_codes(cli, site: FakeSite, home: Path) -> None:
    site.add("alpha", plain("alpha"))
    write(home / "settings.toml", NO_REPO_PLUGINS)
    table = [  # (args, exit code, decision)
        (["fire", "pre_tool", "--data", SAFE], 0, "allowed"),
        (["fire", "pre_tool", "--data", DANGER], 3, "blocked"),
        (["fire", "pre_file_read", "--data", '{"path": "notes.txt"}'], 3, "denied"),  # no handler: fail-safe deny
        (["fire", "turn_start"], 0, "observed"),
    ]
    for args, code, decision in table:
        r = cli(*args)
        assert r.code == code, (args, r.code, r.err)
        assert cli(*args, "--outcome").json["decision"] == decision, args


HANDLER_THAT_TALKS = """
import os, sys
from agent_hooks_core import hookimpl

print("chatter at import")

@hookimpl
def pre_tool(event):
    print("chatter from print()")
    sys.stdout.write("chatter from sys.stdout\\n")
    os.system("echo chatter from a subprocess")
    return {"block": True, "reason": "talkative says no"}
"""


def test_a_handler_printing_never_corrupts_fire_json(tmp_path: Path, home: Path) -> None:
    hook = write(tmp_path / "talkative.py", HANDLER_THAT_TALKS)
    settings = write(tmp_path / "s.toml", NO_REPO_PLUGINS)
    r = agenthooks("--hook", hook, "--settings", settings, "fire", "pre_tool", "--data", DANGER,
                   env={"AGENT_HOOKS_HOME": str(home)}, cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout) == {"block": True, "reason": "talkative says no", "message": "talkative says no"}
    for chatter in ("at import", "from print()", "from sys.stdout", "from a subprocess"):
        assert f"chatter {chatter}" in r.stderr
