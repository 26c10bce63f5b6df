"""The control plane: the protected set is derived from the runtime's configuration, and every
spelling of a path into it is recognised."""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from pathlib import Path

import pytest
from agent_hooks_core import controlplane
from agent_hooks_core.bridges import registry
from agent_hooks_core.controlplane import covering, our_programs, protected_paths, weakening_subcommand


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A user home, an agent-hooks home and a project, all under tmp_path."""
    home = tmp_path / "home"
    ah = tmp_path / "ah-home"
    project = tmp_path / "project"
    for d in (home, ah, project / ".agent-hooks", project / "src"):
        d.mkdir(parents=True)
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(ah))
    monkeypatch.setenv("HOME", str(home))
    for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
                "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    controlplane.clear_cache()
    return {"home": home, "ah": ah, "project": project, "tmp": tmp_path}


def kind_of(path: str | Path, cwd: Path, **kw: object) -> str | None:
    hit = covering(str(path), cwd=str(cwd), **kw)  # type: ignore[arg-type]
    return hit.kind if hit else None


@pytest.mark.parametrize(("rel", "kind"), [
    ("settings.toml", "settings"),
    ("trust.json", "trust"),
    ("hooks/zz.py", "hooks"),
    ("hooks", "hooks"),
    ("serve-token", "run"),
    ("anything-else", "settings"),
    ("cache/entry-points-0.json", "settings"),
])
def test_user_directory_is_protected(world: dict[str, Path], rel: str, kind: str) -> None:
    assert kind_of(world["ah"] / rel, world["project"]) == kind


def test_the_run_directory_is_protected_wherever_it_is(world: dict[str, Path]) -> None:
    """Under $AGENT_HOOKS_HOME/run, or a private /tmp directory when a socket path there would be too long."""
    from agent_hooks_core.serve import paths

    assert kind_of(paths.runtime_dir() / "serve.sock", world["project"]) == "run"


def test_launchers_and_audit_data_are_protected(world: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The launcher host configurations run and the audit records live outside the settings directory."""
    import platformdirs

    data = world["tmp"] / "xdg-data"
    state = world["tmp"] / "xdg-state"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    controlplane.clear_cache()
    assert kind_of(world["ah"] / "bin" / "agenthooks-x", world["project"]) == "data"
    assert kind_of(Path(platformdirs.user_data_dir("agent-hooks", appauthor=False)) / "audit.db",
                   world["project"]) == "data"
    assert kind_of(Path(platformdirs.user_state_dir("agent-hooks", appauthor=False)) / "audit-lost" / "x",
                   world["project"]) == "data"
    assert kind_of(data / "other-tool" / "x", world["project"]) is None


@pytest.mark.parametrize("spelling", [
    "../ah-home/settings.toml",
    "src/../../ah-home/./settings.toml",
    "{ah}//settings.toml",
    "{ah}/hooks/../settings.toml",
])
def test_relative_and_dotted_spellings(world: dict[str, Path], spelling: str) -> None:
    path = spelling.format(ah=world["ah"])
    assert kind_of(path, world["project"]) == "settings"


def test_symlinks_into_and_at_protected_paths(world: dict[str, Path]) -> None:
    project = world["project"]
    (project / "link").symlink_to(world["ah"])
    assert kind_of("link/hooks/zz.py", project) == "hooks"
    (project / "cfg").symlink_to(world["ah"] / "settings.toml")  # the target need not exist
    assert kind_of("cfg", project) == "settings"
    # the settings file itself is a symlink to a dotfiles checkout: both names are protected
    dotfiles = world["tmp"] / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "agent-hooks.toml").write_text("")
    elsewhere = world["tmp"] / "ah2"
    elsewhere.mkdir()
    (elsewhere / "settings.toml").symlink_to(dotfiles / "agent-hooks.toml")
    env = {**os.environ, "AGENT_HOOKS_HOME": str(elsewhere)}
    assert covering(str(elsewhere / "settings.toml"), cwd=str(project), env=env) is not None
    assert covering(str(dotfiles / "agent-hooks.toml"), cwd=str(project), env=env) is not None


def test_project_settings_and_hooks(world: dict[str, Path]) -> None:
    project = world["project"]
    sub = project / "src"
    assert kind_of(project / ".agent-hooks" / "settings.toml", sub) == "settings"
    assert kind_of("../.agent-hooks/hooks/x.py", sub) == "hooks"
    assert kind_of("main.py", sub) is None
    assert kind_of(project / "README.md", sub) is None


def test_a_project_that_has_none_yet_cannot_create_one(world: dict[str, Path]) -> None:
    bare = world["tmp"] / "bare"
    bare.mkdir()
    assert kind_of(".agent-hooks/settings.toml", bare) == "settings"
    assert kind_of(".agent-hooks/hooks/evil.py", bare) == "hooks"


