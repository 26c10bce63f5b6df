"""The agenthooks CLI, in-process: commands, global options, one-line errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import environ
from tests.support.trusting import trust_user_hooks

from .conftest import FakeSite, plain, write

DANGER = json.dumps({"tool_name": "bash", "arguments": {"command": "danger"}})
SAFE = json.dumps({"tool_name": "bash", "arguments": {"command": "ls"}})
NO_REPO_PLUGINS = 'disabled = ["guard", "audit", "otel"]\n'


def one_line_error(r) -> str:
    assert r.code == 2, (r.code, r.out, r.err)
    assert r.err.startswith("agenthooks: error: ") and r.err.count("\n") == 1, r.err
    assert "Traceback" not in r.err + r.out
    return str(r.err)


def rows(r) -> dict[str, dict]:
    assert r.code == 0, r.err
    return {row["name"]: row for row in r.json}


def test_version(cli) -> None:
    r = cli("--version")
    assert r.code == 0 and r.out.startswith("agenthooks 0.1.0 ")


def test_help_and_no_command(cli) -> None:
    for args in (["--help"], []):
        r = cli(*args)
        assert r.code == 0
        for word in ("plugins", "fire", "hooks", "doctor", "trust", "new-plugin", "--hook", "--settings",
                     "--chibi-plugins", "--trace"):
            assert word in r.out


@pytest.mark.parametrize("args", [
    ["nope"], ["fire"], ["fire", "pre_tool", "--bogus"], ["plugins", "info"], ["plugins", "frobnicate"],
    ["--hook"], ["hooks", "no_such_hook"], ["fire", "pre_tool", "--dialect", "klingon", "--data", SAFE],
])
def test_bad_input_is_one_line_and_exit_2(cli, args: list[str]) -> None:
    one_line_error(cli(*args))


def test_internal_errors_are_one_line_too(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_hooks_core.cli import catalogue

    monkeypatch.setattr(catalogue, "print_table", lambda: 1 / 0)
    r = cli("hooks")
    assert r.code == 1 and r.err.count("\n") == 1 and "internal error: ZeroDivisionError" in r.err
    r = cli("--trace", "hooks")
    assert r.code == 1 and "Traceback" in r.err


# -- plugins ------------------------------------------------------------------------------------


def test_plugins_list_shows_every_plugin_with_status_and_order(cli, site: FakeSite, home: Path) -> None:
    site.add("alpha", plain("alpha"), version="1.2")
    site.add("broken", "import nope_nope\n")
    site.add("off", "raise RuntimeError\n")
    write(home / "hooks/local.py", plain("local"))
    write(home / "settings.toml", 'disabled = ["off", "audit"]\norder = ["alpha"]\n')
    trust_user_hooks()
    data = rows(cli("plugins", "list", "--json"))
    assert data["alpha"] | {"load_ms": None} == {
        "name": "alpha", "source": "entry-point", "status": "loaded", "distribution": "agent-hooks-alpha",
        "version": "1.2", "path": str(site.path / f"{site.module('alpha')}.py"),
        "entry_point": site.module("alpha"), "scope": None, "reason": None, "hooks": ["pre_tool"], "order": 1,
        "load_ms": None}
    assert (data["local"]["source"], data["local"]["scope"], data["local"]["order"]) == ("file", "user", 2)
    assert data["broken"]["status"] == "failed" and "nope_nope" in data["broken"]["reason"]
    assert data["off"]["status"] == "disabled" and data["off"]["order"] is None
    text = cli("plugins", "list")
    assert text.code == 0
    for word in ("alpha", "agent-hooks-alpha", "1.2", "loaded", "failed", "disabled", "pre_tool", "entry-point"):
        assert word in text.out


def test_plugins_info(cli, site: FakeSite, home: Path) -> None:
    site.add("alpha", plain("alpha"))
    site.add("broken", "import nope_nope\n")
    write(home / "settings.toml", "[plugins.alpha]\nlevel = 3\n")
    info = cli("plugins", "info", "agent-hooks-alpha", "--json")
    assert info.code == 0
    assert info.json["config"] == {"level": 3} and info.json["rules"]["pre_tool"].startswith("chain(arguments)")
    assert info.json["settings_files"] == [str(home / "settings.toml")]
    broken = cli("plugins", "info", "broken", "--json").json
    assert broken["errors"][0]["hook"] == "import" and "nope_nope" in broken["errors"][0]["message"]
    assert "nope_nope" in cli("plugins", "info", "broken").out
    assert "did you mean 'alpha'" in one_line_error(cli("plugins", "info", "alpah"))


COMMENTED = """\
# my settings
order = ["guard"]  # guard first
"""


def test_disable_and_enable_keep_comments_and_disabled_plugins_are_not_imported(
        cli, site: FakeSite, home: Path) -> None:
    site.add("alpha", plain("alpha"))
    settings = home / "settings.toml"
    settings.write_text(COMMENTED)
    r = cli("plugins", "disable", "alpha")
    assert r.code == 0 and r.out.startswith(f"Disabled alpha in {settings}")
    assert settings.read_text() == COMMENTED + 'disabled = ["alpha"]\n'
    assert cli("plugins", "disable", "agent-hooks-alpha").out.startswith("agent-hooks-alpha is already disabled")
    assert rows(cli("plugins", "list", "--json"))["alpha"]["status"] == "disabled"
    assert not site.imported("alpha")
    r = cli("plugins", "enable", "agent-hooks-alpha")
    assert r.code == 0 and r.out.startswith(f"Enabled agent-hooks-alpha in {settings}")
    assert settings.read_text() == COMMENTED + "disabled = []\n"
    assert rows(cli("plugins", "list", "--json"))["alpha"]["status"] == "loaded"
    assert "did you mean" in one_line_error(cli("plugins", "disable", "alpah"))


def test_project_level_enable_overrides_the_user(cli, site: FakeSite, home: Path, project: Path) -> None:
    site.add("alpha", plain("alpha"))
    project_file = project / ".agent-hooks/settings.toml"
    assert cli("plugins", "disable", "alpha", "--project").code == 0
    assert project_file.read_text() == 'disabled = ["alpha"]\n'
    assert cli("trust").code == 0  # a project's `disabled` applies once trusted
    r = cli("plugins", "enable", "alpha")  # the user file cannot override the project
    assert f"still disabled in {project_file}" in r.out
    assert rows(cli("plugins", "list", "--json"))["alpha"]["status"] == "disabled"

    write(home / "settings.toml", 'disabled = ["alpha"]\n')
    r = cli("plugins", "enable", "alpha", "--project")
    assert r.code == 0 and project_file.read_text() == 'disabled = []\nenabled = ["alpha"]\n'
    assert cli("trust").code == 0
    assert rows(cli("plugins", "list", "--json"))["alpha"]["status"] == "loaded"
    cli("plugins", "disable", "alpha", "--project")
    assert project_file.read_text() == 'disabled = ["alpha"]\nenabled = []\n'


def test_a_corrupt_settings_file_is_one_error_line_and_is_left_alone(cli, home: Path) -> None:
    settings = write(home / "settings.toml", 'order = ["a"]\ndisabled = [\n')
    for args in (["plugins", "list"], ["plugins", "disable", "guard"], ["fire", "turn_start"]):
        err = one_line_error(cli(*args))
        assert f"{settings}:" in err and "invalid TOML" in err
    assert settings.read_text() == 'order = ["a"]\ndisabled = [\n'


def test_plugins_install_and_uninstall_run_pip_of_this_environment(
        cli, site: FakeSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_hooks_core.cli import plugins

    assert plugins.pip_command()[:3] == [sys.executable, "-m", "pip"]
    log = tmp_path / "pip.log"
    fake = write(tmp_path / "fakepip.py", f"import sys, json\nopen({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    monkeypatch.setenv("AGENT_HOOKS_PIP", f"{sys.executable} {fake}")
    site.add("alpha", plain("alpha"))
    assert cli("plugins", "install", "--no-index", "--find-links", "/w", "agent-hooks-x").code == 0
    assert cli("plugins", "uninstall", "alpha").code == 0
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [["install", "--no-index", "--find-links", "/w", "agent-hooks-x"],
                     ["uninstall", "-y", "agent-hooks-alpha"]]
    assert "refusing" in one_line_error(cli("plugins", "uninstall", "agent-hooks-core"))


# -- fire ---------------------------------------------------------------------------------------


def test_fire_prints_the_combined_result(cli, site: FakeSite, home: Path, tmp_path: Path) -> None:
    site.add("alpha", plain("alpha"))
    write(home / "settings.toml", NO_REPO_PLUGINS)
    r = cli("fire", "pre_tool", "--data", DANGER)
    assert r.code == 3 and r.json == {"block": True, "reason": "alpha says no", "message": "alpha says no"}
    assert cli("fire", "pre_tool", input=DANGER).json == r.json
    payload = write(tmp_path / "p.json", DANGER)
    assert cli("fire", "pre_tool", "-d", f"@{payload}").json == r.json
    assert cli("fire", "pre_tool", "--data", SAFE).json == {}
    assert cli("fire", "turn_start").json is None  # an observe hook has no result
    full = cli("fire", "pre_tool", "--data", DANGER, "--outcome").json
    assert full["decision"] == "blocked" and full["answered"] == ["alpha"] and full["errors"] == []


def test_fire_in_a_dialect_prints_the_native_result(cli, site: FakeSite, home: Path) -> None:
    site.add("alpha", plain("alpha"))
    write(home / "settings.toml", NO_REPO_PLUGINS)
    pi = cli("fire", "tool_call", "--dialect", "pi", "--data", '{"toolName": "bash", "input": {"command": "danger"}}')
    assert pi.code == 3 and pi.json == {"block": True, "reason": "alpha says no"}
    chibi = cli("fire", "pre_tool", "--dialect", "chibi", "--data", DANGER)
    assert chibi.code == 3 and chibi.json["block"] is True


@pytest.mark.parametrize(("data", "needle"), [
    ("{nope", "--data is not valid JSON: Expecting property name"),
    ("[1, 2]", "--data must be a JSON object, not list"),
    ("{}", "missing required field 'tool_name'"),
])
def test_fire_bad_payloads(cli, data: str, needle: str) -> None:
    assert needle in one_line_error(cli("fire", "pre_tool", "--data", data))


def test_fire_unknown_hook_suggests(cli) -> None:
    assert "pre_tool" in one_line_error(cli("fire", "pre_tol", "--data", "{}"))


def test_fire_keeps_stdout_json_and_reports_problems_on_stderr(cli, site: FakeSite, home: Path) -> None:
    site.add("raiser", """
        from agent_hooks_core import hookimpl

        @hookimpl
        def turn_start(event):
            raise ValueError("oops")
    """)
    site.add("broken", "import nope_nope\n")
    r = cli("fire", "turn_start")
    assert r.code == 0 and r.json is None
    assert "plugin 'broken' not loaded (cannot be imported)" in r.err
    assert "agenthooks: warning: raiser: turn_start: ValueError: oops" in r.err


def test_global_options_work_before_and_after_the_command(cli, home: Path, tmp_path: Path) -> None:
    hook = write(tmp_path / "mine.py", plain("mine"))
    settings = write(tmp_path / "s.toml", NO_REPO_PLUGINS)
    for args in (["--hook", hook, "--settings", settings, "fire", "pre_tool", "--data", DANGER],
                 ["fire", "pre_tool", f"--hook={hook}", "--data", DANGER, "--settings", settings]):
        r = cli(*args)
        assert r.code == 3 and r.json["reason"] == "mine says no", r.err
    assert "no such file" in one_line_error(cli("--hook", tmp_path / "missing.py", "fire", "turn_start"))
    assert "not found" in one_line_error(cli("--settings", tmp_path / "missing.toml", "plugins", "list"))


def test_trace_shows_each_hook_call_on_stderr(cli, tmp_path: Path) -> None:
    hook = write(tmp_path / "mine.py", plain("mine"))
    r = cli("--trace", "--hook", hook, "fire", "pre_tool", "--data", DANGER)
    assert r.code == 3 and r.json["block"] is True
    assert "agenthooks: trace: load mine (file)" in r.err
    assert "agenthooks: trace: pre_tool" in r.err and "decision=blocked" in r.err


# -- hooks --------------------------------------------------------------------------------------


def test_hooks_catalogue(cli) -> None:
    from agent_hooks_core.hookspecs.catalogue import HOOKS

    listing = cli("hooks", "--json")
    assert listing.code == 0 and [h["name"] for h in listing.json] == [h.name for h in HOOKS]
    pre_tool = next(h for h in listing.json if h["name"] == "pre_tool")
    assert pre_tool["aliases"]["pi-ext"] == ["tool_call"] and pre_tool["fail_closed"] is True
    text = cli("hooks").out
    assert "pre_tool" in text and "include-intersection" in text and "omp:tool_call" in text


def test_one_hook_by_canonical_or_seed_name(cli) -> None:
    detail = cli("hooks", "tool_call", "--json").json
    assert detail["name"] == "pre_tool"
    assert {"name": "tool_name", "type": "str", "required": True, "description": "the tool about to run"} \
        in detail["payload"]
    assert "block" in [f["name"] for f in detail["result"]]
    assert cli("hooks", "turn_start", "--json").json["result"] is None
    assert cli("hooks", "pre_tool", "--system", "chibi", "--json").json["name"] == "pre_tool"
    text = cli("hooks", "pre_tool").out
    assert "tool_name" in text and "reason" in text and "fail-closed" in text


def test_hook_schema_is_json_schema_from_the_models(cli) -> None:
    r = cli("hooks", "pre_tool", "--schema")
    assert r.code == 0
    assert r.json["event"]["required"] == ["tool_name"] and r.json["event"]["title"] == "PreToolEvent"
    assert r.json["result"]["additionalProperties"] is False
    assert cli("hooks", "turn_start", "--schema").json["result"] is None


# -- doctor -------------------------------------------------------------------------------------


def test_doctor_names_the_culprits(cli, site: FakeSite, home: Path) -> None:
    site.add("fine", plain("fine"))
    site.add("broken", "import nope_nope\n")
    site.add("required", """
        from pydantic import BaseModel
        from agent_hooks_core import hookimpl

        class Config(BaseModel):
            token: str

        @hookimpl
        def plugin_config_model():
            return Config

        @hookimpl
        def turn_start(event):
            pass
    """)
    write(home / "settings.toml", 'disabled = ["ghost"]\nbogus = 1\n')
    r = cli("doctor")
    assert r.code == 1
    assert "broken" in r.out and "nope_nope" in r.out
    assert "plugin 'required' needs settings" in r.out and "token: field required" in r.out
    assert "'ghost', which matches no plugin" in r.out and "unknown key 'bogus'" in r.out
    report = cli("doctor", "--json").json
    culprits = {f["plugin"] for f in report["findings"] if f["level"] == "error"}
    assert culprits == {"broken", "required", None}  # None: "gating hooks deny every call"
    assert report["versions"]["agent-hooks-core"] == "0.1.0"


def test_doctor_is_happy_when_all_is_well_and_reports_a_corrupt_file(cli, home: Path) -> None:
    r = cli("doctor")
    assert r.code == 0 and "0 error(s)" in r.out
    settings = write(home / "settings.toml", "disabled = [\n")
    r = cli("doctor")
    assert r.code == 1 and f"{settings}:" in r.out.replace("\n", "") and "invalid TOML" in r.out


# -- trust --------------------------------------------------------------------------------------


def test_trust_command(cli, home: Path, project: Path) -> None:
    write(home / "settings.toml", NO_REPO_PLUGINS)
    write(project / ".agent-hooks/hooks/proj.py", plain("proj"))
    listed = rows(cli("plugins", "list", "--json"))
    assert listed["proj"]["status"] == "untrusted" and "agenthooks trust" in listed["proj"]["reason"]
    assert "not trusted" in cli("doctor").out
    assert "untrusted" in cli("trust", "--show").out
    r = cli("trust")
    assert r.code == 0 and f"Trusted {project}" in r.out and "proj.py" in r.out
    assert rows(cli("plugins", "list", "--json"))["proj"]["status"] == "loaded"
    shown = cli("trust", "--show").out
    assert "status:  trusted" in shown and any(line.split()[:2] == ["trusted", "hook-file"] for line in shown.splitlines())
    assert str(project) in cli("trust", "--list").out
    assert "Revoked" in cli("trust", "--revoke").out
    assert rows(cli("plugins", "list", "--json"))["proj"]["status"] == "untrusted"


def test_trust_outside_a_project(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert "no project" in one_line_error(cli("trust", "--revoke"))
    r = cli("trust")  # outside a project: the user hook files only
    assert r.code == 0 and "user hook files" in r.out


# -- new-plugin and plugin commands ---------------------------------------------------------------


def test_new_plugin_creates_a_project_whose_tests_pass(cli, tmp_path: Path, home: Path) -> None:
    r = cli("new-plugin", "no-rm", "--dir", tmp_path, "--description", "Stops rm")
    assert r.code == 0, r.err
    root = tmp_path / "agent-hooks-no-rm"
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) == [
        ".gitignore", "README.md", "agent_hooks_no_rm/__init__.py", "agent_hooks_no_rm/py.typed",
        "pyproject.toml", "tests/test_agent_hooks_no_rm.py"]
    pyproject = (root / "pyproject.toml").read_text()
    assert 'name = "agent-hooks-no-rm"' in pyproject and 'no-rm = "agent_hooks_no_rm"' in pyproject
    assert 'description = "Stops rm"' in pyproject and "{{" not in pyproject
    env = environ.without() | {"AGENT_HOOKS_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "2 passed" in proc.stdout, proc.stdout + proc.stderr
    settings = write(tmp_path / "s.toml", NO_REPO_PLUGINS + '[plugins.agent_hooks_no_rm]\nblock = ["mkfs"]\n')
    r = cli("--hook", root / "agent_hooks_no_rm", "fire", "pre_tool", "--data",
            '{"tool_name": "bash", "arguments": {"command": "mkfs /dev/sda"}}', "--settings", settings)
    reason = "no-rm: 'mkfs' is blocked by [plugins.no-rm] block"
    assert r.json == {"block": True, "reason": reason, "message": reason}, r.err


def test_new_plugin_refuses_bad_names_and_existing_directories(cli, tmp_path: Path) -> None:
    assert "invalid plugin name" in one_line_error(cli("new-plugin", "Bad Name!", "--dir", tmp_path))
    assert cli("new-plugin", "agent-hooks-ok", "--dir", tmp_path).code == 0
    assert (tmp_path / "agent-hooks-ok/agent_hooks_ok/__init__.py").is_file()
    assert "not an empty directory" in one_line_error(cli("new-plugin", "ok", "--dir", tmp_path))


def test_plugins_add_commands(cli, site: FakeSite) -> None:
    site.add("greeter", """
        from agent_hooks_core import hookimpl

        @hookimpl
        def register_commands(cli):
            @cli.command("hello")
            def hello(name: str = "world"):
                \"\"\"Say hello.\"\"\"
                print(f"hello {name}")
    """)
    site.add("clumsy", """
        from agent_hooks_core import hookimpl

        @hookimpl
        def register_commands(cli):
            raise RuntimeError("no commands today")
    """)
    r = cli("hello", "--name", "agents")
    assert r.code == 0 and r.out == "hello agents\n"
    assert "plugin 'clumsy': register_commands failed: RuntimeError: no commands today" in r.err
    assert "hello" in cli("--help").out
