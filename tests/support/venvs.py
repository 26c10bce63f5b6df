"""Real wheels, real virtual environments: what the distribution tests install into.

``Wheelhouse`` builds the wheels of agent-hooks-core and every first-party plugin under
``plugins/`` once per test session and downloads their dependencies next to them, so each fresh
venv installs offline (``--no-index``) in seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc  # type: ignore[no-any-return]


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
        """Build one project's wheel into the wheelhouse; returns the wheel."""
        before = set(self.path.glob("*.whl"))
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
             "-w", str(self.path), str(source)])
        new = set(self.path.glob("*.whl")) - before
        return next(iter(new)) if new else self.find(source.name)

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
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
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