def test_user_settings_name_more_paths_and_a_change_is_seen(world: dict[str, Path]) -> None:
    project = world["project"]
    org = world["tmp"] / "etc" / "org.toml"
    hook = world["tmp"] / "myhooks" / "audit_extra.py"
    assert kind_of(org, project) is None
    (world["ah"] / "settings.toml").write_text(
        f'organisation = {{ path = "{org}" }}\nhooks = ["{hook}"]\nchibi_plugins = "chibi"\n')
    assert kind_of(org, project) == "organisation"
    assert kind_of(hook, project) == "hooks"
    assert covering(str(world["ah"] / "chibi" / "p"), cwd=str(project)) is not None


def test_environment_is_protected() -> None:
    cwd = os.getcwd()
    purelib = sysconfig.get_path("purelib")
    for name in ("evil.pth", "sitecustomize.py", "agent_hooks_guard/plugin.py"):
        hit = covering(os.path.join(purelib, name), cwd=cwd)
        assert hit is not None and hit.kind == "environment", name
    hit = covering(os.path.join(site.getusersitepackages(), "usercustomize.py"), cwd=cwd)
    assert hit is not None and hit.kind == "environment"
    import agent_hooks_core
    import agent_hooks_guard

    for module in (agent_hooks_guard, agent_hooks_core):  # editable installs live outside site-packages
        hit = covering(str(module.__file__), cwd=cwd)
        assert hit is not None and hit.kind == "environment", module
    if sys.prefix != sys.base_prefix:
        assert covering(os.path.join(sys.prefix, "pyvenv.cfg"), cwd=cwd) is not None


def test_our_programs_and_they_are_protected() -> None:
    programs = our_programs()
    assert os.path.abspath(sys.executable) in programs
    scripts = sysconfig.get_path("scripts")
    script = os.path.join(scripts, "agenthooks")
    if os.path.exists(script):
        assert script in programs
    assert all(os.path.isabs(p) for p in programs)
    for program in programs:
        assert covering(program, cwd=os.getcwd()) is not None, program


def test_every_installer_names_its_targets(world: dict[str, Path]) -> None:
    project = world["project"]
    env = {**os.environ, "CODEX_HOME": str(world["tmp"] / "codex"),
           "CLAUDE_CONFIG_DIR": str(world["tmp"] / "claude")}
    for record in registry.hosts():
        host = record.name
        targets = record.load_installer().config_targets(str(project), env)
        assert targets, host
        for target in targets:
            hit = covering(str(target), cwd=str(project), env=env)
            assert hit is not None and hit.kind == "host-config", (host, target)
    found = protected_paths(cwd=str(project), env=env)
    paths = {p.path for p in found if p.kind == "host-config"}
    assert os.path.realpath(world["tmp"] / "codex" / "hooks.json") in paths
    assert os.path.realpath(world["tmp"] / "claude" / "settings.json") in paths
    assert os.path.realpath(project / ".claude" / "settings.local.json") in paths
    assert os.path.realpath(world["home"] / ".gemini" / "settings.json") in paths


def test_recursive_changes_reach_what_is_inside(world: dict[str, Path]) -> None:
    project = world["project"]
    assert kind_of(world["tmp"], project) is None
    assert kind_of(world["tmp"], project, recursive=True) is not None
    assert kind_of(project / "src", project, recursive=True) is None


def test_paths_are_realpaths_and_kinds_known(world: dict[str, Path]) -> None:
    for item in protected_paths(cwd=str(world["project"])):
        assert item.path == os.path.realpath(item.path)
        assert item.kind in controlplane.KINDS
        assert item.why


@pytest.mark.parametrize(("args", "weakens"), [
    (["plugins", "disable", "guard"], True),
    (["plugins", "uninstall", "agent-hooks-guard"], True),
    (["plugins", "install", "evil"], True),
    (["plugins", "enable", "x"], True),
    (["plugins", "list"], False),
    (["plugins", "info", "guard"], False),
    (["--settings", "/tmp/s.toml", "plugins", "disable", "guard"], True),
    (["--settings=/tmp/s.toml", "plugins", "disable", "guard"], True),
    (["-p", "no:audit", "plugins", "disable", "guard"], True),
    (["--trace", "plugins", "disable", "guard"], True),
    (["plugins", "--json", "disable", "guard"], True),
    (["trust"], True),
    (["trust", "/some/project"], True),
    (["trust", "--revoke"], True),
    (["trust", "--show"], False),
    (["trust", "--list", "--json"], False),
    (["uninstall", "claude-code"], True),
    (["uninstall", "codex", "--dry-run"], False),
    (["install", "claude-code", "--transport", "command"], True),
    (["install", "claude-code", "--dry-run"], False),
    (["audit", "prune"], True),
    (["audit", "stats"], False),
    (["guard", "packs"], False),
    (["guard", "packs", "disable", "rm"], True),
    (["guard", "explain", "rm -rf /"], False),
    (["fire", "pre_tool"], False),
    (["plugins", "disable", "guard", "--help"], False),
    ([], False),
    (["--version"], False),
])
def test_weakening_subcommands(args: list[str], weakens: bool) -> None:
    reason = weakening_subcommand(args)
    assert (reason is not None) is weakens, reason
    if reason:
        assert "agenthooks" in reason


