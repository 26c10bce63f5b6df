"""No untrusted byte of project code ever runs, and the user is told."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from agent_hooks_core import trust
from agent_hooks_core.discovery import load_runtime
from agent_hooks_core.settings import load_settings

from .loading_support import agenthooks, write

NO_PLUGINS = 'disabled = ["guard", "audit", "otel"]\n'
GOOD = "from agent_hooks_core import hookimpl\n\n@hookimpl\ndef turn_start():\n    return None\n"


def evil(marker: Path) -> str:
    return f"open({str(marker)!r}, 'a').write('ran\\n')\n"


REWRITER = """
import os, sys
path, good, bad = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
print("ready", flush=True)
i = 0
while True:
    tmp = path + ".w"
    with open(tmp, "w") as fh:
        fh.write(bad if i % 2 else good)
    os.replace(tmp, path)
    i += 1
"""


def test_a_hook_file_rewritten_during_loading_never_runs_untrusted_bytes(
        home: Path, project: Path, tmp_path: Path) -> None:
    # the check and the import read the file once; a rewriter racing them loses
    write(home / "settings.toml", NO_PLUGINS)
    marker = tmp_path / "marker"
    hook = write(project / ".agent-hooks/hooks/raced.py", GOOD)
    trust.trust(load_settings())
    good, bad = write(tmp_path / "good.py", GOOD), write(tmp_path / "bad.py", evil(marker))
    rewriter = subprocess.Popen([sys.executable, "-c", REWRITER, str(hook), str(good), str(bad)],
                                stdout=subprocess.PIPE, text=True)
    try:
        assert rewriter.stdout is not None and rewriter.stdout.readline().strip() == "ready"
        statuses = {load_runtime(use_cache=True).plugin_info["raced"].status for _ in range(150)}
    finally:
        rewriter.kill()
        rewriter.wait()
    assert not marker.exists(), "untrusted bytes were executed"
    assert statuses <= {"loaded", "untrusted", "failed"} and statuses & {"loaded", "untrusted"}


def test_a_package_hook_pins_every_file_it_executes(home: Path, project: Path, tmp_path: Path) -> None:
    # hooks = ["t/pkg"] pins the whole tree, and imports come from what was hashed
    write(home / "settings.toml", NO_PLUGINS)
    marker = tmp_path / "marker"
    pkg = project / "t" / "pkg"
    write(pkg / "__init__.py", "from .helper import turn_start  # noqa: F401\n")
    helper = write(pkg / "helper.py", GOOD)
    write(project / ".agent-hooks/settings.toml", 'hooks = ["t/pkg"]\n')
    assert load_runtime().plugin_info["pkg"].status == "untrusted"
    pinned = trust.trust(load_settings())
    assert ("hook-package", str(pkg)) in [(i.kind, i.path) for i in pinned]
    rt = load_runtime()
    assert rt.plugin_info["pkg"].status == "loaded" and rt.hooks_of("pkg") == ["turn_start"]

    helper.write_text(GOOD + evil(marker))  # a sibling module changes after trust
    info = load_runtime().plugin_info["pkg"]
    assert info.status == "untrusted" and "hook package pkg changed" in (info.reason or "")
    write(pkg / "extra.py", evil(marker))  # or a new one appears
    assert load_runtime().plugin_info["pkg"].status == "untrusted"
    assert not marker.exists()

    helper.write_text(GOOD)
    (pkg / "extra.py").unlink()
    assert load_runtime().plugin_info["pkg"].status == "loaded"  # back to what was pinned


def test_a_missing_submodule_is_not_looked_up_outside_the_pinned_snapshot(
        home: Path, project: Path, tmp_path: Path) -> None:
    write(home / "settings.toml", NO_PLUGINS)
    pkg = project / "t" / "pkg"
    write(pkg / "__init__.py", "def lazy():\n    from . import later  # noqa: F401\n")
    write(project / ".agent-hooks/settings.toml", 'hooks = ["t/pkg"]\n')
    trust.trust(load_settings())
    rt = load_runtime()
    assert rt.plugin_info["pkg"].status == "loaded"
    write(pkg / "later.py", "raise SystemExit('ran a module nobody pinned')\n")
    module = rt.pm.get_plugin("pkg")
    with pytest.raises(ImportError, match="cannot import name 'later'"):
        module.lazy()  # a SystemExit here would mean the unpinned file ran


def test_the_project_directory_is_never_a_plugin_source(tmp_path: Path) -> None:
    # under `python -m agent_hooks_core` the cwd is on sys.path
    home, project = tmp_path / "home", tmp_path / "project"
    marker = tmp_path / "marker"
    (project / ".agent-hooks").mkdir(parents=True)
    write(project / "evilmod.py", evil(marker) + GOOD)
    info = project / "agent_hooks_evil-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: agent-hooks-evil\nVersion: 1.0\n")
    write(info / "entry_points.txt", "[agent_hooks]\nevil = evilmod\n")
    write(project / "tomllib.py", evil(marker))
    write(project / "tomlkit.py", evil(marker))
    write(home / "settings.toml", 'order = ["guard"]\n')  # a settings file: tomllib is imported
    run = agenthooks("plugins", "list", "--json", cwd=project, home=home)
    assert run.code == 0, run
    assert "evil" not in {row["name"] for row in json.loads(run.out)}
    run = agenthooks("plugins", "disable", "audit", cwd=project, home=home)  # tomlkit for the edit
    assert run.code == 0, run
    assert not marker.exists()


def test_untrusted_project_code_is_skipped_with_one_notice(home: Path, project: Path) -> None:
    # not silently
    write(project / ".agent-hooks/hooks/one.py", GOOD)
    write(project / ".agent-hooks/hooks/two.py", GOOD)
    run = agenthooks("fire", "turn_start", cwd=project, home=home, data={})
    assert run.code == 0, run
    notices = [line for line in run.err.splitlines() if "skipped untrusted" in line]
    assert notices == [f"agenthooks: notice: project {project}: skipped untrusted one, two "
                       "(`agenthooks trust --show` says why; `agenthooks trust` allows them)"]


def test_trust_show_says_changed_not_loaded_and_speaks_json(home: Path, project: Path) -> None:
    hook = write(project / ".agent-hooks/hooks/one.py", GOOD)
    write(project / ".agent-hooks/settings.toml", 'disabled = ["audit"]\n')
    shown = agenthooks("trust", "--show", "--json", cwd=project, home=home).json
    assert shown["trusted"] is False
    assert {i["kind"]: i["status"] for i in shown["items"]} == {"hook-file": "untrusted, not loaded",
                                                                "policy": "untrusted, ignored"}
    assert agenthooks("trust", "--json", cwd=project, home=home).json == shown  # --json alone only shows
    assert agenthooks("trust", cwd=project, home=home).code == 0
    pinned = agenthooks("trust", "--show", "--json", cwd=project, home=home).json
    assert pinned["trusted"] is True and sorted(i["kind"] for i in pinned["items"]) == ["hook-file", "policy"]
    hook.write_text(GOOD + "# edited after trust\n")
    write(project / ".agent-hooks/hooks/new.py", GOOD)
    text = agenthooks("trust", "--show", cwd=project, home=home).out
    assert f"changed, not loaded  hook-file  {hook.relative_to(project)}" in text
    assert "new, not loaded" in text and re.search(r"^trusted +policy ", text, re.MULTILINE)
    listed = agenthooks("trust", "--list", "--json", cwd=project, home=home).json
    assert listed == [{"project": str(project), "pinned": 2}]
    assert agenthooks("trust", "--revoke", "--json", cwd=project, home=home).json["revoked"] is True
