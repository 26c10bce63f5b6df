"""The guard's battery of variants (see guard_variants.py and plugins/guard/VARIANTS.md)."""

from __future__ import annotations

import pytest

from tests.plugins import guard_variants as gv


@pytest.fixture(scope="module")
def runtime() -> object:
    return gv.make_runtime()


@pytest.mark.parametrize("variant", gv.all_variants(), ids=lambda v: f"{v.hook}:{v.subject[:40]}")
def test_variant(runtime: object, variant: gv.Variant) -> None:
    decision, reason = gv.decide(runtime, variant)
    assert decision == variant.expect, reason
    if variant.rule:
        assert f"[guard:{variant.rule}]" in reason


def test_variants_md_is_current() -> None:
    assert gv.VARIANTS_MD.read_text(encoding="utf-8") == gv.render(), (
        "plugins/guard/VARIANTS.md is stale: run `python -m tests.plugins.guard_variants`")


def test_the_battery_covers_every_rule_and_benign_commands() -> None:
    from agent_hooks_guard.defaults import RULES

    fired = {v.rule for v in gv.all_variants() if v.rule}
    assert fired >= set(RULES) - {"deny-commands"}  # deny-commands is empty by default: test_guard.py
    benign = {v.subject for v in gv.all_variants() if v.expect == "allowed"}
    assert {"ls", "rm build/x.o", "git push origin feature"} <= benign
