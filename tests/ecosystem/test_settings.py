"""Settings: locations, precedence, the environment, errors, comment-keeping atomic edits."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from agent_hooks_core import settings as s
from agent_hooks_core.settings import SettingsError, edit_file, list_add, list_remove, load_settings

from .conftest import write


def test_user_dir_is_agent_hooks_home(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert s.user_dir() == home and s.user_settings_path() == home / "settings.toml"
    assert s.cache_dir() == home / "cache"
    monkeypatch.delenv("AGENT_HOOKS_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert s.user_dir() == tmp_path / "xdg" / "agent-hooks"


def test_project_root_is_found_from_a_subdirectory(project: Path) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert s.find_project_root(sub) == project
    assert s.find_project_root(project.parent) is None


def test_the_user_dir_is_never_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".agent-hooks").mkdir()
    monkeypatch.setenv("AGENT_HOOKS_HOME", str(tmp_path / ".agent-hooks"))
    assert s.find_project_root(tmp_path) is None


def test_precedence_project_over_user(home: Path, project: Path) -> None:
    write(home / "settings.toml", """
        disabled = ["a", "b", "c"]
        order = ["x", "y"]
        hook_timeout = 10
        [timeouts]
        pre_tool = 5
        turn_start = 2
        [plugins.p]
        keep = 1
        nested = { one = 1, two = 2 }
    """)
    write(project / ".agent-hooks/settings.toml", """
        enabled = ["a"]
        disabled = ["d", "c"]
        order = ["y"]
        hook_timeout = 20
        [timeouts]
        pre_tool = 0
        [plugins.p]
        nested = { two = 22 }
    """)
    st = load_settings(project)
    assert st.plugin_state(["a"]) == (True, None)
    assert st.plugin_state(["b"]) == (False, f"disabled in {home / 'settings.toml'}")
    assert st.plugin_state(["c"])[1] == f"disabled in {project / '.agent-hooks/settings.toml'}"
    assert not st.plugin_state(["d"])[0] and st.plugin_state(["e"]) == (True, None)
    assert st.order == ["y"] and st.hook_timeout == 20
    assert st.timeouts == {"pre_tool": None, "turn_start": 2.0}
    assert st.plugin_section(["p"]) == ({"keep": 1, "nested": {"one": 1, "two": 22}},
                                        [str(home / "settings.toml"), str(project / ".agent-hooks/settings.toml")])


def test_within_one_file_disabled_wins_and_names_compare_like_pypi(home: Path) -> None:
    write(home / "settings.toml", 'enabled = ["Agent_Hooks.X"]\ndisabled = ["agent-hooks-x"]\n')
    assert load_settings().plugin_state(["x", "agent-hooks-x"])[0] is False


def test_defaults_without_files(home: Path) -> None:
    st = load_settings()
    assert not st.user.exists and st.project is None
    assert st.hook_timeout == 30 and st.order == [] and st.timeouts == {}
    assert st.plugins_env is None and st.autoload is True


@pytest.mark.parametrize(("value", "expected"), [(None, None), ("", []), (" a , b,", ["a", "b"])])
def test_agent_hooks_plugins_is_three_state(value: str | None, expected: list[str] | None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if value is not None:
        monkeypatch.setenv("AGENT_HOOKS_PLUGINS", value)
    assert s.env_plugins() == expected


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_autoload_switch(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", value)
    assert load_settings().autoload is False
    monkeypatch.setenv("AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD", "0")
    assert load_settings().autoload is True


def test_invalid_toml_is_one_line_naming_file_and_line(home: Path) -> None:
    path = write(home / "settings.toml", 'order = ["a"]\ndisabled = ["x",\nhook_timeout = 3\n')
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(f"{path}:3: invalid TOML") and "\n" not in message


@pytest.mark.parametrize(("text", "where"), [
    ('disabled = "guard"\n', ":1: disabled: expected a list of strings, got a string"),
    ('\n\nhook_timeout = -1\n', ":3: hook_timeout: expected a number"),
    ('[timeouts]\npre_tool = "slow"\n', ":2: timeouts.pre_tool: expected a number"),
    ('plugins = 3\n', ":1: plugins: expected a table"),
    ('chibi_plugins = ["a"]\n', ":1: chibi_plugins: expected a directory path"),
])
def test_wrong_types_name_file_line_and_key(home: Path, text: str, where: str) -> None:
    (home / "settings.toml").write_text(text)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert str(info.value).startswith(str(home / "settings.toml") + where)


def test_unknown_keys_are_warnings(home: Path) -> None:
    write(home / "settings.toml", "disable = ['x']\n")
    assert load_settings().warnings == [f"{home / 'settings.toml'}: unknown key 'disable' (ignored); "
                                        "did you mean 'disabled'?"]


def test_explicit_settings_file_replaces_the_user_file(home: Path, tmp_path: Path) -> None:
    write(home / "settings.toml", 'disabled = ["a"]\n')
    other = write(tmp_path / "other.toml", 'disabled = ["b"]\n')
    st = load_settings(settings_path=other)
    assert st.plugin_state(["a"])[0] and not st.plugin_state(["b"])[0]
    with pytest.raises(SettingsError, match="not found"):
        load_settings(settings_path=tmp_path / "missing.toml")


COMMENTED = """\
# my agent-hooks settings
disabled = [
    "audit",  # too chatty
]
order = ["guard"]   # guard first

