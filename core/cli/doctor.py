"""``agenthooks doctor`` (what is wrong and why) and ``agenthooks trust`` (project code)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import __version__
from ..settings import SettingsError
from . import common
from .common import echo_json, fail

if TYPE_CHECKING:
    from ..runtime import Runtime
    from ..settings import Settings
    from ..trust import TrustItem, TrustState


@dataclass
class Finding:
    level: str
    """ok, info, warning, error"""
    section: str
    message: str
    plugin: str | None = None


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"agent-hooks-core": __version__, "python": sys.version.split()[0], "executable": sys.executable}
    for dist in ("pluggy", "pydantic", "typer", "rich", "tomlkit", "platformdirs"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def diagnose() -> tuple[dict[str, str], list[Finding], list[dict[str, Any]]]:
    """Everything doctor reports: versions, findings (levels ok/info/warning/error), plugin rows."""
    from ..discovery import clear_cache, configure, info_dict, plan_of
    from ..discovery.gate import NAME as GATE
    from .plugins import rows

    findings: list[Finding] = []
    add = findings.append
    versions = _versions()
    plugin_rows: list[dict[str, Any]] = []
    try:
        settings = common.settings()
    except SettingsError as exc:
        add(Finding("error", "settings", str(exc)))
        return versions, findings, plugin_rows
    for f in settings.files:
        label = f"{f.scope} settings"
        if f.scope == "project" and settings.project_root is not None:
            label += f" (project {settings.project_root})"
        add(Finding("ok", "settings", f"{label}: {f.path}" + ("" if f.exists else " (none)")))
    for w in settings.warnings:
        add(Finding("warning", "settings", w))
    if settings.plugins_env is not None:
        add(Finding("info", "settings", f"AGENT_HOOKS_PLUGINS={','.join(settings.plugins_env)}: "
                                        "only these entry-point plugins load"))
    if not settings.autoload:
        add(Finding("info", "settings", "AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD=1: entry-point plugins do not load"))
    if settings.organisation is not None:
        add(Finding("ok", "settings", f"organisation policy: {settings.organisation.source} "
                                      f"(copy in use: {settings.organisation.path})"))
    if settings.organisation_error is not None:
        add(Finding("error", "settings", f"{settings.organisation_error}; gating hooks deny until it is fixed"))
    for name, origin in settings.required.items():
        add(Finding("info", "settings", f"required: {name} (in {origin})", name))

    clear_cache()  # doctor always looks at what is installed now
    rt = common.runtime(use_cache=False)
    the_plan = plan_of(rt)
    for w in the_plan.warnings if the_plan is not None else ():
        if w not in settings.warnings:
            add(Finding("warning", "settings", w))
    for notice in the_plan.notices if the_plan is not None else ():
        add(Finding("warning", "trust" if "untrusted" in notice else "settings", notice))
    try:  # the warm server and stdio sessions: running, port, enforced policy per runtime
        from ..serve.report import findings as serve_findings

        for level, line in serve_findings():
            add(Finding(level, "serve", line))
    except Exception as exc:  # a server check must not break doctor
        add(Finding("info", "serve", f"server check unavailable: {type(exc).__name__}: {exc}"))
    gate_info = rt.plugin_info.get(GATE)
    if gate_info is not None:
        add(Finding("error", "plugins", f"gating hooks deny every call: {info_dict(gate_info).get('reason')}"))
    plugin_rows = rows(rt)
    seen_errors = set()
    for err in rt.load_errors:
        seen_errors.add(err.plugin)
        add(Finding("error", "plugins", common.load_error_line(err), err.plugin))
    for row in plugin_rows:
        name = str(row.get("name"))
        status = row.get("status")
        if status == "untrusted":
            add(Finding("warning", "plugins", f"plugin {name!r} not loaded (untrusted): {row.get('reason')}", name))
        elif status == "tampered":
            add(Finding("error", "plugins", f"plugin {name!r} was tampered with: {row.get('reason')}; "
                                            "gating hooks deny while it is", name))
        elif status == "failed" and name not in seen_errors:
            add(Finding("error", "plugins", f"plugin {name!r} not loaded: {row.get('reason')}", name))
        elif status == "loaded":
            if not row.get("hooks") and row.get("source") != "builtin":
                add(Finding("warning", "plugins", f"plugin {name!r} implements no hooks", name))
            names = [name] + ([row["distribution"]] if row.get("distribution") else [])
            effective = the_plan.settings if the_plan is not None else settings
            section, origins = effective.plugin_section(names)
            if origins:
                add(Finding("info", "plugins", f"[plugins.{name}] from {', '.join(origins)} (later wins)", name))
            if section is None:
                message = configure(rt, name, None, validate_empty=True)
                if message is not None:
                    add(Finding("error", "plugins", f"plugin {name!r} needs settings: {message}", name))
    counts = {s: sum(1 for r in plugin_rows if r.get("status") == s)
              for s in ("loaded", "disabled", "failed", "untrusted", "tampered")}
    if not counts["tampered"]:
        del counts["tampered"]
    add(Finding("ok" if not counts["failed"] else "info", "plugins",
                ", ".join(f"{n} {s}" for s, n in counts.items())))
    from .replay import plugin_reports

    for line in plugin_reports(rt):  # what plugins say about their state (the audit: records kept and lost)
        add(Finding("info", "plugins", line))

    if settings.project_root is not None:
        from .. import trust

        state = trust.state(settings)
        items = trust.current_items(settings)
        if state.trusted:
            stale = [i for i in items if state.pins.get(i.path) != i.digest]
            if stale:
                add(Finding("warning", "trust", f"project {settings.project_root}: {len(stale)} item(s) changed or "
                                                "added since it was trusted; `agenthooks trust` to allow them"))
            else:
                add(Finding("ok", "trust", f"project {settings.project_root} is trusted ({len(items)} item(s) pinned)"))
        elif items:
            add(Finding("warning", "trust", f"project {settings.project_root} is not trusted: its {len(items)} "
                                            "code item(s) do not load; `agenthooks trust` to allow them"))
    from ..controlplane import unexpected_startup_files

    for path in unexpected_startup_files():
        add(Finding("warning", "plugins", f"{path} runs at every Python start, belongs to no installed "
                                          "distribution and is newer than all of them: check who wrote it"))
    from ..bridges import registry

    for problem in registry.problems():  # a host distribution that could not register
        add(Finding("error", "hosts", problem))
    for record in registry.hosts():  # every host's installer says how its wiring looks
        host = record.name
        try:
            for line in record.load_installer().status(common.OPTIONS.cwd):
                level, _, message = line.partition(": ")
                add(Finding({"ok": "ok", "problem": "error"}.get(level, "info"), "hosts", message))
        except Exception as exc:  # a host check must not break doctor
            add(Finding("info", "hosts", f"{host} check unavailable: {type(exc).__name__}: {exc}"))
    _host_limits(add)
    _plugin_checks(rt, plugin_rows, add)
    return versions, findings, plugin_rows


def _host_limits(add: Callable[[Finding], object]) -> None:
    """For each host installed or wired here: what it does at its own hook timeout (where that is
    open, no answer of ours can make it fail closed) and whether its version is the one proven."""

    from ..bridges import matrix, registry

    cwd = common.OPTIONS.cwd
    matrix.prefetch_versions(matrix.hosts(), cwd)
    for record in registry.hosts():
        try:
            installer = record.load_installer()
            wired = list(installer.wired(cwd)) if hasattr(installer, "wired") else []
            if not wired and matrix.executable(record.name) is None:
                continue
            t = record.timeout
            if t is not None:
                level = "warning" if wired and not t.closed and t.seconds is not None else "info"
                add(Finding(level, "hosts", f"{record.name}: {matrix.timeout_line(record)}"))
            state = matrix.version_state(record.name, cwd)
            if state["state"] == "unverified":
                add(Finding("warning", "hosts", f"{record.name}: {matrix.version_line(record.name, state)}: "
                                                f"`agenthooks hosts {record.name}` shows what was proven"))
            elif state["state"] in ("verified", "unknown", "protocol-tested"):
                add(Finding("info", "hosts", f"{record.name}: {matrix.version_line(record.name, state)}"))
        except Exception as exc:  # a host check must not break doctor
            add(Finding("info", "hosts", f"{record.name} check unavailable: {type(exc).__name__}: {exc}"))


def _plugin_checks(rt: Runtime, plugin_rows: list[dict[str, Any]], add: Callable[[Finding], object]) -> None:
    """A loaded plugin's own checks: a module-level ``doctor_findings(config, wired_hosts)`` returning
    (level, message) pairs (the sandbox: is bubblewrap usable, can each wired host rewrite)."""
    from ..bridges import matrix

    checks = []
    for row in plugin_rows:
        name = str(row.get("name"))
        obj = rt.pm.get_plugin(name) if row.get("status") == "loaded" else None
        check = getattr(obj, "doctor_findings", None)
        if callable(check):
            checks.append((name, check))
    if not checks:
        return
    wired = [h for h in matrix.hosts() if matrix.wiring(h, common.OPTIONS.cwd)["wired"]]
    for name, check in checks:
        try:
            for level, message in check(rt.context(name).config, wired):
                add(Finding(level if level in _STYLE else "info", "plugins", str(message), name))
        except Exception as exc:  # a plugin's check must not break doctor
            add(Finding("error", "plugins", f"plugin {name!r}: its doctor check failed: {type(exc).__name__}: {exc}",
                        name))


_STYLE = {"ok": "green", "info": "cyan", "warning": "yellow", "error": "red"}


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor_cmd(json_: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
        """Load errors, settings problems, trust, hosts and versions. Exit 1 when something is broken."""
        versions, findings, plugin_rows = diagnose()
        errors = sum(1 for f in findings if f.level == "error")
        warnings = sum(1 for f in findings if f.level == "warning")
        if json_:
            echo_json({"versions": versions, "findings": [asdict(f) for f in findings],
                       "plugins": plugin_rows, "errors": errors, "warnings": warnings})
        else:
            from rich.text import Text

            from .tables import hanging

            out = common.console()

            def say(prefix: str | Text, body: str) -> None:
                for line in hanging(prefix, body, out.width):
                    out.print(line, soft_wrap=True)

            say("", f"agenthooks {versions['agent-hooks-core']} (Python {versions['python']} at "
                    f"{versions['executable']})")
            say("  ", "  ·  ".join(f"{k}\u00a0{v}" for k, v in versions.items()
                                   if k not in ("agent-hooks-core", "python", "executable")))
            section = None
            for f in findings:
                if f.section != section:
                    section = f.section
                    out.print(f"\n[bold]{common.esc(section)}[/bold]")
                say(Text.assemble("  ", (f"{f.level:<8}", _STYLE[f.level]), " "), f.message)
            out.print(f"\n{errors} error(s), {warnings} warning(s)")
        raise typer.Exit(1 if errors else 0)

    @app.command("trust")
    def trust_cmd(
        path: Annotated[Path | None, typer.Argument(
            help="A directory of the project (default: the current directory).")] = None,
        show: Annotated[bool, typer.Option("--show", help="Show what is pinned and what changed; change nothing.")]
        = False,
        revoke: Annotated[bool, typer.Option("--revoke", help="Forget this project: its code stops loading.")]
        = False,
        list_: Annotated[bool, typer.Option("--list", help="List the trusted projects.")] = False,
        json_: Annotated[bool, typer.Option(
            "--json", help="Machine-readable output of --show (the default with --json), --list or --revoke.")]
        = False,
    ) -> None:
        """Allow this project's hook files, settings hooks and settings policy, and your user hook files, to load, pinned to their content.

        A file that changes afterwards (or a new one) does not load until you trust again; a
        changed `disabled`, plugin section or timeout is ignored until then. Outside a project,
        only your user hook files are pinned.
        """
        from .. import trust
        from ..settings import find_project_root, load_settings

        chosen = [flag for flag, on in (("--show", show), ("--revoke", revoke), ("--list", list_)) if on]
        if len(chosen) > 1:
            fail(f"{' and '.join(chosen)} cannot be combined: choose one")
        # --json alone asks to see the state: trusting must never be a side effect of a format flag
        show = show or (json_ and not chosen)
        if list_:
            projects = trust.trusted_projects()
            if json_:
                echo_json([{"project": root, "pinned": len(pins)} for root, pins in sorted(projects.items())])
                return
            for root, pins in sorted(projects.items()):
                print(f"{root}  ({len(pins)} item(s) pinned)")
            return
        where = path or Path(common.OPTIONS.cwd)
        if not where.is_dir():
            fail(f"{where}: not a directory")
        project_root = find_project_root(where)
        if project_root is None and revoke:
            fail(f"no project at {where.resolve()}: a project is a directory holding .agent-hooks/")
        if project_root is None:
            _trust_user(load_settings(where, common.OPTIONS.settings_path), show, json_)
            return
        if revoke:
            removed = trust.revoke(project_root)
            if json_:
                echo_json({"project": str(project_root), "revoked": removed})
            elif removed:
                print(f"Revoked trust in {project_root}: its hook files and settings hooks no longer load")
            else:
                print(f"{project_root} was not trusted")
            return
        settings = load_settings(project_root, common.OPTIONS.settings_path)
        state = trust.state(settings)
        if show:
            rows = [{"kind": item.kind, "path": item.path, "status": item_status(state, item)}
                    for item in trust.current_items(settings)]
            user_rows = _user_rows(settings)
            if json_:
                echo_json({"project": str(project_root), "trusted": state.trusted, "items": rows,
                           "user": user_rows})
                return
            from .tables import Column

            out = common.console()
            common.say(out, common.esc(f"project: {project_root}"))
            common.say(out, f"status:  {'trusted' if state.trusted else 'not trusted'}")
            if rows:
                out.print()
                common.print_table([Column("status"), Column("kind"), Column("path", text=True)],
                                   [[r["status"], r["kind"], _relative(r["path"], project_root)] for r in rows], out)
            _print_user_rows(user_rows)
            return
        user_rows = _user_rows(settings)
        pinned = trust.trust(settings)
        user_pinned = trust.trust_user(settings)
        if json_:
            echo_json({"project": str(project_root), "store": str(trust.store_path()),
                       "pinned": [asdict(i) for i in pinned], "user": [asdict(i) for i in user_pinned]})
            return
        _print_user_rows(user_rows, changed_only=True)
        if user_pinned:
            print(f"Trusted your user hook files ({len(user_pinned)} pinned)")
        print(f"Trusted {project_root} ({len(pinned)} item(s) pinned in {trust.store_path()}):")
        for item in pinned:
            print(f"  {item.kind:<12} {item.path}  {item.digest[:19]}…")
        if not pinned:
            print("  (nothing to pin yet: hook files added later need `agenthooks trust` again)")


def _user_rows(settings: Settings) -> list[dict[str, str]]:
    """The user hook files now, and the pinned ones that are gone: what `trust` would change."""
    from .. import trust

    state = trust.user_state()
    items = trust.current_user_items(settings)
    rows = [{"kind": item.kind, "path": item.path, "status": item_status(state, item)} for item in items]
    now = {item.path for item in items}
    rows.extend({"kind": "hook-file", "path": path, "status": "removed"} for path in sorted(state.pins)
                if path not in now)
    return rows


def _print_user_rows(rows: list[dict[str, str]], changed_only: bool = False) -> None:
    shown = [r for r in rows if not changed_only or r["status"] != "trusted"]
    if not rows or (changed_only and not shown):
        return
    print("user hook files" + (" (what changed):" if changed_only else ":"))
    for row in shown:
        status = row["status"].split(",")[0] if changed_only else row["status"]  # new, changed, removed
        print(f"  {status:<9} {row['kind']:<9} {row['path']}")


def _trust_user(settings: Settings, show: bool, json_: bool) -> None:
    """`agenthooks trust` outside a project: the user hook files only."""
    from .. import trust

    rows = _user_rows(settings)
    if show:
        if json_:
            echo_json({"project": None, "user": rows})
        elif rows:
            _print_user_rows(rows)
        else:
            print("No user hook files (and no project here).")
        return
    pinned = trust.trust_user(settings)
    if json_:
        echo_json({"project": None, "store": str(trust.store_path()), "user": [asdict(i) for i in pinned]})
        return
    _print_user_rows(rows, changed_only=True)
    print(f"Trusted your user hook files ({len(pinned)} pinned in {trust.store_path()})")
def _relative(path: str, root: Path) -> str:
    """A path inside the project as the user reads it there (``.agent-hooks/hooks/x.py``)."""
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return path


def item_status(state: TrustState, item: TrustItem) -> str:
    """What ``trust --show`` says of one item: whether it loads (or applies) as it is now."""
    pin = state.pins.get(item.path)
    off = "ignored" if item.kind == "policy" else "not loaded"
    if not state.trusted:
        return f"untrusted, {off}"
    if pin == item.digest:
        return "trusted"
    return f"changed, {off}" if pin else f"new, {off}"
