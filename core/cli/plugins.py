"""``agenthooks plugins list|info|enable|disable|install|uninstall``."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import trust
from ..discovery import Candidate, clear_cache, effective_order, info_dict, plan, settings_of
from ..settings import (
    PROJECT_DIR,
    SETTINGS_FILE,
    edit_file,
    find_project_root,
    normalize_name,
    user_settings_path,
)
from . import common
from .common import echo_json, fail

if TYPE_CHECKING:
    from ..runtime import Runtime

CORE_DISTRIBUTION = "agent-hooks-core"
ENV_PIP = "AGENT_HOOKS_PIP"

JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
ProjectOpt = Annotated[bool, typer.Option(
    "--project", help=f"Edit the project's {PROJECT_DIR}/{SETTINGS_FILE} instead of the user settings.")]


def rows(rt: Runtime) -> list[dict[str, Any]]:
    """Every plugin discovery saw: loaded ones in effective call order, then the rest in load order."""
    ranked = effective_order(rt)
    out = []
    for name, raw in rt.plugin_info.items():
        row = info_dict(raw)
        row.setdefault("name", name)
        if name in ranked:
            row["order"] = ranked.index(name) + 1
            row["hooks"] = row.get("hooks") or rt.hooks_of(name)
        out.append(row)
    loaded = sorted((r for r in out if r.get("order")), key=lambda r: r["order"])
    return loaded + [r for r in out if not r.get("order")]


def find_rows(rt: Runtime, name: str) -> list[dict[str, Any]]:
    key = normalize_name(name)
    return [r for r in rows(rt) if key in (normalize_name(str(r.get("name"))),
                                           normalize_name(str(r.get("distribution") or "")))]


def _unknown(name: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown plugin {name!r}{hint}; `agenthooks plugins list` shows them"


_STYLE = {"loaded": "green", "disabled": "yellow", "failed": "red", "untrusted": "magenta", "tampered": "bold red"}


def print_rows(data: list[dict[str, Any]]) -> None:
    from rich.text import Text

    from .tables import Cell, Column

    out = common.console()
    if not data:
        out.print("No plugins. `agenthooks plugins install NAME` installs one; "
                  "`agenthooks new-plugin NAME` starts one.")
        return
    columns = [Column("#", right=True), Column("name"), Column("status"), Column("distribution"),
               Column("version"), Column("source"), Column("hooks", text=True), Column("reason", text=True)]
    table: list[list[Cell]] = []
    for r in data:
        status = str(r.get("status", ""))
        source = str(r.get("source", ""))
        if r.get("scope"):
            source += f" ({r['scope']})"
        table.append([
            str(r.get("order") or "-"), str(r.get("name")), Text(status, style=_STYLE.get(status, "")),
            str(r.get("distribution") or "-"), str(r.get("version") or "-"), source,
            ", ".join(r.get("hooks") or ()) or "-",
            "; ".join(filter(None, [r.get("reason"), f"required in {r['required']}" if r.get("required") else None])),
        ])
    common.print_table(columns, table, out)


def _config_of(rt: Runtime, name: str) -> object:
    try:
        config = rt.context(name).config
    except KeyError:
        return None
    dump = getattr(config, "model_dump", None)
    return dump(mode="json") if callable(dump) else config


# -- enable / disable ---------------------------------------------------------------------------


def _target_file(project: bool) -> Path:
    if project:
        root = find_project_root(common.OPTIONS.cwd) or Path(common.OPTIONS.cwd)
        return root / PROJECT_DIR / SETTINGS_FILE
    if common.OPTIONS.settings_path is not None:
        return Path(common.OPTIONS.settings_path).expanduser()
    return user_settings_path()


def _candidates(name: str) -> list[Candidate]:
    the_plan = plan(common.settings(), hook_paths=common.OPTIONS.hook_paths)
    found = the_plan.find(name)
    if not found:
        fail(_unknown(name, [c.name for c in the_plan.candidates]))
    return found


def _spelling(name: str, found: list[Candidate]) -> str:
    """The name to write: the plugin's own spelling of what the user typed."""
    for c in found:
        if normalize_name(c.name) == normalize_name(name):
            return c.name
        if c.record is not None and normalize_name(c.record.dist) == normalize_name(name):
            return c.record.dist
    return name


