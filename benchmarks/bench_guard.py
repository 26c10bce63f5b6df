"""agent-hooks-guard: decision time by command size (p50/p99), for the table in plugins/guard/README.md.

    python benchmarks/bench_guard.py                 # the table (about a minute)
    python benchmarks/bench_guard.py --quick         # small sizes, few runs: checks that it runs
    python benchmarks/bench_guard.py --write-readme  # also replace the table in plugins/guard/README.md

CPU time (``time.process_time``: the work of the decision) and wall time (what the agent waits,
which on a shared machine includes waiting for a CPU) are both reported.
A decision is ``Policy.check_tool("bash", {"command": ...})``: the whole shell check of a
``pre_tool`` call (parse, every rule of every pack, interpreter one-liners), default settings.
Shapes: ``words`` (a command line of short arguments, like ``git add`` of many files), ``token``
(one long argument, the issue's ``echo AAAA...``), ``mixed`` (quotes, substitutions, pipes,
separators, one-liners, repeated). Commands over ``max_command_bytes`` (64 KiB) are judged on their
first 64 KiB and blocked as ``too-large``: that is what the 1 MB and 50 MB rows time.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "plugins" / "guard" / "README.md"
BEGIN, END = "<!-- bench_guard:begin -->", "<!-- bench_guard:end -->"

SIZES = [("100 B", 100), ("10 KB", 10_000), ("1 MB", 1_000_000), ("50 MB", 50_000_000)]
RUNS = {100: 3000, 10_000: 600, 1_000_000: 60, 50_000_000: 8}
_MIXED = ("git status && echo \"$(date)\" | tee -a log.txt; python3 -c 'print(1)' > out.txt; "
          "grep -rn 'TODO' src | sort | uniq -c; ")


#: the heaviest inputs of tests/plugins and the worst found by profiling (each within the 64 KiB limit
#: or cut to it): the decision must stay within 20 ms of CPU and, when a dangerous command is among
#: what was analysed, name its rule
_WORDS = ["git", "ls", "cat", "echo", "grep", "sed", "cp", "mv", "rm", "tee", "curl", "python3", "npm", "make"]
HEAVY = [
    ("100,000-deep `$(`", "echo $(" * 100_000 + "ls" + ")" * 100_000),
    ("100,000-deep `\"$(`", 'echo "$(' * 100_000 + "ls" + ')"' * 100_000),
    ("100,000-deep `(`", "(" * 100_000 + "ls" + ")" * 100_000),
    ("Python heredoc, 54 KB", "python3 - <<'EOF'\n" + "import os\nx = os.path.join('a', 'b')\n" * 1500 + "EOF\n"),
    ("16,000 pipes", "a" + " | b" * 16_000),
    ("6,000 `a;b&&c\\|\\|d`", "a;b&&c||d " * 6_000),
    ("`bash -c` of 10,000 commands", "bash -c 'echo hi; " + "ls; " * 10_000 + "'"),
    ("1,000 distinct commands with writes",
     "; ".join(f"{w} -x{i} file{i}.txt > out{i}.log" for i, w in zip(range(1200), _WORDS * 100, strict=False))),
    ("`rm -rf ~` then 1,200 commands", "rm -rf ~; " + "true; " * 1_200),
    ("`rm -rf ~` then 1,200 distinct writes", "rm -rf ~; " + "; ".join(f"echo x > /tmp/d{i}/o{i}" for i in range(1_200))),
    ("1 MB mixed", ""),
    ("10,000 paths to one `chmod`", "chmod 644 " + " ".join(f"f{i}" for i in range(10_000))),
    ("6,000 paths in as many directories", "rm -f " + " ".join(f"/tmp/d{i}/f{i}" for i in range(6_000))),
    ("1,000 distinct programs", "; ".join(f"prog{i} --opt /tmp/p{i}" for i in range(1_000))),
    ("1,000 distinct `find -exec`", "; ".join(f"find /tmp/d{i} -name x -exec rm {{}} +" for i in range(1_000))),
    ("`bash -c` of 1,000 distinct commands",
     "bash -c '" + "; ".join(f"p{i} /tmp/d{i}/x > /tmp/o{i}" for i in range(1_000)) + "'"),
    ("`bash -c` of 8,000 distinct words", "bash -c 'echo " + " ".join(f"w{i}" for i in range(8_000)) + "'"),
    ("interpreters nested, 300 times",
     "python3 -c \"import os; os.system('bash -c \\\"perl -e 1\\\"')\"; " * 300),
    ("Perl heredoc, 58 KB", "perl <<'EOF'\n" + "my $x = join(',', 'a', 'b');\n" * 2_000 + "EOF\n"),
    ("Node heredoc, 62 KB", "node <<'EOF'\n" + "const x = ['a','b'].join(',');\n" * 2_000 + "EOF\n"),
    ("Ruby heredoc, 60 KB", "ruby <<'EOF'\n" + "x = ['a','b'].join(',')\n" * 2_500 + "EOF\n"),
    ("Python heredoc, 16 KB", "python3 - <<'EOF'\n" + "import os\nx = os.path.join('a', 'b')\n" * 450 + "EOF\n"),
]


def command(shape: str, size: int) -> str:
    if shape == "words":
        head = "git add"
        unit = " src/m.py"
    elif shape == "token":
        head, unit = "echo ", "A"
    else:
        head, unit = "", _MIXED
    reps = max(1, (size - len(head)) // len(unit))
    return (head + unit * reps)[:size]


def measure(shape: str, size: int, runs: int) -> tuple[float, float, float, float, bool]:
    return _measure(command(shape, size), runs)[:5]  # type: ignore[return-value]


def _measure(text: str, runs: int) -> tuple[float, float, float, float, bool, str]:
    from agent_hooks_guard.policy import Policy, resolve

    pol = Policy(resolve(None), str(ROOT))
    check = pol.check_tool("bash", {"command": text})  # warm: compiled regexes, imports
    wall, cpu = [], []
    blocked = False
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        check = pol.check_tool("bash", {"command": text})
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
        blocked = bool(check.findings)
    rules = ", ".join(dict.fromkeys(f.rule for f in check.findings))

    def p(values: list[float], q: float) -> float:
        values = sorted(values)
        return statistics.median(values) if q == 0.5 else values[min(len(values) - 1, int(len(values) * q))]

    return p(cpu, 0.5), p(cpu, 0.99), p(wall, 0.5), p(wall, 0.99), blocked, rules


def heavy_table(quick: bool) -> str:
    rows = ["| input | CPU p50 ms | CPU p99 ms | wall p50 ms | decision |", "| --- | ---: | ---: | ---: | --- |"]
    for label, text in HEAVY:
        text = text or command("mixed", 1_000_000)
        c50, c99, w50, _, blocked, rules = _measure(text, 3 if quick else 30)
        rows.append(f"| {label} | {_ms(c50)} | {_ms(c99)} | {_ms(w50)} | "
                    f"{'blocked (' + rules + ')' if blocked else 'allowed'} |")
    return "\n".join(rows)


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def table(quick: bool) -> str:
    rows = ["| size | shape | CPU p50 ms | CPU p99 ms | wall p50 ms | wall p99 ms | decision |",
            "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for label, size in SIZES:
        if quick and size > 10_000:
            continue
        runs = 20 if quick else RUNS[size]
        for shape in ("words", "token", "mixed"):
            c50, c99, w50, w99, blocked = measure(shape, size, runs)
            rows.append(f"| {label} | {shape} | {_ms(c50)} | {_ms(c99)} | {_ms(w50)} | {_ms(w99)} | "
                        f"{'blocked (too-large)' if size > 65536 else 'blocked' if blocked else 'allowed'} |")
    load = f", load average {os.getloadavg()[0]:.1f} while measuring" if hasattr(os, "getloadavg") else ""
    machine = f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs{load}"
    runs = ", ".join(f"{label}: {RUNS[size]}" for label, size in SIZES)
    return "\n".join([*rows, "", f"The heaviest inputs of the tests and the worst found by profiling ({3 if quick else 30} runs each):", "", heavy_table(quick), "",
                      f"Measured with `python benchmarks/bench_guard.py` ({machine}; runs per row: {runs})."])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args(argv)
    out = table(args.quick)
    print(out)
    if args.write_readme:
        text = README.read_text(encoding="utf-8")
        new, n = re.subn(re.escape(BEGIN) + r".*?" + re.escape(END), f"{BEGIN}\n{out}\n{END}", text, flags=re.S)
        if n != 1:
            print(f"no {BEGIN} ... {END} section in {README}", file=sys.stderr)
            return 2
        README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
