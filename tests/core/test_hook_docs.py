"""One written source per hook: every hookspec is documented and agrees with the catalogue.

The catalogue (``hookspecs/catalogue.py``) is the source of a hook's summary and rule; the
hookspec docstring (what ``help()`` and IDEs show) must start with the same summary and name the
same combination rule. Like datasette's test that every hookspec is documented.
"""

from __future__ import annotations

import inspect
import re

import pytest
from agent_hooks_core.hookspecs import specs
from agent_hooks_core.hookspecs.catalogue import HOOKS, RUNTIME_HOOKS


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def _spec_names() -> set[str]:
    return {name for name, obj in vars(specs).items()
            if callable(obj) and hasattr(obj, "agent_hooks_spec")}


def test_every_hookspec_is_a_catalogue_or_runtime_hook_and_back() -> None:
    assert _spec_names() == {h.name for h in HOOKS} | set(RUNTIME_HOOKS)


@pytest.mark.parametrize("name", sorted({h.name for h in HOOKS} | set(RUNTIME_HOOKS)))
def test_every_hookspec_has_a_docstring_with_its_returns(name: str) -> None:
    doc = inspect.getdoc(getattr(specs, name)) or ""
    assert doc.split("\n")[0].strip(), f"{name}: no summary line"
    assert ":returns:" in doc, f"{name}: the docstring does not say what a handler returns"


@pytest.mark.parametrize("hd", HOOKS, ids=lambda hd: hd.name)
def test_the_docstring_agrees_with_the_catalogue(hd: object) -> None:
    from agent_hooks_core.hookspecs.catalogue import HookDef

    assert isinstance(hd, HookDef)
    doc = inspect.getdoc(getattr(specs, hd.name)) or ""
    first = _norm(doc.split("\n\n")[0])
    assert first.startswith(_norm(hd.summary)), f"{hd.name}: catalogue says {hd.summary!r}, the hookspec {first!r}"
    combination = re.search(r"Combination: (.*)", _norm(doc))
    rule = re.match(r"[a-z-]+", hd.rule).group(0)  # type: ignore[union-attr]  # the rule's name
    assert combination and rule in combination.group(1), f"{hd.name}: rule {hd.rule!r} not in its docstring"
