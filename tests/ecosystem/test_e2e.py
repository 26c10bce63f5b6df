"""End to end, with real wheels in fresh virtual environments (no network beyond the package index).

1. ``agenthooks new-plugin`` -> build its wheel -> ``agenthooks plugins install`` it next to the core
   -> ``plugins list`` shows it -> ``plugins disable`` (and it is not even imported) -> ``plugins
   enable`` -> ``agenthooks fire`` gets its answer.
2. Plugins broken on purpose (import error, bad hookimpl signature, bad config section) next to a
   good one: the good one still answers, and ``doctor`` names each culprit.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.venvs import Venv, Wheelhouse, run

RM_RF = json.dumps({"tool_name": "bash", "arguments": {"command": "rm -rf / --no-preserve-root"}})

#: appended to the generated plugin: proves whether the module was imported
MARKER = """

import os as _os
if _os.environ.get("E2E_IMPORT_MARKER"):
    with open(_os.environ["E2E_IMPORT_MARKER"], "a") as _fh:
        _fh.write("imported\\n")
"""


def agenthooks(venv: Venv, *args: str | Path, env: dict[str, str], input: str | None = None) -> tuple[int, str, str]:
    proc = venv.run(venv.bin("agenthooks"), *args, env=env, input=input)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def listing(venv: Venv, env: dict[str, str]) -> dict[str, dict]:
    code, out, err = agenthooks(venv, "plugins", "list", "--json", env=env)
    assert code == 0, err
    return {row["name"]: row for row in json.loads(out)}


@pytest.mark.slow
def test_new_plugin_to_fire_through_a_fresh_venv(fresh_venv, wheelhouse: Wheelhouse, tmp_path: Path) -> None:
    venv = fresh_venv("agent-hooks-core")
    marker = tmp_path / "imported.txt"
    env = {"AGENT_HOOKS_HOME": str(tmp_path / "home"), "E2E_IMPORT_MARKER": str(marker),
           # the fresh venv has no pip: install with this interpreter's pip, into the venv
           "AGENT_HOOKS_PIP": f"{sys.executable} -m pip --python {venv.python}"}

    code, out, err = agenthooks(venv, "new-plugin", "e2e-demo", "--dir", tmp_path, env=env)
    assert code == 0, err
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / "settings.toml").write_text('[plugins.e2e-demo]\nblock = ["rm -rf /"]\n')
    project = tmp_path / "agent-hooks-e2e-demo"
    module = project / "agent_hooks_e2e_demo" / "__init__.py"
    module.write_text(module.read_text() + MARKER)
    wheel = wheelhouse.build(project)
    assert wheel.name.startswith("agent_hooks_e2e_demo-0.1.0-")

    code, out, err = agenthooks(venv, "plugins", "install", "--no-index", "--find-links", wheelhouse.path,
                                "agent-hooks-e2e-demo", env=env)
    assert code == 0, out + err
    row = listing(venv, env)["e2e-demo"]
    assert (row["status"], row["distribution"], row["version"], row["source"], row["hooks"]) == \
        ("loaded", "agent-hooks-e2e-demo", "0.1.0", "entry-point", ["pre_tool"])
    assert marker.read_text() == "imported\n"

    code, out, err = agenthooks(venv, "plugins", "disable", "e2e-demo", env=env)
    assert code == 0 and "Disabled e2e-demo" in out, err
    marker.unlink()
    row = listing(venv, env)["e2e-demo"]
    assert row["status"] == "disabled" and "settings.toml" in row["reason"]
    code, out, err = agenthooks(venv, "fire", "pre_tool", "--data", RM_RF, env=env)
    assert code == 0 and json.loads(out) == {}
    assert not marker.exists(), "a disabled plugin was imported"

    code, out, err = agenthooks(venv, "plugins", "enable", "agent-hooks-e2e-demo", env=env)
    assert code == 0, err
    code, out, err = agenthooks(venv, "fire", "pre_tool", input=RM_RF, env=env)
    assert code == 3, err  # blocked: exit 3 (docs/cli.md)
    reason = "e2e-demo: 'rm -rf /' is blocked by [plugins.e2e-demo] block"
    assert json.loads(out) == {"block": True, "reason": reason, "message": reason}
    assert marker.exists()


BROKEN = {
    "good": """
        from agent_hooks_core import hookimpl

        @hookimpl
        def pre_tool(event):
            if "danger" in event.arguments.get("command", ""):
                return {"block": True, "reason": "good says no"}
    """,
    "badimport": """
        import agent_hooks_no_such_dependency
    """,
    "badsig": """
        from agent_hooks_core import hookimpl

        @hookimpl
        def pre_tool(event, ctx, bogus_argument):
            return {"block": True}
    """,
    "badconfig": """
        from pydantic import BaseModel
        from agent_hooks_core import hookimpl

        class Config(BaseModel):
            level: int = 1

        @hookimpl
        def plugin_config_model():
            return Config

        @hookimpl
        def pre_tool(event, ctx):
            return {"block": True, "reason": "badconfig must never answer"}
    """,
}


def make_project(root: Path, name: str, source: str) -> Path:
    project = root / f"agent-hooks-{name}"
    (project / f"agent_hooks_{name}").mkdir(parents=True)
    (project / f"agent_hooks_{name}" / "__init__.py").write_text(textwrap.dedent(source))
    (project / "pyproject.toml").write_text(textwrap.dedent(f"""
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "agent-hooks-{name}"
        version = "1.0"
        dependencies = ["agent-hooks-core"]

        [project.entry-points.agent_hooks]
        {name} = "agent_hooks_{name}"

        [tool.setuptools]
        packages = ["agent_hooks_{name}"]
    """))
    return project


@pytest.mark.slow
def test_broken_plugins_are_skipped_and_doctor_names_them(fresh_venv, wheelhouse: Wheelhouse,
                                                          tmp_path: Path) -> None:
    projects = [make_project(tmp_path / "src", name, source) for name, source in BROKEN.items()]
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
         *map(str, projects)])
    venv = fresh_venv("agent-hooks-core", *sorted(wheels.glob("*.whl")))
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.toml").write_text('# a level must be a number\n[plugins.badconfig]\nlevel = "high"\n')
    env = {"AGENT_HOOKS_HOME": str(home)}

    plugins = listing(venv, env)
    assert plugins["good"]["status"] == "loaded"
    assert {n: plugins[n]["status"] for n in ("badimport", "badsig", "badconfig")} == dict.fromkeys(
        ("badimport", "badsig", "badconfig"), "failed")

    code, out, err = agenthooks(venv, "fire", "pre_tool", "--data",
                                '{"tool_name": "bash", "arguments": {"command": "danger"}}', env=env)
    # any of them may have been the one to say no: the gating hook denies and names them
    assert code == 3 and json.loads(out)["block"] is True
    assert all(f"plugin {name!r} failed to load" in json.loads(out)["reason"]
               for name in ("badimport", "badsig", "badconfig"))
    for name in ("badimport", "badsig", "badconfig"):
        assert f"plugin {name!r} not loaded" in err

    code, out, err = agenthooks(venv, "doctor", env=env)
    assert code == 1, out + err
    text = " ".join(out.split())  # rich may wrap long lines
    assert "plugin 'badimport' not loaded (cannot be imported)" in text and "agent_hooks_no_such_dependency" in text
    assert "plugin 'badsig' not loaded (has an invalid hookimpl)" in text and "bogus_argument" in text
    assert "plugin 'badconfig' not loaded (has invalid settings)" in text and "level" in text and "'high'" in text
    assert "2 loaded" in text  # good, and the gate that denies in their place

    code, out, err = agenthooks(venv, "doctor", "--json", env=env)
    report = json.loads(out)
    errors = {f["plugin"]: f["message"] for f in report["findings"] if f["level"] == "error"}
    assert set(errors) == {"badimport", "badsig", "badconfig", None}
    assert errors[None].startswith("gating hooks deny every call")
    assert str(home / "settings.toml") in errors["badconfig"]
