"""``agenthooks new-plugin NAME``: a ready-to-publish plugin project.

The templates are package data (``agent_hooks_core/templates/new_plugin/*.tmpl``); ``{{name}}``,
``{{dist}}``, ``{{module}}``, ``{{description}}`` and ``{{core_requirement}}`` are replaced.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from .. import __version__
from .common import fail

#: template file -> path in the new project ({module} is the import package)
FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "plugin.py.tmpl": "{module}/__init__.py",
    "test_plugin.py.tmpl": "tests/test_{module}.py",
}
_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def plugin_names(raw: str) -> tuple[str, str, str]:
    """NAME -> (plugin name, distribution, module): ``no-rm`` -> agent-hooks-no-rm, agent_hooks_no_rm."""
    name = raw.strip().lower().replace("_", "-")
    for prefix in ("agent-hooks-", "agenthooks-"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    if not _NAME.match(name):
        fail(f"invalid plugin name {raw!r}: use lowercase letters, digits and dashes, starting with a letter "
             "(e.g. no-rm)")
    return name, f"agent-hooks-{name}", "agent_hooks_" + name.replace("-", "_")


def render(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def create(raw_name: str, parent: Path, description: str | None = None) -> tuple[Path, list[Path]]:
    name, dist, module = plugin_names(raw_name)
    target = parent / dist
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        fail(f"{target} already exists and is not an empty directory")
    major_minor = ".".join(__version__.split(".")[:2])
    values = {
        "name": name, "dist": dist, "module": module,
        "description": (description or f"agent-hooks plugin {name}").replace('"', "'"),
        "core_requirement": f"agent-hooks-core>={major_minor}",
    }
    templates = resources.files("agent_hooks_core").joinpath("templates", "new_plugin")
    created: list[Path] = []
    try:
        for template, rel in FILES.items():
            path = target / rel.format(module=module)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(templates.joinpath(template).read_text(encoding="utf-8"), values),
                            encoding="utf-8")
            created.append(path)
        marker = target / module / "py.typed"
        marker.write_text("")
        created.append(marker)
    except OSError as exc:
        fail(f"cannot create {exc.filename or target}: {exc.strerror or exc}")
    return target, created


def program() -> str:
    """How to run this very ``agenthooks`` from anywhere: ``agenthooks`` when that is what PATH finds,
    else the console script by absolute path, else this interpreter with ``-m agent_hooks_core``."""
    script = Path(os.path.abspath(sys.executable)).parent / "agenthooks"
    if not script.is_file():
        return f"{shlex.quote(os.path.abspath(sys.executable))} -m agent_hooks_core"
    found = shutil.which("agenthooks")
    if found is not None and os.path.samefile(found, script):
        return "agenthooks"
    return shlex.quote(str(script))


def next_steps(target: Path) -> list[str]:
    """What to run in the new project, exactly as printed, from any install of agenthooks.

    agent-hooks-core is not on the package index yet, so the plugin goes into the environment
    agenthooks runs in, where the core already is (``plugins install`` is pip of that environment),
    and its tests run with that environment's Python.
    """
    python = shlex.quote(os.path.abspath(sys.executable))
    agenthooks = program()
    return [f"cd {shlex.quote(str(target.absolute()))}",
            f"{agenthooks} plugins install -e '.[test]'",
            f"{python} -m pytest",
            f"{agenthooks} plugins list"]


def register(app: typer.Typer) -> None:
    @app.command("new-plugin")
    def new_plugin_cmd(
        name: Annotated[str, typer.Argument(help="The plugin's name, e.g. no-rm (-> agent-hooks-no-rm).")],
        directory: Annotated[Path, typer.Option(
            "--dir", help="Where to create the project directory.", file_okay=False)] = Path("."),
        description: Annotated[str | None, typer.Option("--description", help="One line for PyPI.")] = None,
    ) -> None:
        """Create a ready-to-publish plugin project: pyproject with the entry point, a hookimpl, a test, README."""
        target, created = create(name, directory, description)
        print(f"Created {target}:")
        for path in created:
            print(f"  {path.relative_to(target)}")
        print("\nNext (installs it into the environment agenthooks runs in, then runs its tests):")
        for line in next_steps(target):
            print(f"  {line}")
