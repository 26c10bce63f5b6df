"""Discovery: entry points, local hook files, statuses, load order, config, the scan cache."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from agent_hooks_core import Runtime, discovery
from agent_hooks_core.discovery import load_runtime

from tests.support.trusting import trust_user_hooks

from .conftest import FakeSite, plain, write

GOOD = {"tool_name": "bash", "arguments": {"command": "danger"}}


def mine(rt: Runtime, site: FakeSite) -> list[str]:
    """The runtime's plugins that this test installed or wrote (not the repo's own audit/guard/otel)."""
    return [n for n in rt.plugins if n not in ("audit", "guard", "otel")]


def test_entry_point_plugin_loads_with_its_metadata(site: FakeSite) -> None:
    module = site.add("alpha", plain("alpha"), version="2.3")
    rt = load_runtime()
    info = rt.plugin_info["alpha"]
    assert (info.status, info.source, info.distribution, info.version) == ("loaded", "entry-point",
                                                                           "agent-hooks-alpha", "2.3")
    assert info.entry_point == module
    assert info.path == str(site.path / f"{module}.py")
    assert info.hooks == ["pre_tool"]
    assert info.order == discovery.effective_order(rt).index("alpha") + 1
    assert rt.fire("pre_tool", GOOD).decision == "blocked"


@pytest.mark.parametrize("how", ["alpha", "agent-hooks-alpha", "Agent_Hooks_Alpha"])
def test_disabled_plugin_is_never_imported(site: FakeSite, home: Path, how: str) -> None:
    site.add("alpha", "raise RuntimeError('imported!')\n")
    site.add("beta", plain("beta"))
    write(home / "settings.toml", f'disabled = ["{how}"]\n')
    rt = load_runtime()
    assert not site.imported("alpha")
    assert rt.plugin_info["alpha"].status == "disabled"
    assert str(home / "settings.toml") in (rt.plugin_info["alpha"].reason or "")
    assert "beta" in rt.plugins and "alpha" not in rt.plugins
    assert not [e for e in rt.load_errors if e.plugin == "alpha"]


def test_broken_plugins_are_recorded_and_the_rest_load(site: FakeSite) -> None:
    site.add("imports", "import no_such_module_xyz\n")
    site.add("unknown-hook", """
        from agent_hooks_core import hookimpl

        @hookimpl
        def pre_tooll(event):
            pass
    """)
    site.add("bad-signature", """
        from agent_hooks_core import hookimpl

        @hookimpl
        def pre_tool(event, ctx, extra):
            pass
    """)
    site.add("crashes", "raise SystemExit(3)\n")
    site.add("good", plain("good"))
    rt = load_runtime()
    errors = {e.plugin: e for e in rt.load_errors}
    assert set(errors) >= {"imports", "unknown-hook", "bad-signature", "crashes"}
    assert all(e.kind == "load" for e in errors.values())
    assert errors["imports"].hook == "import"
    assert "ModuleNotFoundError" in errors["imports"].message and "no_such_module_xyz" in errors["imports"].message
    assert f"{site.module('imports')}.py:1" in errors["imports"].message  # where it failed
    assert errors["unknown-hook"].hook == "register" and "pre_tooll" in errors["unknown-hook"].message
    assert errors["bad-signature"].hook == "register" and "extra" in errors["bad-signature"].message
    assert errors["crashes"].hook == "import" and "SystemExit" in errors["crashes"].message
    for name in ("imports", "unknown-hook", "bad-signature", "crashes"):
        assert rt.plugin_info[name].status == "failed"
        assert rt.plugin_info[name].reason == errors[name].message
        assert name not in rt.plugins
    assert "good" in rt.plugins
    # a broken plugin may have been the one that says no: gating hooks deny, naming it
    out = rt.fire("pre_tool", GOOD)
    assert out.result.block and out.stopped_by == "required-gate"
    assert all(repr(name) in out.result.reason for name in ("imports", "bad-signature", "crashes"))
    assert "unknown-hook" not in out.result.reason  # it implements no gating hook


CONFIGURED = """
    from pydantic import BaseModel
    from agent_hooks_core import hookimpl

    class Config(BaseModel, extra="forbid"):
        mode: str = "block"
        limit: int = 3

    @hookimpl
    def plugin_config_model():
        return Config

    @hookimpl
    def pre_tool(event, ctx):
        return {"block": True, "reason": f"{type(ctx.config).__name__}:{ctx.config!r}"}
