"""The wheel must carry every sub-package: pyproject lists them by hand (core/ is mapped)."""

from __future__ import annotations

import sys
from pathlib import Path

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
