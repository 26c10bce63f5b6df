"""Property: no input makes the guard slow. Adversarial commands (nested quotes, long tokens, many
separators, unclosed substitutions, fork-bomb-like text, heredoc markers) are judged within a
wall-clock budget. The budgets are generous multiples of the targets (p99 <= 1 ms for 10 KB,
<= 50 ms for 1 MB) so a loaded machine does not fail them; a quadratic blow-up does (the old
fork-bomb regex took 5 s at 20 KB)."""

from __future__ import annotations

import time

from agent_hooks_guard.policy import Policy, resolve
from hypothesis import given, settings
from hypothesis import strategies as st

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
