"""Property: no input makes the guard slow. Adversarial commands (nested quotes, long tokens, many
separators, unclosed substitutions, fork-bomb-like text, heredoc markers) are judged within a
wall-clock budget. The budgets are generous multiples of the targets (p99 <= 1 ms for 10 KB,
<= 50 ms for 1 MB) so a loaded machine does not fail them; a quadratic blow-up does (the old
fork-bomb regex took 5 s at 20 KB)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from agent_hooks_guard import work
from agent_hooks_guard.policy import Policy, resolve
from hypothesis import given, settings
from hypothesis import strategies as st

GUARD = Path(__file__).resolve().parents[2] / "plugins" / "guard" / "agent_hooks_guard"

_POL = Policy(resolve(None), "/nonexistent/project")
#: pieces an attacker (or a fuzzer) would repeat: quoting, substitutions, separators, bomb fragments
PIECES = ["'", '"', "\\", "$(", ")", "`", ";", "|", "&&", "<<", "<<EOF\n", "\nEOF\n", "(){", "{", "}", ":", "f",
          "$'\\x72'", "${IFS}", "-rf", "/", " ", "\n", "rm", "eval ", "bash -c ", "python3 -c '", "A" * 64,
          "function f ", "<(", "$HOME", "~", "*", "find . -exec ", "xargs ", "=", "#"]


@st.composite
def adversarial(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=60))
    repeat = draw(st.integers(min_value=1, max_value=400))
    return "".join(parts) * repeat


@settings(max_examples=120, deadline=None)
@given(adversarial())
def test_adversarial_commands_are_judged_within_budget(text: str) -> None:
    start = time.thread_time()
    _POL.check_command(text)
    elapsed = time.thread_time() - start
    # any size (over 64 KB only a prefix is analysed): 2 s is 40x the 50 ms target, CPU time of this thread, so a loaded machine does not count
    assert elapsed < 2.0, (len(text), elapsed, text[:120])


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=0, max_size=20_000))
def test_any_text_is_judged_within_budget(text: str) -> None:
    start = time.thread_time()
    _POL.check_command(text)
    assert time.thread_time() - start < 2.0


def test_cost_grows_linearly() -> None:
    """Sixteen times the text costs ~16x; quadratic work would cost 256x. The bound, 64x, leaves room for
    a noisy machine (CPU time, not wall time; best of five runs each) and still catches a blow-up."""
    def best(unit: str, n: int) -> float:
        text = unit * n
        times = []
        for _ in range(5):
            start = time.process_time()
            _POL.check_command(text)
            times.append(time.process_time() - start)
        return min(times)

    for unit in ("f(){ " + "f" * 40 + " ", "echo \"$(echo '", "a|b;c&&d ", "x" * 80, "$'\\x72' ${IFS} "):
        small, large = best(unit, 250), best(unit, 4000)
        assert large < max(small, 5e-4) * 64, (unit, small, large)


#: the worst shapes found by profiling (benchmarks/bench_guard.py's heavy table has them too): each
#: makes one kind of work expensive, n of it
HEAVY = {
    "distinct paths": lambda n: "chmod 644 " + " ".join(f"d{i % 97}/f{i}" for i in range(n)),
    "paths in distinct directories": lambda n: "rm -f " + " ".join(f"/tmp/d{i}/f{i}" for i in range(n)),
    "distinct programs": lambda n: "; ".join(f"prog{i} --opt /tmp/p{i}" for i in range(n)),
    "distinct writes": lambda n: "; ".join(f"echo x > /tmp/d{i}/o{i}" for i in range(n)),
    "interpreters nested": lambda n: "python3 -c \"import os; os.system('bash -c \\\"perl -e 1\\\"')\"; " * n,
    "Python heredoc": lambda n: "python3 - <<'EOF'\n" + "import os\nx = open('a').read()\n" * n + "EOF\n",
    "Perl heredoc": lambda n: "perl <<'EOF'\n" + "my $x = join(',', 'a', 'b');\n" * n + "EOF\n",
    "Node heredoc": lambda n: "node <<'EOF'\n" + "const x = ['a','b'].join(',');\n" * n + "EOF\n",
    "Ruby heredoc": lambda n: "ruby <<'EOF'\n" + "x = ['a','b'].join(',')\n" * n + "EOF\n",
    "a nested script of distinct words": lambda n: "bash -c 'echo " + " ".join(f"w{i}" for i in range(n)) + "'",
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(HEAVY)), st.integers(min_value=1, max_value=12_000))
def test_heavy_shapes_are_judged_within_budget(shape: str, n: int) -> None:
    text = HEAVY[shape](n)
    start = time.thread_time()
    check = _POL.check_command(text)
    elapsed = time.thread_time() - start
    # the work budget keeps these near 15 ms; 1 s is for a loaded machine, and still fails a blow-up
    assert elapsed < 1.0, (shape, n, elapsed)
    if check.units[0] > work.PARSE_BUDGET or check.units[1] > work.BUDGET:
        assert any(f.rule == "too-large" for f in check.findings), (shape, n, check.units)


@pytest.mark.parametrize("shape", sorted(HEAVY))
def test_the_work_counted_does_not_depend_on_the_clock(shape: str) -> None:
    """The same input spends the same units and gets the same decision, run after run."""
    text = HEAVY[shape](3000)
    first = _POL.check_command(text)
    again = _POL.check_command(text)
    assert first.units == again.units and first.reason == again.reason


@pytest.mark.parametrize("shape", sorted(HEAVY))
def test_running_out_of_work_still_names_the_dangerous_rule(shape: str) -> None:
    check = _POL.check_command("rm -rf ~; " + HEAVY[shape](12_000))
    rules = {f.rule for f in check.findings}
    assert {"rm-broad", "too-large"} <= rules, (shape, check.reason[:300])


def test_ordinary_commands_spend_a_fraction_of_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line of the shipped and held-out corpora (what the guard is measured on) stays under a
    quarter of each budget: no decision there depends on where the budget ends."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    pol = Policy(resolve(None), str(project))
    worst = (0, 0)
    for name in ("corpus.tsv", "heldout.tsv", "heldout2.tsv", "heldout3.tsv"):
        for line in (GUARD / name).read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            units = pol.check_command(line.partition("\t")[2].replace("\u23ce", "\n")).units
            worst = (max(worst[0], units[0]), max(worst[1], units[1]))
    assert 0 < worst[0] < work.PARSE_BUDGET // 4 and 0 < worst[1] < work.BUDGET // 4, worst


def test_a_larger_size_limit_is_a_larger_budget(tmp_path: Path) -> None:
    text = "echo " + "x " * 12_000
    assert any(f.rule == "too-large" for f in Policy(resolve(None), str(tmp_path)).check_command(text).findings)
    roomy = Policy(resolve({"max_command_bytes": 1 << 20}), str(tmp_path))
    assert roomy.check_command(text).findings == []