def test_covering_is_cached(world: dict[str, Path]) -> None:
    project = str(world["project"])
    first = protected_paths(cwd=project)
    assert protected_paths(cwd=project) is first


def test_unexpected_startup_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site_dir = tmp_path / "site-packages"
    info = site_dir / "demo-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    (info / "RECORD").write_text("demo.pth,,\ndemo-1.0.dist-info/METADATA,,\n")
    owned = site_dir / "demo.pth"
    owned.write_text("")
    old = site_dir / "old.pth"
    old.write_text("")
    os.utime(old, (1, 1))  # older than the install: how a distro or an old tool left it
    monkeypatch.setattr(sysconfig, "get_path", lambda name, *a, **k: str(site_dir))
    monkeypatch.setattr(site, "getsitepackages", lambda: [str(site_dir)])
    monkeypatch.setattr(site, "ENABLE_USER_SITE", False)
    assert controlplane.unexpected_startup_files() == []
    os.utime(info, (2, 2))
    for name in ("zz-evil.pth", "usercustomize.py"):
        (site_dir / name).write_text("import os\n")
    found = controlplane.unexpected_startup_files()
    assert found == [str(site_dir / "usercustomize.py"), str(site_dir / "zz-evil.pth")]


def test_project_scope_host_configs_of_the_project_above_the_cwd(world: dict[str, Path]) -> None:
    project = world["project"]
    assert kind_of(project / ".claude" / "settings.json", project / "src") == "host-config"
    assert kind_of(project / "src" / ".codex" / "hooks.json", project / "src") == "host-config"


# -- the set kept on disk --------------------------------------------------------------------------


def _fresh_process_lookup(project: Path) -> dict[str, object]:
    """The first look-up in a new process: which installer modules it imported, whether it built."""
    import json
    import subprocess

    code = ("import json, sys\n"
            "from agent_hooks_core import controlplane as c\n"
            "built = []\n"
            "real = c._build\n"
            "c._build = lambda cwd, env: built.append(cwd) or real(cwd, env)\n"
            f"hit = c.covering('.agent-hooks/settings.toml', cwd={str(project)!r})\n"
            "mods = [m for m in sys.modules if m.startswith('agent_hooks_core.bridges.') and 'install' in m]\n"
            "print(json.dumps({'built': bool(built), 'installers': mods, 'kind': hit and hit.kind}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    data: dict[str, object] = json.loads(out.stdout)
    return data


def test_a_new_process_reads_the_stored_set_without_importing_the_installers(world: dict[str, Path]) -> None:
    first = _fresh_process_lookup(world["project"])
    assert first["built"] is True and first["installers"], first  # the first one builds (imports installers)
    again = _fresh_process_lookup(world["project"])
    assert again == {"built": False, "installers": [], "kind": "settings"}, again


def test_the_stored_set_is_the_built_one(world: dict[str, Path]) -> None:
    stored = protected_paths(cwd=str(world["project"]))
    assert set(stored) == set(controlplane._build(str(world["project"]), os.environ))
    controlplane._CACHE.clear()  # the process forgets; the disk keeps it
    assert set(protected_paths(cwd=str(world["project"]))) == set(stored)


def test_what_the_build_reads_is_a_new_stored_set(world: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A change of the user settings (an organisation policy named), of a variable the set is
    derived from or of the working directory is never answered from the stored set."""
    project = world["project"]
    org = world["tmp"] / "org.toml"
    assert covering(str(org), cwd=str(project)) is None
    (world["ah"] / "settings.toml").write_text(f'[organisation]\npath = "{org}"\n')
    controlplane._CACHE.clear()
    assert kind_of(org, project) == "organisation"
    codex_home = world["tmp"] / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    controlplane._CACHE.clear()
    assert kind_of(codex_home / "hooks.json", project) == "host-config"
    monkeypatch.delenv("CODEX_HOME")
    other = world["tmp"] / "other"
    other.mkdir()
    controlplane._CACHE.clear()
    assert kind_of(other / ".codex" / "hooks.json", other) == "host-config"


@pytest.mark.parametrize("content", ["not json", '{"version": 1, "entries": {"k": [[1, 2, 3, 4]]}}', "[]",
                                     '{"version": 1, "entries": []}'])
def test_a_damaged_stored_set_is_built_again(world: dict[str, Path], content: str) -> None:
    protected_paths(cwd=str(world["project"]))
    path = Path(controlplane._stored_path(os.environ))
    assert path.is_file()
    key = controlplane._stored_key(str(world["project"]), os.environ)
    path.write_text(content.replace('"k"', f'"{key}"'))
    controlplane._CACHE.clear()
    assert kind_of(world["ah"] / "settings.toml", world["project"]) == "settings"
