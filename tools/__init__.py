"""Developer tools run from a checkout (``python -m tools.<name>``), never shipped in the wheel:
the generators of the documents and tables made from the code, and the data only they and the
tests read.

* ``tools.docgen``: docs/hooks.md (from the hookspecs and the catalogue);
* ``tools.dialects_docgen``: docs/dialects.md;
* ``tools.cli_docgen``: the reference part of docs/cli.md (from the typer app);
* ``tools.fields_gen``: hookspecs/_fields.py (the field table the runtime validates with).
"""

from __future__ import annotations

from pathlib import Path

#: the checkout these tools belong to
ROOT = Path(__file__).resolve().parent.parent


def seed_hooks_tsv() -> Path:
    """The seed-hook mapping (system, seed_hook, canonical_hook, rule): the design's record of every
    hook point of every seed system, read by the tests and the docs, not by the runtime."""
    return ROOT / "docs" / "seed-hooks.tsv"
