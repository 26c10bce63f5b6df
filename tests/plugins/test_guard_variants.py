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


def test_the_battery_covers_every_rule_and_benign_commands(runtime: object) -> None:
    import re

    from agent_hooks_guard.defaults import RULES
    from agent_hooks_guard.packs import builtin_packs

    named = {v.rule for v in gv.all_variants() if v.rule}
    # deny-commands is empty by default, unreadable-command needs a non-text argument and pack-error a
    # broken pack: test_guard.py and test_guard_shapes.py
    assert named >= set(RULES) - {"deny-commands", "unreadable-command", "powershell", "pack-error"}
    fired = {m for v in gv.all_variants() if v.expect != "allowed"
             for m in re.findall(r"\[guard:([\w-]+)\]", gv.decide(runtime, v)[1])}
    from agent_hooks_guard.defaults import OFF_BY_DEFAULT

    # the packs that are off by default are turned on in test_guard_effects.py
    every_pack_rule = {rid for name, p in builtin_packs().items() if name not in OFF_BY_DEFAULT for rid in p.rule_ids}
    assert every_pack_rule - fired == set()
    benign = {v.subject for v in gv.all_variants() if v.expect == "allowed"}
    assert {"ls", "rm build/x.o", "git push origin feature"} <= benign
    assert len(gv.all_variants()) >= 600


def test_every_pack_has_examples_both_ways() -> None:
    from agent_hooks_guard.packs import builtin_packs

    for name, pack in builtin_packs().items():
        assert len(pack.block) >= 4 and len(pack.allow) >= 4, name