def set_enabled(name: str, enable: bool, project: bool) -> list[str]:
    """Enable or disable ``name`` in the chosen settings file; returns the lines to print."""
    found = _candidates(name)
    target = _target_file(project)
    settings = common.settings()
    toggle = settings.toggle(
        [n for c in found for n in c.names], _spelling(name, found), enable, target,
        off_until_enabled=any(c.record is not None and c.record.off_until_enabled for c in found),
        entry_point=any(c.source == "entry-point" for c in found))
    changed = edit_file(target, toggle.apply)
    notes = []
    if project and toggle.after.project is not None:
        untrusted = trust.state(toggle.after).policy_reason(toggle.after)
        if untrusted is not None:
            notes.append(f"note: {untrusted}; the project's `disabled` and plugin sections apply once you "
                         "run `agenthooks trust`")
    return toggle.lines(changed, notes)


# -- install / uninstall ------------------------------------------------------------------------


def pip_command() -> list[str]:
    """The installer for the environment agenthooks runs in (like ``llm install``).

    ``$AGENT_HOOKS_PIP`` when set (e.g. ``uv pip``), else ``python -m pip`` of this interpreter,
    else ``uv pip --python <this interpreter>`` when uv is on PATH.
    """
    override = os.environ.get(ENV_PIP)
    if override:
        return shlex.split(override)
    import importlib.util

    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    uv = shutil.which("uv")
    if uv:
        return [uv, "pip", "--python", sys.executable]
    fail(f"pip is not available in this environment ({sys.executable}); install pip or uv, "
         f"or set {ENV_PIP} to an installer command")


def _is_uv(cmd: list[str]) -> bool:
    return Path(cmd[0]).name.startswith("uv") and cmd[1:2] == ["pip"]


def _run_pip(*args: str) -> int:
    cmd = pip_command()
    if _is_uv(cmd):  # `uv pip --python X` + `install ...` -> `uv pip install --python X ...`
        args = tuple(a for a in args if a not in ("-y", "--yes"))
        full = [*cmd[:2], args[0], *cmd[2:], *args[1:]]
    else:
        full = [*cmd, *args]
    try:
        proc = subprocess.run(full)
    except OSError as exc:
        fail(f"cannot run {full[0]}: {exc.strerror or exc}")
    clear_cache()
    return proc.returncode


def _installed(dist: str) -> bool:
    import importlib.metadata as md

    try:
        md.distribution(dist)
    except (md.PackageNotFoundError, ValueError):
        return False
    return True


def _uninstall_targets(names: list[str]) -> list[str]:
    the_plan = plan(common.settings(), use_cache=False)
    out: list[str] = []
    for name in names:
        if name.startswith("-"):
            out.append(name)
            continue
        dists = [c.record.dist for c in the_plan.find(name) if c.record is not None]
        if not dists and not _installed(name):  # pip only warns and exits 0: say it, exit 2
            fail(_unknown(name, [c.name for c in the_plan.candidates]).replace(
                "unknown plugin", "no installed plugin or distribution"))
        dist = dists[0] if dists else name
        if normalize_name(dist) == CORE_DISTRIBUTION:
            fail(f"refusing to uninstall {CORE_DISTRIBUTION}, which agenthooks itself is; use pip directly")
        out.append(dist)
    return out