"""


def test_config_section_is_validated_by_the_plugins_model(site: FakeSite, home: Path) -> None:
    site.add("cfg", CONFIGURED)
    write(home / "settings.toml", '[plugins.cfg]\nmode = "observe"\n')
    rt = load_runtime()
    config = rt.context("cfg").config
    assert type(config).__name__ == "Config" and (config.mode, config.limit) == ("observe", 3)


def test_invalid_config_section_names_plugin_and_field_and_skips_only_that_plugin(site: FakeSite,
                                                                                   home: Path) -> None:
    site.add("cfg", CONFIGURED)
    site.add("other", plain("other"))
    write(home / "settings.toml", '[plugins.cfg]\nlimit = "many"\n')
    rt = load_runtime()
    err = next(e for e in rt.load_errors if e.plugin == "cfg")
    assert err.hook == "config" and err.kind == "load"
    assert "[plugins.cfg]" in err.message and "limit" in err.message and "'many'" in err.message
    assert str(home / "settings.toml") in err.message
    assert "cfg" not in rt.plugins and "other" in rt.plugins
    assert rt.plugin_info["cfg"].status == "failed"


def test_no_section_means_an_empty_config_and_no_validation(site: FakeSite) -> None:
    site.add("cfg", CONFIGURED)
    rt = load_runtime()
    assert rt.context("cfg").config == {}


def test_config_section_by_distribution_name_and_project_over_user(site: FakeSite, home: Path,
                                                                   project: Path) -> None:
    site.add("cfg", CONFIGURED)
    write(home / "settings.toml", '[plugins.agent-hooks-cfg]\nmode = "observe"\nlimit = 5\n')
    write(project / ".agent-hooks/settings.toml", "[plugins.cfg]\nlimit = 9\n")
    from agent_hooks_core import trust
    from agent_hooks_core.settings import load_settings

    trust.trust(load_settings())  # a project's plugin sections apply once trusted
    config = load_runtime().context("cfg").config
    assert (config.mode, config.limit) == ("observe", 9)


def test_agent_hooks_plugins_three_states(site: FakeSite, monkeypatch: pytest.MonkeyPatch) -> None:
    site.add("alpha", plain("alpha"))
    site.add("beta", "raise RuntimeError('must not be imported')\n")
    monkeypatch.delenv("AGENT_HOOKS_PLUGINS", raising=False)
    assert {"alpha", "guard"} <= set(load_runtime().plugins)

    monkeypatch.setenv("AGENT_HOOKS_PLUGINS", "")
    rt = load_runtime()
    assert rt.plugins == [] and rt.plugin_info["alpha"].status == "disabled"
    assert "AGENT_HOOKS_PLUGINS" in (rt.plugin_info["alpha"].reason or "")

    monkeypatch.setenv("AGENT_HOOKS_PLUGINS", "agent-hooks-alpha, nosuch")
    rt = load_runtime()
    # a selected plugin that is not there: the gate denies gating hooks
    assert rt.plugins == ["alpha", "required-gate"] and not site.imported("beta")
    assert [(e.plugin, e.hook) for e in rt.load_errors] == [("nosuch", "select")]


def test_settings_disable_still_applies_to_plugins_named_in_the_environment(
        site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site.add("alpha", plain("alpha"))
    write(home / "settings.toml", 'disabled = ["alpha"]\n')
    monkeypatch.setenv("AGENT_HOOKS_PLUGINS", "alpha")
    assert load_runtime().plugins == []


def test_autoload_off_keeps_entry_points_out_but_loads_hook_files(
        site: FakeSite, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site.add("alpha", "raise RuntimeError('must not be imported')\n")
    write(home / "hooks/mine.py", plain("mine"))
    extra = write(tmp_path / "extra.py", plain("extra"))
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    trust_user_hooks()
    rt = load_runtime(hook_paths=[extra])
    assert rt.plugins == ["mine", "extra"]
    assert "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD" in (rt.plugin_info["alpha"].reason or "")
    # autoload=False as an option does the same; autoload=True overrides the environment
    assert "alpha" not in load_runtime(autoload=False).plugins
    site_rt = load_runtime(autoload=True)
    assert site_rt.plugin_info["alpha"].status == "failed"


def test_load_order_project_user_cli_entry_points_then_explicit_order(
        site: FakeSite, home: Path, project: Path, tmp_path: Path) -> None:
    from agent_hooks_core import trust
    from agent_hooks_core.settings import load_settings

    site.add("zeta", plain("zeta"))
    site.add("alpha", plain("alpha"))
    write(project / ".agent-hooks/hooks/p2.py", plain("p2"))
    write(project / ".agent-hooks/hooks/p1.py", plain("p1"))
    write(home / "hooks/u1.py", plain("u1"))
    listed = write(tmp_path / "listed/u2.py", plain("u2"))
    write(home / "settings.toml", f'hooks = ["{listed}"]\ndisabled = ["guard", "audit", "otel"]\n')
    cli_file = write(tmp_path / "c1.py", plain("c1"))
    trust.trust(load_settings(project))
    trust_user_hooks()
    rt = load_runtime(hook_paths=[cli_file])
    assert rt.plugins == ["p1", "p2", "u1", "u2", "c1", "alpha", "zeta"]
    assert [rt.plugin_info[n].scope for n in rt.plugins[:5]] == ["project", "project", "user", "user", "cli"]
    assert rt.fire("pre_tool", GOOD).answered == ["p1"]

    write(project / ".agent-hooks/settings.toml", 'order = ["zeta", "agent-hooks-alpha"]\n')
    rt = load_runtime(hook_paths=[cli_file])
    assert rt.fire("pre_tool", GOOD).answered == ["zeta"]
    assert discovery.effective_order(rt)[:3] == ["zeta", "alpha", "p1"]
    assert (rt.plugin_info["zeta"].order, rt.plugin_info["alpha"].order, rt.plugin_info["p1"].order) == (1, 2, 3)


def test_hook_paths_in_settings_expand_home_and_resolve_relative_to_their_base(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_home = tmp_path / "fakehome"
    monkeypatch.setenv("HOME", str(fake_home))
    write(fake_home / "hooks-elsewhere/tilde.py", plain("tilde"))
    write(home / "rel/relative.py", plain("relative"))
    write(home / "dir/d1.py", plain("d1"))
    write(home / "dir/d2.py", plain("d2"))
    write(home / "settings.toml", 'hooks = ["~/hooks-elsewhere/tilde.py", "rel/relative.py", "dir", "gone.py"]\n'
                                  'disabled = ["guard", "audit", "otel"]\n')
    trust_user_hooks()
    rt = load_runtime()
    assert rt.plugins == ["tilde", "relative", "d1", "d2", "required-gate"]  # "gone" may have been a gate
    assert rt.plugin_info["gone"].status == "failed"
    assert any(e.plugin == "gone" and "no such file" in e.message for e in rt.load_errors)


def test_a_file_met_twice_loads_once_and_names_never_collide(site: FakeSite, home: Path,
                                                             tmp_path: Path) -> None:
    site.add("dup", plain("ep"))
    hook = write(home / "hooks/dup.py", plain("file"))
    other = write(tmp_path / "x/dup.py", plain("file2"))
    rt = load_runtime(hook_paths=[hook, other])
    names = mine(rt, site)
    assert names.count("dup") == 1 and len(names) == 3
    assert rt.plugin_info["dup"].source == "entry-point"  # the entry-point name keeps its name
    files = [n for n in names if rt.plugin_info[n].source == "file"]
    assert files == ["dup-2", "dup-3"] and "taken" in (rt.plugin_info["dup-2"].reason or "")


def test_two_distributions_with_one_entry_point_name(site: FakeSite) -> None:
    site.add("same", plain("first"), dist="agent-hooks-aaa")
    module = site.module("same")
    info = site.path / "agent_hooks_zzz-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: agent-hooks-zzz\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[agent_hooks]\nsame = {module}\n")
    rt = load_runtime()
    assert rt.plugin_info["same"].distribution == "agent-hooks-aaa"
    err = next(e for e in rt.load_errors if e.hook == "entry-point")
    assert "agent-hooks-zzz" in err.message and "agent-hooks-aaa" in err.message


def test_the_entry_point_scan_is_cached_until_installed_distributions_change(
        site: FakeSite, monkeypatch: pytest.MonkeyPatch) -> None:
    site.add("alpha", plain("alpha"))
    past = time.time() - 60
    os.utime(site.path, (past, past))
    calls = []
    real = discovery.entrypoints._scan_metadata

    def counting() -> list[discovery.EntryPointRecord]:
        calls.append(1)
        return real()

    monkeypatch.setattr(discovery.entrypoints, "_scan_metadata", counting)
    first = discovery.scan_entry_points()
    assert len(calls) == 1 and any(r.name == "alpha" for r in first)
    monkeypatch.setattr(discovery.entrypoints, "_MEMO", None)  # a new process: only the file cache is left
    assert discovery.scan_entry_points() == first and len(calls) == 1
    assert discovery.entrypoints._cache_file().is_file()

    site.add("beta", plain("beta"))  # an install changes the directory's mtime
    os.utime(site.path, (past + 1, past + 1))
    again = discovery.scan_entry_points()
    assert len(calls) == 2 and any(r.name == "beta" for r in again)


def test_a_freshly_modified_directory_is_not_cached(site: FakeSite, monkeypatch: pytest.MonkeyPatch) -> None:
    site.add("alpha", plain("alpha"))  # mtime: now
    calls = []
    real = discovery.entrypoints._scan_metadata

    def counting() -> list[discovery.EntryPointRecord]:
        calls.append(1)
        return real()

    monkeypatch.setattr(discovery.entrypoints, "_scan_metadata", counting)
    discovery.scan_entry_points()
    discovery.scan_entry_points()
    assert len(calls) == 2


def test_a_cache_hit_does_not_import_importlib_metadata(site: FakeSite, tmp_path: Path) -> None:
    import subprocess

    site.add("alpha", plain("alpha"))
    past = time.time() - 60
    os.utime(site.path, (past, past))
    # RACY_SECONDS = 0: the suite itself may have touched a sys.path directory (the repo root, a
    # venv's site-packages) within the racy window, which would rightly refuse to cache
    code = ("import sys; from agent_hooks_core import Runtime, discovery; discovery.entrypoints.RACY_SECONDS = 0; "
            "rt = Runtime.from_settings(); "
            "print('alpha' in rt.plugins, 'importlib.metadata' in sys.modules, 'pydantic' in sys.modules, "
            "'typer' in sys.modules)")
    # no bytecode: the first run's __pycache__ for alpha would change the site directory's mtime
    # (a real change to a sys.path entry, so the second run would rightly rescan)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site.path), *sys.path]), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["True", "False", "False", "False"], out.stderr


def test_trace_shows_loading_and_every_hook_call(site: FakeSite, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    site.add("alpha", plain("alpha"))
    monkeypatch.setenv("AGENT_HOOKS_TRACE", "1")
    rt = load_runtime()
    rt.fire("pre_tool", GOOD)
    err = capsys.readouterr().err
    assert "agenthooks: trace: load alpha (entry-point)" in err
    assert "agenthooks: trace: pre_tool" in err and "decision=blocked" in err and "ms" in err
    assert rt.plugin_info["trace"].source == "builtin"
    assert "trace" not in load_runtime(trace=False).plugins


def test_plugin_output_on_import_goes_to_stderr(site: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    site.add("noisy", "print('hello from import')\n" + textwrap.dedent(plain("noisy")))
    assert "noisy" in load_runtime().plugins
    out, err = capsys.readouterr()
    assert "hello from import" not in out and "hello from import" in err


def test_bridge_aliases_hooks_and_settings_path(tmp_path: Path) -> None:
    hook = write(tmp_path / "h.py", plain("h"))
    settings = write(tmp_path / "s.toml", 'disabled = ["guard", "audit", "otel"]\nhook_timeout = 5\n')
    rt = Runtime.from_settings(cwd=str(tmp_path), hooks=[str(hook)], settings=str(settings), host="claude-code")
    assert rt.plugins == ["h"] and rt.hook_timeout == 5 and rt.host == "claude-code"


def test_settings_timeouts_and_explicit_options(home: Path) -> None:
    write(home / "settings.toml", "hook_timeout = 0\n[timeouts]\npre_tool = 7\nturn_start = 0\n")
    rt = load_runtime()
    assert rt.hook_timeout is None and rt.timeouts == {"pre_tool": 7.0, "turn_start": None}
    rt = load_runtime(hook_timeout=3, timeouts={"turn_start": 1})
    assert rt.hook_timeout == 3 and rt.timeouts == {"pre_tool": 7.0, "turn_start": 1}


def test_chibi_plugin_directory_goes_to_the_chibi_loader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_hooks_core.dialects import chibi_plugins

    seen = []
    monkeypatch.setattr(chibi_plugins, "load_directory", lambda rt, d: seen.append(Path(d)))
    (tmp_path / "chibi").mkdir()
    load_runtime(chibi_plugins=tmp_path / "chibi")
    assert seen == [tmp_path / "chibi"]
    rt = load_runtime(chibi_plugins=tmp_path / "missing")
    assert any("does not exist" in e.message for e in rt.load_errors)


def test_the_current_directory_is_never_scanned_nor_stamped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # python -m puts the cwd (an agent's project) on sys.path: files it writes must not bust the
    # cache, and a *.dist-info there must not install a plugin
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", ["", str(tmp_path)])
    before = discovery.entrypoints._stamps()
    (tmp_path / "notes.txt").write_text("edited by the agent")
    os.utime(tmp_path, (time.time() + 5, time.time() + 5))
    assert discovery.entrypoints._stamps() == before == []
    (tmp_path / "extra-1.0.dist-info").mkdir()
    assert discovery.entrypoints._stamps() == []


def test_disabled_extra_switches_a_plugin_off_for_one_run(site: FakeSite, tmp_path: Path) -> None:
    site.add("alpha", "raise RuntimeError('imported!')\n")
    local = write(tmp_path / "local.py", plain("local"))
    site.add("beta", plain("beta"))
    rt = load_runtime(hook_paths=[local], disabled_extra=["agent-hooks-alpha", "local", "nosuch"])
    assert not site.imported("alpha")
    for name in ("alpha", "local"):
        assert rt.plugin_info[name].status == "disabled"
        assert rt.plugin_info[name].reason == discovery.RUN_DISABLED
    assert "beta" in rt.plugins
    the_plan = discovery.plan_of(rt)
    assert the_plan is not None and any("'nosuch'" in w for w in the_plan.warnings)
    assert "alpha" in load_runtime().plugin_info and load_runtime().plugin_info["alpha"].status == "failed"


def test_trace_shows_skipped_and_disabled_plugins_and_why(site: FakeSite, home: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    site.add("alpha", "raise RuntimeError('imported!')\n")
    site.add("beta", plain("beta"))
    write(home / "settings.toml", 'disabled = ["alpha"]\n')
    load_runtime(trace=True, disabled_extra=["beta"])
    err = capsys.readouterr().err
    assert f"agenthooks: trace: skip alpha (entry-point) disabled: disabled in {home / 'settings.toml'}" in err
    assert f"agenthooks: trace: skip beta (entry-point) disabled: {discovery.RUN_DISABLED}" in err
