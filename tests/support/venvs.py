"""Real wheels, real virtual environments: what the distribution tests install into.

``Wheelhouse`` builds the wheels of agent-hooks-core and every first-party plugin under
``plugins/`` once per test session and downloads their dependencies next to them, so each fresh
venv installs offline (``--no-index``) in seconds.

Every wheel is built from a copy of its project's sources (:func:`build_wheel`): setuptools puts
into a wheel whatever its ``build/lib`` holds, so a checkout's stale ``build/`` would bring a
module removed from the sources back, and two test workers building in one directory would mix
their files. ``python -m tests.support.venvs install DIR ...`` installs wheels built that way
(tox uses it for the plugins its environments install).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path

from . import environ

ROOT = Path(__file__).resolve().parents[2]


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc  # type: ignore[no-any-return]


#: what a build leaves in a project directory, and what a checkout holds besides sources: never copied
_LEFTOVERS = shutil.ignore_patterns("*.egg-info", "__pycache__", ".venv", ".tox", ".git", "node_modules",
                                    ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache")
#: build outputs, at the top of a project only (a package may have a module or directory so named)
_OUTPUTS = frozenset({"build", "dist"})
#: the checkout's other projects and what no wheel of the core is built from
_NOT_CORE = frozenset({"plugins", "clients", "tests", "benchmarks", "examples", "docs"})


def build_wheel(source: Path, out: Path, *, isolated: bool = False) -> Path:
    """Build the wheel of the project in ``source`` into ``out`` from a copy of its sources, without
    what earlier builds left there (see the module's text); returns the wheel. ``isolated``: in a
    fresh build environment (which pip fills from the index) instead of with this one's setuptools."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agent-hooks-wheel-") as tmp:
        copy, built = Path(tmp) / source.name, Path(tmp) / "wheel"

        def ignore(directory: str, names: list[str]) -> set[str]:
            skip = set(_LEFTOVERS(directory, names))
            if Path(directory) == source:
                skip |= (_OUTPUTS | (_NOT_CORE if source == ROOT else frozenset())) & set(names)
            return skip

        shutil.copytree(source, copy, ignore=ignore, symlinks=True)
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", *([] if isolated else ["--no-build-isolation"]),
             "-q", "-w", str(built), str(copy)])
        (wheel,) = built.glob("*.whl")
        return Path(shutil.move(str(wheel), str(out / wheel.name)))


def project_dirs() -> dict[str, Path]:
    """distribution name -> source dir: the core and every plugin under plugins/."""
    dirs = {"agent-hooks-core": ROOT}
    for pyproject in sorted((ROOT / "plugins").glob("*/pyproject.toml")):
        dirs[f"agent-hooks-{pyproject.parent.name}"] = pyproject.parent
    return dirs


class Wheelhouse:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.mkdir(parents=True, exist_ok=True)

    def build(self, source: Path) -> Path:
        """Build one project's wheel into the wheelhouse (:func:`build_wheel`); returns the wheel."""
        return build_wheel(source, self.path)

    def find(self, name: str) -> Path:
        norm = name.replace("-", "_")
        matches = sorted(self.path.glob(f"{norm}-*.whl")) + sorted(self.path.glob(f"agent_hooks_{norm}-*.whl"))
        if not matches:
            raise FileNotFoundError(name)
        return matches[-1]

    def fetch_dependencies(self, *wheels: Path) -> None:
        run([sys.executable, "-m", "pip", "download", "-q", "-d", str(self.path), *map(str, wheels)])


@dataclass
class Venv:
    path: Path
    wheelhouse: Wheelhouse

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def bin(self, name: str) -> Path:
        return self.path / "bin" / name

    def install(self, *requirements: str | Path) -> None:
        """pip install offline from the wheelhouse (names or wheel/sdist paths)."""
        run([sys.executable, "-m", "pip", "--python", str(self.python), "install", "-q", "--no-index",
             "--find-links", str(self.wheelhouse.path), *map(str, requirements)])

    def run(self, *args: str | Path, input: str | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
        full_env = environ.without()
        full_env.update({"PATH": f"{self.path / 'bin'}:{os.environ.get('PATH', '')}", "VIRTUAL_ENV": str(self.path)})
        full_env.pop("PYTHONPATH", None)
        full_env.update(env or {})
        proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, input=input,
                              env=full_env, cwd=cwd, timeout=300)
        if check and proc.returncode != 0:
            raise RuntimeError(f"{args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc


def make_venv(path: Path, wheelhouse: Wheelhouse) -> Venv:
    """A fresh venv without pip (the outer pip installs into it with ``--python``)."""
    venv.EnvBuilder(with_pip=False, clear=True).create(path)
    return Venv(path, wheelhouse)


def _install(sources: list[str]) -> None:
    """Build each project's wheel as the tests do, and install them into this interpreter's environment."""
    with tempfile.TemporaryDirectory(prefix="agent-hooks-wheels-") as tmp:
        wheels = [build_wheel(Path(source).resolve(), Path(tmp), isolated=True) for source in sources]
        run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", *map(str, wheels)])


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "install":
        sys.exit("usage: python -m tests.support.venvs install PROJECT_DIR ...")
    _install(sys.argv[2:])
