"""``agenthooks hosts [--json]``: the capability matrix (``bridges/matrix.py`` builds it)."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("hosts")
    def hosts_cmd(
        as_json: bool = typer.Option(False, "--json", help="print the matrix as JSON"),
        project_dir: Path | None = typer.Option(None, "--dir", help="the project directory (default: here)",
                                                file_okay=False),
    ) -> None:
        """Supported agent hosts: installed, wired, and what each canonical hook can do in each."""
        from ..bridges import matrix

        cwd = str(project_dir) if project_dir else None
        if as_json:
            typer.echo(json.dumps(matrix.data(cwd), indent=2))
        else:
            typer.echo(matrix.text(cwd), nl=False)
