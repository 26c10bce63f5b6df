"""The wheel carries every sub-package (pyproject lists them by hand; core/ is mapped) and what the
runtime reads, and nothing only the checkout uses (generators, the seed table)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.venvs import build_wheel

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_core_subpackage_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {"agent_hooks_core", "agent_hooks_core.hookspecs"}
    for init in (ROOT / "core").rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT / "core")
        if rel.parts and "__pycache__" not in rel.parts:
            on_disk.add(".".join(("agent_hooks_core", *rel.parts)))
    assert sorted(on_disk - listed) == [], "add these to [tool.setuptools] packages"
    assert sorted(listed - on_disk) == [], "these listed packages do not exist"


def test_first_party_plugins_declare_their_entry_point() -> None:
    for pyproject in sorted((ROOT / "plugins").glob("*/pyproject.toml")):
        data = tomllib.loads(pyproject.read_text())
        name = pyproject.parent.name
        assert data["project"]["name"] == f"agent-hooks-{name}"
        assert data["project"]["entry-points"]["agent_hooks"] == {name: f"agent_hooks_{name}"}


#: what the runtime reads: the shipped pytest plugin's conformance vectors, the hosts' plugin files
SHIPPED = ("agent_hooks_core/data/vectors/catalogue.json", "agent_hooks_core/bridges/opencode/plugin.ts",
           "agent_hooks_core/bridges/pi/extension.ts", "agent_hooks_core/hookspecs/_fields.py")
#: what only the checkout uses (tools/ and docs/seed-hooks.tsv)
NOT_SHIPPED = ("docgen", "_gen.py", "fields_gen", "seed-hooks.tsv", "tools/")


@pytest.mark.slow
def test_the_wheel_holds_the_runtime_and_not_the_generators(tmp_path: Path) -> None:
    wheel = build_wheel(ROOT, tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert all(name in names for name in SHIPPED), [n for n in SHIPPED if n not in names]
    assert [n for n in names if any(part in n for part in NOT_SHIPPED)] == []


@pytest.mark.slow
def test_a_stale_build_directory_does_not_reach_the_wheel(tmp_path: Path) -> None:
    """setuptools puts what ``build/lib`` holds into the wheel: a module removed from the sources (here
    one that never was) would ship again from a checkout that was built before. The tests' wheels
    (and tox's plugin installs) are built from a copy of the sources without it."""
    project = tmp_path / "guard"
    shutil.copytree(ROOT / "plugins" / "guard", project, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    stale = project / "build" / "lib" / "agent_hooks_guard" / "removed_long_ago.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("RAN = True\n")
    raw = tmp_path / "raw"
    # the hazard is real: built in place, the stale module ships
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(raw),
                    str(project)], check=True, capture_output=True, timeout=600)
    (in_place,) = raw.glob("*.whl")
    assert "agent_hooks_guard/removed_long_ago.py" in zipfile.ZipFile(in_place).namelist()
    names = zipfile.ZipFile(build_wheel(project, tmp_path / "clean")).namelist()
    assert "agent_hooks_guard/removed_long_ago.py" not in names
    assert "agent_hooks_guard/rules.py" in names and "agent_hooks_guard/corpus.tsv" in names
    assert stale.exists()  # the checkout is left as it was
