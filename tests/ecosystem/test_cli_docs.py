"""docs/cli.md covers every command and option the typer app has (its reference part is generated)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from agent_hooks_core.cli.app import build_app
from agent_hooks_core.cli.helptext import finish, walk

from tools import cli_docgen as docgen

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_docs_cli_md_is_current() -> None:
    # the repo's copy: under tox the package is an installed wheel, far from docs/
    text = DOC.read_text(encoding="utf-8")
    assert text == docgen.render(text), "run: python -m tools.cli_docgen"
    assert " at 0x" not in text  # an object's repr as a default: the file would change every run


def test_every_command_and_option_is_in_docs_cli_md() -> None:
    text = DOC.read_text(encoding="utf-8")
    root = typer.main.get_command(build_app(plugin_commands=False))
    finish(root)
    seen = 0
    for path, command in walk(root):
        assert not path or f"### `agenthooks {path}`" in text, path
        for param in command.params:
            for name in [*param.opts, *getattr(param, "secondary_opts", [])]:
                if name.startswith("-"):
                    assert f"`{name}" in text, (path, name)
                    seen += 1
    assert seen > 30
    for option in ("--expect GOLDEN", "--write-expect GOLDEN", "--session-id", "-p no:NAME", "--version"):
        assert option in text  # options once left undocumented, and the newer conventions


def test_check_mode_reports_a_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.md"
    assert docgen.main(["--check", "-o", str(out)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert docgen.main(["-o", str(out)]) == 0
    assert docgen.main(["--check", "-o", str(out)]) == 0


def test_render_replaces_only_the_generated_part() -> None:
    stale = f"# hand-written\n\n{docgen.BEGIN}\nOUTDATED\n{docgen.END}\n\nafter\n"
    fresh = docgen.render(stale)
    assert fresh.startswith("# hand-written\n\n" + docgen.BEGIN) and fresh.endswith(docgen.END + "\n\nafter\n")
    assert "OUTDATED" not in fresh and "### `agenthooks fire`" in fresh
