"""docs/dialects.md is generated from the dialects and is current; the data it is made of is complete."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from agent_hooks_core.dialects import get_dialect
from agent_hooks_core.dialects.omp import LAST_RESULT_HOOKS, RULES
from agent_hooks_core.hookspecs.catalogue import BY_NAME

from tools import dialects_docgen as docgen
from tools import seed_hooks_tsv

# the repo's copy: under tox the package is an installed wheel, far from docs/
DOC = Path(__file__).resolve().parents[2] / "docs" / "dialects.md"
TSV = seed_hooks_tsv()


def test_docs_dialects_md_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == docgen.render(), "run: python -m tools.dialects_docgen"


def test_check_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "dialects.md"
    assert docgen.main(["--check", "-o", str(out)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert docgen.main(["-o", str(out)]) == 0
    assert docgen.main(["--check", "-o", str(out)]) == 0


def test_every_seed_row_is_in_its_table() -> None:
    text = docgen.render()
    with TSV.open(newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            hook = row["canonical_hook"]
            assert f"| `{row['seed_hook']}` | [`{hook}`](hooks.md#{hook}) |" in text, row


@pytest.mark.parametrize("name", ["chibi", "pi", "omp"])
def test_every_hook_that_answers_has_a_documented_shape(name: str) -> None:
    d = get_dialect(name)
    answering = {hook for hook in d.names.values() if not BY_NAME[hook].observe}
    assert answering <= set(d.shapes)
    assert set(d.rules) <= set(d.names.values()) and set(d.notes) <= set(d.names.values())


def test_omp_rules_cover_the_hooks_it_reduces_differently() -> None:
    omp = get_dialect("omp")
    assert set(RULES) > LAST_RESULT_HOOKS
    assert all(omp.reduction(hook) is not None for hook in LAST_RESULT_HOOKS)
    assert omp.reduction("pre_llm_context") is None and get_dialect("pi").reduction("pre_tool") is None
