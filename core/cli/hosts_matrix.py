"""``agenthooks hosts [HOST] [--json]``: where each host is and what each canonical hook can do there.

``bridges/matrix.py`` gathers the data (and writes docs/hosts/README.md); this module lays it
out for the terminal at any width: the capability matrix is split into as many blocks of hosts
as the width needs. ``hosts HOST`` shows one host in full: what it does when we fail, its own
hook timeout, the version its capabilities were proven on against the one installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from . import common

if TYPE_CHECKING:
    from ..bridges.record import Host

#: the matrix's cells (F, B, R, C and ``*`` for unproven) are five characters wide
CELL = 5
GAP = 2


def _capabilities(width: int, cwd: str | None = None) -> list[str]:
    from ..bridges import matrix
    from ..bridges.capabilities import of

    hosts = matrix.hosts()
    unverified = {h for h in hosts if matrix.version_state(h, cwd)["state"] == "unverified"}

    def cell(hook: str, host: str) -> str:
        cap = of(host).get(hook)
        text = matrix._cell(cap, host)
        # proven, but on another version than the one installed here
        return text + "!" if host in unverified and cap is not None and cap.proven and matrix.claims(cap) else text

    hooks = matrix.shown_hooks()
    first = max(len(h) for h in hooks) + GAP
    blocks: list[list[str]] = [[]]
    used = first
    for host in hosts:  # as many hosts side by side as fit; the rest in the next block
        need = max(len(host), CELL) + GAP
        if blocks[-1] and used + need - GAP > width:
            blocks.append([])
            used = first
        blocks[-1].append(host)
        used += need
    lines: list[str] = []
    for block in blocks:
        widths = [max(len(h), CELL) for h in block]
        lines.append(" " * first + (" " * GAP).join(f"{h:<{w}}" for h, w in zip(block, widths, strict=True)))
        for hook in hooks:
            cells = (cell(hook, h) for h in block)
            lines.append(f"{hook:<{first}}" + (" " * GAP).join(f"{c:<{w}}" for c, w in zip(cells, widths,
                                                                                        strict=True)))
        lines.append("")
    return [line.rstrip() for line in lines]


def text(cwd: str | None, width: int) -> list[str]:
    """The terminal screen: the hosts table, then the capability matrix, every line within ``width``."""
    import textwrap

    from ..bridges import matrix, registry
    from .tables import Column, layout

    rows = []
    matrix.prefetch_versions(matrix.hosts(), cwd)
    for r in (matrix.wiring(h, cwd) for h in matrix.hosts()):
        problems = "; ".join(p.removeprefix("problem: ") for p in r["problems"])
        rows.append([r["host"], ", ".join(r["wired"]) or "no", r["executable"] or "not on PATH",
                     _version_cell(matrix.version_state(r["host"], cwd)), _timeout_cell(registry.get(r["host"])),
                     problems])
    columns = [Column("host"), Column("wired in"), Column("executable", text=True), Column("version", text=True),
               Column("on its hook timeout", text=True), Column("problems", text=True)]
    if not any(row[-1] for row in rows):
        columns, rows = columns[:-1], [row[:-1] for row in rows]
    lines = [line.plain for line in layout(columns, rows, width)]
    legend = ("On its hook timeout: what the host does when a hook passes the host's own limit; \"open\": it "
              "lets the tool run, so there the host cannot be made to fail closed (our own deadline answers "
              "before that limit). Version: the one installed here against the one the capabilities were "
              "proven on with the real agent; \"unverified\": another version, whose behaviour may differ; "
              "\"protocol-tested\": no binary to run. `agenthooks hosts HOST` shows one host in full; "
              "`agenthooks hosts --verify HOST` checks its wiring here.")
    lines += ["", *textwrap.wrap(legend, width)]
    legend = ("Capabilities: F fire, B block, R rewrite, C fails closed; * not proven on the real agent "
              "(protocol-tested only); ! proven on another version than the one installed here (unverified); "
              "— the host cannot fire it; ? not described by the host's adapter yet.")
    lines += ["", *textwrap.wrap(legend, width), "", *_capabilities(width, cwd)]
    summary = getattr(matrix, "sandbox_summary", None)  # where agent-hooks-sandbox can wrap commands
    if summary is not None:
        lines += [*textwrap.wrap(summary(), width, subsequent_indent="  ", break_on_hyphens=False), ""]
    other = [h for h in matrix.all_hooks() if h not in matrix.shown_hooks()]
    lines += textwrap.wrap(f"No host bridge fires: {', '.join(other)}.", width, subsequent_indent="  ",
                           break_on_hyphens=False)
    return lines


def _version_cell(state: dict[str, Any]) -> str:
    kind = state["state"]
    if kind in ("protocol-tested", "not installed"):
        return kind if kind == "protocol-tested" else f"proven {state['proven']}"
    have = state["installed"] or "unknown"
    return have if kind == "verified" else f"{have} (unverified; proven {state['proven']})"


def _timeout_cell(record: Host) -> str:
    t = record.timeout
    if t is None:
        return "not described"
    if t.seconds is None:
        return "no limit (ours blocks)" if t.closed else "no limit"
    return f"{'blocks' if t.closed else 'open'} at {t.seconds:g} s"


def detail(name: str, cwd: str | None, width: int) -> list[str]:
    """``agenthooks hosts NAME``: one host in full."""
    import textwrap

    from ..bridges import matrix, registry
    from ..bridges.capabilities import of

    record = registry.get(name)
    r = matrix.wiring(record.name, cwd)
    version = matrix.version_state(record.name, cwd)
    facts = [
        ("host", f"{record.name}: {record.title}" + (f" (also {', '.join(record.aliases)})" if record.aliases else "")),
        ("transport", record.transport),
        ("configuration", record.config.files),
        ("executable", r["executable"] or "not on PATH"),
        ("version", matrix.version_line(record.name, version)),
        ("wired in", ", ".join(r["wired"]) or "no"),
        ("when we fail", record.failure),
        ("its hook timeout", matrix.timeout_line(record)),
        ("page", f"docs/hosts/{record.docs}"),
        *(("problem", p.removeprefix("problem: ")) for p in r["problems"]),
    ]
    lines: list[str] = []
    label = max(len(k) for k, _ in facts) + GAP
    for key, value in facts:
        lines += textwrap.wrap(value, width, initial_indent=f"{key:<{label}}", subsequent_indent=" " * label,
                               break_on_hyphens=False) or [key]
    caps = of(record.name)
    if caps:
        lines += ["", "hook: flags, what it claims, proven on (* = not proven on the real agent)"]
        for hook in (h for h in matrix.all_hooks() if h in caps):
            cap = caps[hook]
            claimed = ", ".join(matrix.claims(cap)) or "fires only"
            proven = cap.proven or ("protocol-tested" if matrix.claims(cap) else "")
            text = f"{hook}: {matrix._cell(cap, record.name)} {claimed}" + (f"; {proven}" if proven else "") + \
                f" ({cap.via})"
            lines += textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
    if version["state"] == "unverified":
        lines += ["", *textwrap.wrap(f"Unverified: {matrix.version_line(record.name, version)}. Every capability "
                                     "above was proven on another version; `agenthooks hosts --verify "
                                     f"{record.name}` checks your wiring.", width)]
    return lines


def _verify(name: str, cwd: str | None, as_json: bool) -> int:
    """``hosts --verify HOST``: the checklist; 0 when nothing failed, 1 otherwise."""
    from ..bridges import registry
    from ..bridges.verify import verify

    record = registry.find(name)
    if record is None:
        common.fail(f"unknown host {name!r} (known: {', '.join(registry.names())})")
    checks = verify(record.name, cwd)
    failed = [c for c in checks if c.status == "fail"]
    if as_json:
        typer.echo(json.dumps({"host": record.name, "ok": not failed,
                               "checks": [{"status": c.status, "message": c.message} for c in checks]}, indent=2))
        return 1 if failed else 0
    from rich.text import Text

    from .tables import hanging

    out = common.console()
    out.print(f"{common.esc(record.title)} ({record.name}): the wiring on this machine", soft_wrap=True)
    for check in checks:
        label, style = {"ok": ("ok", "green"), "fail": ("FAIL", "red"), "note": ("note", "cyan")}[check.status]
        for line in hanging(Text.assemble("  ", (f"{label:<5}", style), " "), check.message, out.width):
            out.print(line, soft_wrap=True)
    out.print(f"{len(failed)} check(s) failed" if failed else "every check passed (the agent itself was not run: "
              "it needs a model)", soft_wrap=True)
    return 1 if failed else 0


def register(app: typer.Typer) -> None:
    @app.command("hosts")
    def hosts_cmd(
        name: str | None = typer.Argument(None, help="one host, shown in full", show_default=False),
        as_json: bool = typer.Option(False, "--json", help="print the matrix as JSON"),
        verify_host: str | None = typer.Option(
            None, "--verify", metavar="HOST",
            help="check HOST's wiring here: our hooks configured, its trust switches on, and the configured "
                 "command blocking a tool call it cannot check; exit 1 when something fails"),
        project_dir: Path | None = typer.Option(None, "--dir", help="the project directory (default: here)",
                                                file_okay=False),
    ) -> None:
        """Supported agent hosts: installed, wired, and what each canonical hook can do in each."""
        from ..bridges import matrix, registry

        if project_dir is not None and not project_dir.is_dir():
            common.fail(f"--dir {project_dir}: no such directory")
        cwd = str(project_dir) if project_dir else None
        if verify_host is not None:
            raise typer.Exit(_verify(verify_host, cwd, as_json))
        if name is not None:
            record = registry.find(name)
            if record is None:
                common.fail(f"unknown host {name!r} (known: {', '.join(registry.names())})")
            if as_json:
                entry = next(h for h in matrix.data(cwd)["hosts"] if h["host"] == record.name)
                typer.echo(json.dumps(entry, indent=2))
            else:
                typer.echo("\n".join(detail(record.name, cwd, common.width())))
            return
        if as_json:
            typer.echo(json.dumps(matrix.data(cwd), indent=2))
        else:
            typer.echo("\n".join(text(cwd, common.width())))
