"""``agenthooks install opencode``: the shipped ``plugin.ts`` copied into OpenCode's plugin
directory (``~/.config/opencode/plugin/`` or ``<project>/.opencode/plugin/``) with this
environment's interpreter baked in, so the plugin starts ``python -I -m agent_hooks_core serve
--stdio`` from the environment that has the plugins."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from ...settings import home_dir
from ..hostkit.jsonconfig import ConfigEdit, FileChange, InstallError, run_plan

HOST = "opencode"
SCOPES = ("user", "project")
FILENAME = "agent-hooks.ts"
_BAKED = re.compile(r"^const BAKED: .*// @agent-hooks-config$", re.M)


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    base = (os.environ if environ is None else environ).get("XDG_CONFIG_HOME") or home_dir(environ) / ".config"
    return Path(base) / "opencode"


def config_targets(project_dir: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file ``install`` may write (user scope, and the project scope of ``project_dir``)."""
    return [config_dir(environ) / "plugin" / FILENAME, plugin_path("project", project_dir)]


def plugin_path(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
    if scope == "user":
        return config_dir() / "plugin" / FILENAME
    if scope == "project":
        return Path(os.path.abspath(project_dir or os.getcwd())) / ".opencode" / "plugin" / FILENAME
    raise InstallError(f"unknown scope {scope!r}: use user or project")


def source() -> str:
    return resources.files(__package__).joinpath("plugin.ts").read_text(encoding="utf-8")


def rendered(python: str | None = None, args: list[str] | None = None) -> str:
    baked: dict[str, Any] = {"python": python or str(Path(sys.executable).absolute())}
    if args:
        baked["args"] = args
    line = f"const BAKED: {{ python?: string; args?: string[] }} = {json.dumps(baked)}; // @agent-hooks-config"
    text, n = _BAKED.subn(lambda _m: line, source(), count=1)
    if n != 1:
        raise InstallError("the shipped OpenCode plugin has no @agent-hooks-config line (a packaging bug)")
    return text


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from None


def plan_install(scope: str, project_dir: str | os.PathLike[str] | None = None, python: str | None = None,
                 args: list[str] | None = None) -> ConfigEdit:
    path = plugin_path(scope, project_dir)
    old = _read(path)
    if old is not None and "@agent-hooks-config" not in old:
        raise InstallError(f"{path} exists and is not agent-hooks' plugin; move it, nothing was changed")
    new = rendered(python, args)
    plan = ConfigEdit([FileChange(path, old, None if new == old else new)])
    plan.notes.append("opencode run needs permission to run bash (opencode.json \"permission\"); agent-hooks "
                      "decides what runs")
    return plan


def plan_uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> ConfigEdit:
    path = plugin_path(scope, project_dir)
    old = _read(path)
    return ConfigEdit([_Removal(path, old, None if old is None or "@agent-hooks-config" not in old else "")],
                      removal=True)


class _Removal(FileChange):
    """Uninstall deletes our plugin file (an empty "new" text means: remove it)."""

    @property
    def changed(self) -> bool:
        return self.new == "" and self.old is not None

    def diff(self) -> str:
        return f"--- {self.path}\n+++ /dev/null\n(delete agent-hooks' OpenCode plugin)\n" if self.changed else ""


def install(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
            out: TextIO | None = None, **options: Any) -> int:
    return run_plan(plan_install(scope, project_dir), dry_run, out or sys.stdout,
                    f"OpenCode ({scope}) plugin installed")


def uninstall(scope: str = "user", project_dir: str | os.PathLike[str] | None = None, dry_run: bool = False,
              out: TextIO | None = None) -> int:
    return run_plan(plan_uninstall(scope, project_dir), dry_run, out or sys.stdout,
                    f"agent-hooks removed from OpenCode ({scope})")


def _baked_python(text: str) -> str | None:
    m = _BAKED.search(text)
    if not m:
        return None
    try:
        data = json.loads(m.group(0).split("=", 1)[1].rsplit(";", 1)[0])
    except ValueError:
        return None
    return data.get("python") if isinstance(data, dict) else None


def wired(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    found = []
    for scope in SCOPES:
        try:
            text = _read(plugin_path(scope, cwd))
        except InstallError:
            continue
        if text and "@agent-hooks-config" in text:
            found.append(scope)
    return found


def status(cwd: str | os.PathLike[str] | None = None) -> list[str]:
    lines = []
    for scope in SCOPES:
        path = plugin_path(scope, cwd)
        try:
            text = _read(path)
        except InstallError as exc:
            lines.append(f"problem: {exc}")
            continue
        if not text or "@agent-hooks-config" not in text:
            continue
        python = _baked_python(text)
        where = f"OpenCode {scope} plugin ({path})"
        if not python or not os.path.exists(python):
            lines.append(f"problem: {where}: its interpreter {python} does not exist; run `agenthooks install opencode --{scope}`")
        elif text != rendered(python, None) and _BAKED.sub("", text) != _BAKED.sub("", source()):
            lines.append(f"warning: {where}: older than this agent-hooks; run `agenthooks install opencode --{scope}`")
        else:
            lines.append(f"ok: {where}: installed, runs {python}")
    if not lines:
        lines.append("warning: OpenCode is not wired to agent-hooks; run `agenthooks install opencode`")
    return lines
