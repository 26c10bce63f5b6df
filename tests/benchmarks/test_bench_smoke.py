"""The benchmark runner runs every row (`benchmarks/run.py --quick`); no timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"


def test_quick_run_prints_every_row_with_a_ratio() -> None:
    out = subprocess.run([sys.executable, str(RUN), "--quick", "--json"], capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    for name in ("B1", "B1h", "B1f", "B1r", "B2", "B3", "B4", "B4n", "B4f", "B4c", "B4cn", "B5", "B5c", "B6", "B6b", "G1p", "G10p", "G50p", "G1KB", "G100KB", "G1MB"):
        assert name in rows, name
        assert rows[name]["value_s"] > 0 and rows[name]["baseline_s"] > 0, rows[name]
        assert rows[name]["ratio"] and rows[name]["ratio"] > 0, rows[name]
        assert not rows[name]["note"].startswith("bridge exit"), rows[name]["note"]
    assert not rows["B4"]["note"].startswith("not relayed"), rows["B4"]["note"]
    assert "B7" in rows  # a row, even while agenthooks serve does not exist
    # an extra benchmark that cannot run says why in a row of its own (b*_*.py): none may
    broken = [row["name"] + ": " + row["what"] for row in rows.values() if row["what"].startswith("failed:")]
    assert not broken, broken


def test_the_table_renders_every_column() -> None:
    sys.path.insert(0, str(RUN.parent))
    try:
        import run  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(RUN.parent))
    text = run.table([run.Row("B1", "x", 2e-6, "y", 1e-6, target="<= 1.5x")])
    assert "| B1 | x | 2.0 us | y | 1.0 us | 2.00x | <= 1.5x |  |" in text
