"""Importing local hook files from the bytes that were read (and, for project code, hashed).

A hook file or package is read once into memory (:func:`agent_hooks_core.trust.read_code`); the
trust check looks at those bytes and the module is compiled from the same bytes, so a file
rewritten between the check and the import cannot run. A package's submodules are
served from the same snapshot by a finder scoped to that package's module name, so a sibling
module changed after trust cannot run either.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from ..trust import Code, read_code


def module_name(path: Path) -> str:
    """A module name unique to the file's absolute path (two ``hooks.py`` do not collide)."""
    stem = path.parent.name if path.name == "__init__.py" else path.stem
    key = f"{zlib.crc32(str(path.resolve()).encode()):08x}"
    return f"_agent_hooks_file_{re.sub(r'[^0-9A-Za-z_]', '_', stem)}_{key}"


class _SnapshotLoader(importlib.abc.Loader):
    """Executes one module of a :class:`Code` snapshot."""

    def __init__(self, code: Code, rel: str) -> None:
        self.code = code
        self.rel = rel

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        base = self.code.package if self.code.package is not None else self.code.path.parent
        filename = str(base / self.rel)
        exec(compile(self.code.files[self.rel], filename, "exec", dont_inherit=True), module.__dict__)


class _SnapshotFinder(importlib.abc.MetaPathFinder):
    """Finds the submodules of hook packages in their snapshots, and nowhere else."""

    def __init__(self) -> None:
        self.packages: dict[str, Code] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        root, dot, rest = fullname.partition(".")
        code = self.packages.get(root)
        if not dot or code is None or code.package is None:
            return None
        parts = rest.split(".")
        for rel, is_pkg in (("/".join(parts) + "/__init__.py", True), ("/".join(parts) + ".py", False)):
            if rel in code.files:
                spec = importlib.util.spec_from_loader(fullname, _SnapshotLoader(code, rel), is_package=is_pkg,
                                                       origin=str(code.package / rel))
                if spec is not None:
                    spec.has_location = True
                    if is_pkg:
                        spec.submodule_search_locations = [str(code.package / "/".join(parts))]
                return spec
        raise ModuleNotFoundError(
            f"{fullname}: not in the hook package {code.package} as it was read (and pinned)", name=fullname)


_FINDER = _SnapshotFinder()


def import_code(code: Code) -> ModuleType:
    """Execute ``code`` as a new module (a package's submodules come from the same snapshot)."""
    name = module_name(code.path)
    rel = "__init__.py" if code.package is not None else code.path.name
    spec = importlib.util.spec_from_loader(name, _SnapshotLoader(code, rel), origin=str(code.path),
                                           is_package=code.package is not None)
    if spec is None:  # pragma: no cover - spec_from_loader returns None only without a loader
        raise ImportError(f"cannot load {code.path} as a Python module")
    spec.has_location = True
    if code.package is not None:
        spec.submodule_search_locations = [str(code.package)]
        _FINDER.packages[name] = code
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except BaseException:
        sys.modules.pop(name, None)
        _FINDER.packages.pop(name, None)
        raise
    return module


def import_file(path: Path) -> Any:
    """Import a hook file (or ``pkg/__init__.py`` and its package) as a new module."""
    return import_code(read_code(path))
