"""``agenthooks hosts [--json]``: where each host is and what each canonical hook can do there.

``bridges/matrix.py`` gathers the data (and writes docs/hosts/README.md); this module lays it
out for the terminal at any width: the capability matrix is split into as many blocks of hosts
as the width needs.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from . import common

#: the matrix's cells (F, B, R, C) are four characters wide
CELL = 4
GAP = 2


def _capabilities(width: int) -> list[str]:
    from ..bridges import matrix
    from ..bridges.capabilities import of

    hosts = matrix.hosts()
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
            cells = (matrix._cell(of(h).get(hook), h) for h in block)
            lines.append(f"{hook:<{first}}" + (" " * GAP).join(f"{c:<{w}}" for c, w in zip(cells, widths,
                                                                                        strict=True)))
        lines.append("")
    return [line.rstrip() for line in lines]


def text(cwd: str | None, width: int) -> list[str]:
    """The terminal screen: the hosts table, then the capability matrix, every line within ``width``."""
    import textwrap

    from ..bridges import matrix
    from .tables import Column, layout

    rows = []
    for r in (matrix.wiring(h, cwd) for h in matrix.hosts()):
        problems = "; ".join(p.removeprefix("problem: ") for p in r["problems"])
        rows.append([r["host"], ", ".join(r["wired"]) or "no", r["executable"] or "not on PATH", problems])
    columns = [Column("host"), Column("wired in"), Column("executable", text=True), Column("problems", text=True)]
    if not any(row[3] for row in rows):
        columns, rows = columns[:3], [row[:3] for row in rows]
    lines = [line.plain for line in layout(columns, rows, width)]
    legend = ("Capabilities: F fire, B block, R rewrite, C fails closed; — the host cannot fire it; "
              "? not described by the host's adapter yet.")
    lines += ["", *textwrap.wrap(legend, width), "", *_capabilities(width)]
    summary = getattr(matrix, "sandbox_summary", None)  # where agent-hooks-sandbox can wrap commands
    if summary is not None:
        lines += [*textwrap.wrap(summary(), width, subsequent_indent="  ", break_on_hyphens=False), ""]
    other = [h for h in matrix.all_hooks() if h not in matrix.shown_hooks()]
    lines += textwrap.wrap(f"No host bridge fires: {', '.join(other)}.", width, subsequent_indent="  ",
                           break_on_hyphens=False)
    return lines


def register(app: typer.Typer) -> None:
    @app.command("hosts")
    def hosts_cmd(
        as_json: bool = typer.Option(False, "--json", help="print the matrix as JSON"),
        project_dir: Path | None = typer.Option(None, "--dir", help="the project directory (default: here)",
                                                file_okay=False),
    ) -> None:
        """Supported agent hosts: installed, wired, and what each canonical hook can do in each."""
        from ..bridges import matrix

        if project_dir is not None and not project_dir.is_dir():
            common.fail(f"--dir {project_dir}: no such directory")
        cwd = str(project_dir) if project_dir else None
        if as_json:
            typer.echo(json.dumps(matrix.data(cwd), indent=2))
        else:
            typer.echo("\n".join(text(cwd, common.width())))
