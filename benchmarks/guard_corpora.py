"""agent-hooks-guard: how much of each corpus it catches, and how much ordinary work it blocks.

    python benchmarks/guard_corpora.py                 # the table
    python benchmarks/guard_corpora.py --json          # the numbers, and every miss
    python benchmarks/guard_corpora.py --write-readme  # also replace the table in plugins/guard/README.md

Corpora (``block<TAB>command`` / ``allow<TAB>command`` lines, ``⏎`` a newline): the shipped one
(``corpus.tsv``, what ``agenthooks guard test --shipped`` runs), ``heldout.tsv`` (written before
the effect model; its misses guided the category rules, so it is no longer unseen) and
``heldout2.tsv`` (written afterwards and measured without any change made for it) and
``heldout3.tsv`` (held-out C: written from the categories alone and committed before the guard was
run on it; its misses were then fixed by class, and FIRST keeps the figures from before). Each command is
decided with the default settings, no UI, in a fresh project directory under a fresh ``HOME`` (a
child process, so nothing of the machine's own settings or home leaks in). "caught" is the share
of ``block`` lines blocked; "false positives" the share of ``allow`` lines blocked.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUARD = ROOT / "plugins" / "guard" / "agent_hooks_guard"
README = ROOT / "plugins" / "guard" / "README.md"
BEGIN, END = "<!-- guard_corpora:begin -->", "<!-- guard_corpora:end -->"
CORPORA = [("shipped", GUARD / "corpus.tsv"), ("held-out A (seen)", GUARD / "heldout.tsv"),
           ("held-out B", GUARD / "heldout2.tsv"), ("held-out C", GUARD / "heldout3.tsv")]
#: each held-out corpus's first measurement, before any change made for it: (caught, wrongly blocked).
#: A and B: as measured before held-out C was written (A had already guided the rules); C: measured
#: right after it was committed, before the rules that fix its misses
FIRST = {"heldout.tsv": (137, 0), "heldout2.tsv": (81, 0), "heldout3.tsv": (214, 5)}

_CHILD = r"""
import json, sys
from agent_hooks_guard.policy import Policy, resolve
pol = Policy(resolve(None), sys.argv[1])
out = []
for path in sys.argv[2:]:
    for n, line in enumerate(open(path, encoding="utf-8"), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        expect, _, command = line.rstrip("\n").partition("\t")
        check = pol.check_command(command.replace("\u23ce", "\n"))
        out.append({"corpus": path, "line": n, "expect": expect, "command": command,
                    "got": "block" if check.findings else "allow", "reason": check.reason})
print(json.dumps(out))
"""


def measure() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory(prefix="guard-corpora-") as tmp:
        home, project = Path(tmp) / "home" / "me", Path(tmp) / "work" / "project"
        home.mkdir(parents=True)
        project.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_HOOKS_", "XDG_"))}
        env["HOME"] = str(home)
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(project), *(str(p) for _, p in CORPORA)],
                              env=env, capture_output=True, text=True, check=True, timeout=600)
    results = json.loads(proc.stdout)
    rows = []
    for name, path in CORPORA:
        mine = [r for r in results if r["corpus"] == str(path)]
        blocks = [r for r in mine if r["expect"] == "block"]
        allows = [r for r in mine if r["expect"] == "allow"]
        caught = sum(r["got"] == "block" for r in blocks)
        wrong = sum(r["got"] == "block" for r in allows)
        rows.append({"corpus": name, "file": path.name, "dangerous": len(blocks), "caught": caught,
                     "benign": len(allows), "false_positives": wrong,
                     "caught_pct": 100.0 * caught / max(1, len(blocks)),
                     "fp_pct": 100.0 * wrong / max(1, len(allows)),
                     "misses": [r["command"] for r in blocks if r["got"] != "block"],
                     "blocked_benign": [r["command"] for r in allows if r["got"] == "block"]})
    return rows


def table(rows: list[dict[str, object]]) -> str:
    lines = ["| corpus | dangerous | caught | benign | wrongly blocked | before (caught / wrongly blocked) |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        first = FIRST.get(str(r["file"]))
        before = (f"{first[0]} ({100.0 * first[0] / max(1, int(str(r['dangerous']))):.1f} %) / {first[1]} "
                  f"({100.0 * first[1] / max(1, int(str(r['benign']))):.1f} %)") if first else "-"
        lines.append(f"| {r['corpus']} (`{r['file']}`) | {r['dangerous']} | {r['caught']} ({r['caught_pct']:.1f} %) "
                     f"| {r['benign']} | {r['false_positives']} ({r['fp_pct']:.1f} %) | {before} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args()
    rows = measure()
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(table(rows))
    if args.write_readme:
        text = README.read_text(encoding="utf-8")
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        README.write_text(text[:start] + "\n" + table(rows) + "\n" + text[end:], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