# -- commands -----------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    plugins_app = typer.Typer(help="List, inspect, enable, disable, install and uninstall plugins.",
                              no_args_is_help=True)
    app.add_typer(plugins_app, name="plugins")

    @plugins_app.command("list")
    def list_cmd(json_: JsonOpt = False) -> None:
        """Every plugin: name, distribution, version, source, status, hooks, effective order."""
        rt = common.runtime()
        data = rows(rt)
        if json_:
            echo_json(data)
        else:
            print_rows(data)
        for err in rt.load_errors:
            if err.plugin not in rt.plugin_info:
                common.warn(common.load_error_line(err))

    @plugins_app.command("info")
    def info_cmd(name: Annotated[str, typer.Argument(help="Plugin or distribution name.")],
                 json_: JsonOpt = False) -> None:
        """One plugin in detail: where it comes from, its hooks, its settings, why it is not loaded."""
        rt = common.runtime()
        found = find_rows(rt, name)
        if not found:
            fail(_unknown(name, [str(r.get("name")) for r in rows(rt)]))
        settings = settings_of(rt)
        details = []
        for row in found:
            pname = str(row["name"])
            if row.get("status") == "loaded":
                row["config"] = _config_of(rt, pname)
                row["rules"] = {h: _rule(h) for h in row.get("hooks") or ()}
            if settings is not None:
                names = [pname] + ([row["distribution"]] if row.get("distribution") else [])
                section, origins = settings.plugin_section(names)
                row["settings_section"] = section
                row["settings_files"] = origins
            row["errors"] = [e.to_dict() for e in rt.load_errors if e.plugin == pname]
            details.append(row)
        if json_:
            echo_json(details[0] if len(details) == 1 else details)
            return
        out = common.console()

        def say(line: str) -> None:
            common.say(out, line)

        esc = common.esc
        for row in details:
            say(f"[bold]{esc(row['name'])}[/bold]  {esc(row.get('status'))}"
                + (f": {esc(row['reason'])}" if row.get("reason") else ""))
            for key in ("distribution", "version", "source", "scope", "entry_point", "path", "order"):
                if row.get(key) is not None:
                    say(f"  {key.replace('_', ' ')}: {esc(row[key])}")
            if row.get("rules"):
                say("  hooks:")
                for hook, rule in row["rules"].items():
                    say(f"    {esc(hook)}: {esc(rule)}")
            if row.get("settings_files"):
                header = f"[plugins.{row['name']}]"
                say(f"  settings: {esc(header)} in {esc(', '.join(row['settings_files']))}")
            if row.get("config") not in (None, {}):
                say(f"  config: {esc(row['config'])}")
            for err in row["errors"]:
                say(f"  [red]error[/red] ({esc(err['hook'])}): {esc(err['message'])}")

    @plugins_app.command("enable")
    def enable_cmd(name: Annotated[str, typer.Argument(help="Plugin or distribution name.")],
                   project: ProjectOpt = False) -> None:
        """Enable a plugin (removes it from `disabled`; at project level, overrides the user's)."""
        out = common.console()
        for line in set_enabled(name, True, project):
            common.say(out, common.esc(line))

    @plugins_app.command("disable")
    def disable_cmd(name: Annotated[str, typer.Argument(help="Plugin or distribution name.")],
                    project: ProjectOpt = False) -> None:
        """Disable a plugin: it is not even imported any more. Comments in the file are kept."""
        out = common.console()
        for line in set_enabled(name, False, project):
            common.say(out, common.esc(line))

    @plugins_app.command("install", context_settings={"ignore_unknown_options": True})
    def install_cmd(packages: Annotated[list[str], typer.Argument(
            help="Distributions (agent-hooks-NAME), wheels or paths; pip options pass through.")]) -> None:
        """pip-install plugins into agenthooks' own environment (like `llm install`)."""
        raise typer.Exit(_run_pip("install", *packages))

    @plugins_app.command("uninstall", context_settings={"ignore_unknown_options": True})
    def uninstall_cmd(names: Annotated[list[str], typer.Argument(
            help="Plugin or distribution names; pip options pass through.")]) -> None:
        """pip-uninstall plugins from agenthooks' own environment (no prompt)."""
        targets = _uninstall_targets(names)
        args = targets if any(a in ("-y", "--yes") for a in targets) else ["-y", *targets]
        raise typer.Exit(_run_pip("uninstall", *args))


def _rule(hook: str) -> str:
    from ..hookspecs.catalogue import BY_NAME

    hd = BY_NAME.get(hook)
    return hd.rule if hd is not None else "runtime hook"
