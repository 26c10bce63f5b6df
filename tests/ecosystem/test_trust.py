"""Trust: project code loads only once trusted, pinned to its content."""

from __future__ import annotations

import json
from pathlib import Path

from agent_hooks_core import trust
from agent_hooks_core.discovery import load_runtime, plan_of
from agent_hooks_core.settings import load_settings

from .conftest import plain, write

NO_PLUGINS = 'disabled = ["guard", "audit", "otel"]\n'


def test_project_hook_files_load_only_after_trust(home: Path, project: Path) -> None:
    write(home / "settings.toml", NO_PLUGINS)
    hook = write(project / ".agent-hooks/hooks/proj.py", "raise RuntimeError('ran untrusted code')\n")
    rt = load_runtime()
    info = rt.plugin_info["proj"]
    assert info.status == "untrusted" and "agenthooks trust" in (info.reason or "")
    assert rt.plugins == [] and rt.load_errors == []

    hook.write_text(plain("proj"))  # still untrusted: trust was never given
    assert load_runtime().plugin_info["proj"].status == "untrusted"
    pinned = trust.trust(load_settings())
    assert [(i.kind, Path(i.path).name) for i in pinned] == [("hook-file", "proj.py")]
    assert load_runtime().plugins == ["proj"]
    store = json.loads((home / "trust.json").read_text())
    assert str(project) in store["projects"]


def test_a_changed_or_new_file_is_untrusted_again(home: Path, project: Path) -> None:
    write(home / "settings.toml", NO_PLUGINS)
    hook = write(project / ".agent-hooks/hooks/proj.py", plain("proj"))
    trust.trust(load_settings())
    hook.write_text(plain("proj") + "\n# changed\n")
    write(project / ".agent-hooks/hooks/newer.py", plain("newer"))
    rt = load_runtime()
    assert rt.plugins == []
    assert "changed since" in (rt.plugin_info["proj"].reason or "")
    assert "added since" in (rt.plugin_info["newer"].reason or "")
    trust.trust(load_settings())
    assert load_runtime().plugins == ["newer", "proj"]


def test_project_settings_hooks_need_trust_and_so_does_disabling(home: Path, project: Path,
                                                                 tmp_path: Path) -> None:
    outside = write(tmp_path / "shared/extra.py", plain("extra"))
    settings = write(project / ".agent-hooks/settings.toml", f'hooks = ["{outside}"]\n{NO_PLUGINS}')
    rt = load_runtime()
    assert rt.plugin_info["extra"].status == "untrusted"
    assert "guard" in rt.plugins  # an untrusted project cannot switch the guard off
    trust.trust(load_settings())
    assert load_runtime().plugins == ["extra"]

    settings.write_text(settings.read_text() + 'order = ["extra"]\n')  # not a code key: still trusted
    assert load_runtime().plugins == ["extra"]
    outside.write_text(plain("extra") + "# edited\n")  # the referenced file is pinned too
    assert load_runtime().plugin_info["extra"].status == "untrusted"
    trust.trust(load_settings())
    other = write(tmp_path / "shared/other.py", plain("other"))
    settings.write_text(f'hooks = ["{outside}", "{other}"]\n{NO_PLUGINS}')  # a code key changed
    rt = load_runtime()
    assert rt.plugin_info["extra"].status == "untrusted" and rt.plugin_info["other"].status == "untrusted"


def test_user_hooks_need_their_own_trust_and_explicit_hook_paths_none(home: Path, project: Path) -> None:
    write(home / "settings.toml", NO_PLUGINS)
    mine = write(home / "hooks/mine.py", plain("mine"))
    proj = write(project / ".agent-hooks/hooks/proj.py", plain("proj"))
    rt = load_runtime()
    assert rt.plugins == [] and rt.plugin_info["mine"].status == "untrusted"
    assert "added since your user hook files were last trusted" in (rt.plugin_info["mine"].reason or "")
    assert any("user hook file(s) mine" in n for n in plan_of(rt).notices)
    trust.trust_user(load_settings())
    rt = load_runtime()
    assert rt.plugins == ["mine"] and rt.plugin_info["proj"].status == "untrusted"
    mine.write_text(plain("mine") + "\n# changed\n")
    assert load_runtime().plugin_info["mine"].status == "untrusted"
    trust.trust_user(load_settings())
    rt = load_runtime(hook_paths=[proj])  # naming it explicitly is trusting it
    assert rt.plugins == ["mine", "proj"] and rt.plugin_info["proj"].scope == "cli"


def test_revoke(home: Path, project: Path) -> None:
    write(home / "settings.toml", NO_PLUGINS)
    write(project / ".agent-hooks/hooks/proj.py", plain("proj"))
    trust.trust(load_settings())
    assert trust.revoke(project) is True
    assert load_runtime().plugins == []
    assert trust.revoke(project) is False


def test_project_chibi_directory_needs_trust(home: Path, project: Path, monkeypatch) -> None:
    from agent_hooks_core.dialects import chibi_plugins

    seen: list[Path] = []
    monkeypatch.setattr(chibi_plugins, "load_directory", lambda rt, d: seen.append(Path(d)))
    chibi = project / "chibi"
    write(chibi / "plugin.sh", "#!/bin/sh\n")
    write(project / ".agent-hooks/settings.toml", 'chibi_plugins = "chibi"\n')
    rt = load_runtime()
    assert seen == [] and any(i.status == "untrusted" for i in rt.plugin_info.values() if i.source == "chibi")
    trust.trust(load_settings())
    load_runtime()
    assert seen == [chibi]
    (chibi / "plugin.sh").write_text("#!/bin/sh\necho changed\n")
    load_runtime()
    assert seen == [chibi]  # changed content: not loaded again


def test_user_chibi_directory_needs_trust_too(home: Path, tmp_path: Path, monkeypatch) -> None:
    from agent_hooks_core.dialects import chibi_plugins

    seen: list[Path] = []
    monkeypatch.setattr(chibi_plugins, "load_directory", lambda rt, d: seen.append(Path(d)))
    chibi = tmp_path / "chibi"
    write(chibi / "plugin.sh", "#!/bin/sh\n")
    write(home / "settings.toml", f'chibi_plugins = "{chibi}"\n{NO_PLUGINS}')
    rt = load_runtime(cwd=tmp_path)
    assert seen == [] and any("chibi plugins" in n for n in plan_of(rt).notices)
    trust.trust_user(load_settings(tmp_path))
    load_runtime(cwd=tmp_path)
    assert seen == [chibi]
    write(chibi / "new.sh", "#!/bin/sh\necho the agent wrote this\n")
    load_runtime(cwd=tmp_path)
    assert seen == [chibi]  # a new executable: not loaded until trusted again


def test_a_policy_key_added_later_leaves_digests_users_trusted_as_they_were(tmp_path: Path) -> None:
    """stop_gate_limit joined the policy keys after projects were trusted: unset, it changes no digest."""
    write(tmp_path / ".agent-hooks" / "settings.toml", 'disabled = ["audit"]\n')
    before = trust._digest_of({"disabled": ["audit"], "plugins": None, "hook_timeout": None, "timeouts": None})
    assert trust.policy_digest(load_settings(tmp_path)) == before
    write(tmp_path / ".agent-hooks" / "settings.toml", 'disabled = ["audit"]\nstop_gate_limit = 0\n')
    assert trust.policy_digest(load_settings(tmp_path)) != before  # set, it needs trust again
