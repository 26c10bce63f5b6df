"""The wheel carries every sub-package (pyproject lists them by hand; core/ is mapped) and what the
runtime reads, and nothing only the checkout uses (generators, the seed table)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

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
    # from a copy: a checkout's build/ keeps what an earlier build copied, moved modules included
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "build", "dist", ".venv", ".tox", ".git", "*.egg-info", "__pycache__", "node_modules", "plugins"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "dist"), str(source)], check=True, capture_output=True, timeout=600)
    (wheel,) = (tmp_path / "dist").glob("agent_hooks_core-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert all(name in names for name in SHIPPED), [n for n in SHIPPED if n not in names]
    assert [n for n in names if any(part in n for part in NOT_SHIPPED)] == []
