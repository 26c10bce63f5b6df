"""The repository stands on its own: nothing cites a design or reference file outside it, nor an
issue tracker's numbers (a comment says the reason itself)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: how the outside design directory was cited before its contents moved to docs/ and core/data/
OUTSIDE = re.compile(r"\.\./shared/|(?<![\w/])DESIGN\.md|(?<![\w/])host-protocols\.md")
#: "issue 17.5", "Issues 12.6": numbers defined nowhere in the repository
ISSUE = re.compile(r"\b[Ii]ssues? \d+")


def test_no_file_points_outside_the_repository() -> None:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    files = listed.stdout.split() if listed.returncode == 0 else [
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    offenders = []
    for name in files:
        path = ROOT / name
        if path.suffix not in {".py", ".md", ".toml", ".ini", ".txt", ".tsv", ".cfg"} or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if (OUTSIDE.search(line) or ISSUE.search(line)) and path.name != "test_self_contained.py":
                offenders.append(f"{name}:{number}: {line.strip()[:80]}")
    assert offenders == []