[plugins.guard]  # the guard
mode = "observe"
"""


def test_edits_keep_comments_and_formatting(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(COMMENTED)
    edit_file(path, lambda doc: list_add(doc, "disabled", "extra"))
    text = path.read_text()
    for kept in ("# my agent-hooks settings", '"audit",  # too chatty', 'order = ["guard"]   # guard first',
                 "[plugins.guard]  # the guard", 'mode = "observe"'):
        assert kept in text
    assert '"extra"' in text
    assert edit_file(path, lambda doc: list_remove(doc, "disabled", ["Extra", "nothing"])) == ["extra"]
    assert path.read_text() == COMMENTED


def test_an_edit_that_fails_midway_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(COMMENTED)

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # as if the process died between writing and renaming

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        edit_file(path, lambda doc: list_add(doc, "disabled", "x"))
    assert path.read_text() == COMMENTED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.toml"]  # no temporary file left


def test_a_corrupt_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("disabled = [\n")
    with pytest.raises(SettingsError, match=rf"^{path}:\d+: invalid TOML"):
        edit_file(path, lambda doc: list_add(doc, "disabled", "x"))
    assert path.read_text() == "disabled = [\n"


def test_atomic_write_keeps_the_file_mode_and_creates_directories(tmp_path: Path) -> None:
    path = tmp_path / "a" / "settings.toml"
    s.atomic_write(path, "x = 1\n")
    path.chmod(0o600)
    s.atomic_write(path, "x = 2\n")
    assert path.read_text() == "x = 2\n" and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_hook_paths_resolve_against_their_file(home: Path, project: Path) -> None:
    write(home / "settings.toml", 'hooks = ["rel.py", "/abs/x.py"]\n')
    write(project / ".agent-hooks/settings.toml", 'hooks = ["tools/h.py"]\nchibi_plugins = "chibi"\n')
    (project / "sub").mkdir()
    st = load_settings(project / "sub")  # relative to the project root, not the working directory
    assert [h.path for h in st.hook_paths("user")] == [home / "rel.py", Path("/abs/x.py")]
    assert [h.path for h in st.hook_paths("project")] == [project / "tools/h.py"]
    assert st.chibi_plugins() == (project / "chibi", "project", str(project / ".agent-hooks/settings.toml"))


def _settings(user: dict, project: dict | None = None, org: dict | None = None) -> s.Settings:
    files = {"user": Path("/u/settings.toml"), "project": Path("/p/.agent-hooks/settings.toml")}
    return s.Settings(
        user=s.SettingsFile(files["user"], "user", data=user, exists=True),
        project=s.SettingsFile(files["project"], "project", data=project, exists=True) if project is not None else None,
        project_root=Path("/p") if project is not None else None,
        organisation=s.SettingsFile(Path("/o.toml"), "organisation", data=org, exists=True) if org else None)


USER, PROJECT = Path("/u/settings.toml"), Path("/p/.agent-hooks/settings.toml")


@pytest.mark.parametrize(("user", "project", "org", "enable", "target", "off", "remove", "add", "on", "note"), [
    ({"disabled": ["x"]}, None, None, True, USER, False, "disabled", None, True, None),
    ({}, None, None, True, USER, True, "disabled", ("enabled", "x"), True, None),
    ({}, {"disabled": ["x"]}, None, True, USER, False, "disabled", None, False, "enable x --project"),
    ({}, {"disabled": ["x"]}, None, True, PROJECT, False, "disabled", None, True, None),
    ({"disabled": ["x"]}, {}, None, True, PROJECT, False, "disabled", ("enabled", "x"), True, None),
    ({}, None, {"disabled": ["x"]}, True, USER, True, "disabled", None, False, "cannot override"),
    ({"enabled": ["x"]}, None, None, False, USER, False, "enabled", ("disabled", "x"), False, None),
    ({"disabled": ["X"]}, None, None, False, USER, False, "enabled", None, False, None),
    ({}, None, {"required": ["x"]}, False, USER, False, "enabled", ("disabled", "x"), True, "still loads"),
])
def test_toggle_decides_the_edit_and_its_notes_without_files(
        user: dict, project: dict | None, org: dict | None, enable: bool, target: Path, off: bool,
        remove: str, add: tuple[str, str] | None, on: bool, note: str | None) -> None:
    toggle = _settings(user, project, org).toggle(["x"], "x", enable, target, off_until_enabled=off)
    assert toggle.remove == (remove, ("x",)) and toggle.add == add and toggle.enabled is on
    assert toggle.after.plugin_state(["x"], off_until_enabled=off)[0] is on
    lines = toggle.lines(changed=True)
    assert any(note in line for line in lines) if note else len(lines) == 1
    assert not USER.exists() and not PROJECT.exists()


def test_toggle_applies_its_edit_to_the_document() -> None:
    import tomlkit

    doc = tomlkit.parse('# mine\ndisabled = ["x", "y"]\n')
    toggle = _settings({"disabled": ["x", "y"]}).toggle(["x"], "x", True, USER)
    assert toggle.apply(doc) is True and tomlkit.dumps(doc) == '# mine\ndisabled = ["y"]\n'
    assert toggle.apply(doc) is False
    assert toggle.lines(changed=False) == [f"x is already enabled in {USER}"]


def test_an_edit_of_a_list_key_that_is_not_a_list_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('disabled = "guard"  # a string, not a list\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"^disabled: expected a list of plugin names, got a string"):
        edit_file(path, lambda doc: list_add(doc, "disabled", "audit"))
    assert path.read_text(encoding="utf-8") == 'disabled = "guard"  # a string, not a list\n'


def test_the_settings_package_keeps_its_public_names() -> None:
    # callers and plugins import these from agent_hooks_core.settings, whichever module holds them
    for name in s.__all__:
        assert getattr(s, name) is not None, name
