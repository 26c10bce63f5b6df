"""A ratchet on ``Any`` in the core package: typed contracts replace it step by step, and it does
not creep back. ``python tests/ecosystem/test_any_density.py`` prints the figure and the worst files.

The figure is ``Any`` names in code (not in comments or strings) per 1,000 lines of
``core/`` and ``hookspecs/`` (the package ``agent_hooks_core``). Lower :data:`CEILING` when it falls.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (ROOT / "core", ROOT / "hookspecs")
CEILING = 12.4


def count(path: Path) -> tuple[int, int]:
    """(``Any`` names in code, lines) of one file."""
    text = path.read_text(encoding="utf-8")
    names = sum(1 for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.NAME and tok.string == "Any")
    return names, len(text.splitlines())


def per_file() -> dict[Path, tuple[int, int]]:
    return {path: count(path) for base in SOURCES for path in sorted(base.rglob("*.py"))}


def density(counts: dict[Path, tuple[int, int]]) -> float:
    names = sum(n for n, _ in counts.values())
    lines = sum(n for _, n in counts.values())
    return 1000 * names / lines


def test_any_per_thousand_lines_stays_under_the_ceiling() -> None:
    figure = density(per_file())
    assert figure <= CEILING, f"Any per 1,000 lines is {figure:.1f}, over the ceiling {CEILING}: type the new code"


def test_the_count_reads_code_only(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text('from typing import Any\n# Any here is a comment\nx: Any = "Any"\n', encoding="utf-8")
    assert count(sample) == (2, 3)


if __name__ == "__main__":
    counts = per_file()
    print(f"{density(counts):.2f} Any per 1,000 lines")
    for path, (names, lines) in sorted(counts.items(), key=lambda kv: -kv[1][0])[:15]:
        print(f"{names:4} {lines:6}  {path.relative_to(ROOT)}")
