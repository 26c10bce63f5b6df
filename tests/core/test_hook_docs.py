"""One declaration per hook: every hookspec is documented, and each canonical hook is declared on it.

A canonical hook is declared once, with ``@canonical(...)`` on its hookspec in ``hookspecs/specs.py``;
the catalogue, the models' index, ``agenthooks hooks`` and docs/hooks.md are derived from it. The
docstring (what ``help()`` and IDEs show) must name the declared models and combination rule.
Like datasette's test that every hookspec is documented.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest
from agent_hooks_core.hookspecs import catalogue, hookdef, specs
from agent_hooks_core.hookspecs.catalogue import HOOKS, RUNTIME_HOOKS
from agent_hooks_core.hookspecs.hookdef import HookDef, canonical


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def _spec_names() -> set[str]:
    return {name for name, obj in vars(specs).items()
            if callable(obj) and hasattr(obj, "agent_hooks_spec")}


def test_every_hookspec_is_a_catalogue_or_runtime_hook_and_back() -> None:
    assert _spec_names() == {h.name for h in HOOKS} | set(RUNTIME_HOOKS)
    assert not {h.name for h in HOOKS} & set(RUNTIME_HOOKS)


def test_the_catalogue_is_the_declarations() -> None:
    for hd in HOOKS:
        assert getattr(specs, hd.name).agent_hooks_def is hd
        assert catalogue.BY_NAME[hd.name] is hd
        opts = getattr(specs, hd.name).agent_hooks_spec
        assert opts["firstresult"] == hd.first_result, hd.name


@pytest.mark.parametrize("name", sorted({h.name for h in HOOKS} | set(RUNTIME_HOOKS)))
def test_every_hookspec_has_a_docstring_with_its_returns(name: str) -> None:
    doc = inspect.getdoc(getattr(specs, name)) or ""
    assert doc.split("\n")[0].strip(), f"{name}: no summary line"
    assert ":returns:" in doc, f"{name}: the docstring does not say what a handler returns"


@pytest.mark.parametrize("hd", HOOKS, ids=lambda hd: hd.name)
def test_the_docstring_names_the_declared_models_and_rule(hd: HookDef) -> None:
    doc = inspect.getdoc(getattr(specs, hd.name)) or ""
    assert _norm(doc).startswith(_norm(hd.summary)), hd.name
    assert f":param event: :class:`{hd.event_model}`" in doc, f"{hd.name}: docstring names another event model"
    returns = re.search(r":returns: (.*)", doc)
    assert returns is not None
    if hd.result_model is None:
        assert ":class:" not in returns.group(1), f"{hd.name}: an observe hook returns nothing"
    else:
        assert f":class:`{hd.result_model}`" in returns.group(1), f"{hd.name}: docstring names another result"
    combination = re.search(r"Combination: (.*)", _norm(doc))
    rule = re.match(r"[a-z-]+", hd.rule).group(0)  # type: ignore[union-attr]  # the rule's name
    assert combination and rule in combination.group(1), f"{hd.name}: rule {hd.rule!r} not in its docstring"


def _declare(func: Any, **kw: Any) -> Any:
    return canonical("tool", kw.pop("rule", "observe"), event="PreToolEvent", **kw)(func)


def test_a_declaration_without_a_docstring_or_with_a_mismatched_result_is_refused() -> None:
    def no_doc(event: Any) -> None:
        pass

    with pytest.raises(TypeError, match="no docstring"):
        _declare(no_doc)

    def observer(event: Any) -> None:
        """Something happened."""

    with pytest.raises(TypeError, match="result model goes with a combination rule"):
        _declare(observer, result="PreToolResult")
    with pytest.raises(TypeError, match="result model goes with a combination rule"):
        _declare(observer, rule="short-circuit(block)", stop_on=("block",))


def test_a_declared_hook_is_collected_in_order_with_its_summary() -> None:
    def first(event: Any) -> None:
        """First ``thing`` happens.

        More words.
        """

    def second(event: Any) -> Any:
        """Second thing."""

    ns = {"first": _declare(first), "helper": len,
          "second": _declare(second, rule="short-circuit(block)", result="PreToolResult", stop_on=("block",))}
    found = hookdef.declared(ns)
    assert [h.name for h in found] == ["first", "second"]
    assert found[0].summary == "First `thing` happens." and found[0].observe
    assert found[1].result_model == "PreToolResult" and not found[1].observe
