"""Generated files are current, and the light validation agrees with the pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core.errors import PayloadError
from agent_hooks_core.hookspecs import specs
from agent_hooks_core.hookspecs._fields import EVENT_FIELDS, RESULT_FIELDS
from agent_hooks_core.hookspecs.catalogue import BY_NAME, HOOKS, SYSTEMS
from agent_hooks_core.hookspecs.hookdef import declared
from agent_hooks_core.hookspecs.models import EVENTS, RESULTS
from agent_hooks_core.validation import check_answer, check_payload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tools import docgen
from tools import fields_gen as _gen


def test_fields_table_is_current() -> None:
    assert _gen.target().read_text() == _gen.render(), "run: python -m tools.fields_gen"


def test_docs_hooks_md_is_current() -> None:
    # the repo's copy: under tox the package is an installed wheel, far from docs/
    target = Path(__file__).resolve().parents[2] / "docs" / "hooks.md"
    assert target.read_text(encoding="utf-8") == docgen.render(), "run: python -m tools.docgen"


def test_docgen_check_mode(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hooks.md"
    assert docgen.main(["--check", "-o", str(out)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert docgen.main(["-o", str(out)]) == 0
    assert docgen.main(["--check", "-o", str(out)]) == 0


def test_docs_cover_every_hook_alias_and_field() -> None:
    text = docgen.render()
    for hd in HOOKS:
        assert f"### `{hd.name}`" in text
        assert hd.rule in text
        for system in SYSTEMS:
            for alias in hd.aliases.get(system, ()):
                assert f"| {system} | `{alias}` | [`{hd.name}`](#{hd.name}) |" in text
        for name, info in EVENTS[hd.name].model_fields.items():
            assert f"| `{info.alias or name}` |" in text
        result = RESULTS[hd.name]
        for name, info in result.model_fields.items() if result is not None else ():
            assert f"| `{info.alias or name}` |" in text
    assert "| concat(inject) |" in text  # the rule table comes from reducer's docstring


def test_catalogue_and_models_agree() -> None:
    assert declared(vars(specs)) == HOOKS and len(BY_NAME) == len(HOOKS)
    assert set(EVENTS) == set(RESULTS) == set(BY_NAME)
    for hd in HOOKS:
        assert (RESULTS[hd.name] is None) == hd.observe, hd.name
        fields = RESULT_FIELDS[hd.name] or {}
        for name in (*hd.chain, *hd.stop_on, *hd.concat, *hd.last_wins, *hd.computed, *hd.first_result_needs,
                     *(a for a, _ in hd.accumulate)):
            assert name in fields, (hd.name, name)


# -- the light validation against pydantic (strict: what JSON data gets) ----------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def typed(code: str) -> st.SearchStrategy[Any]:
    """Values that fit a type code (or sit on its edges: bools for ints, negatives for >=0)."""
    base = code.rstrip("?")
    base = base.partition(">=")[0]
    if base.startswith("enum:"):
        return st.sampled_from(base[5:].split("|")) | st.text(max_size=10)
    strategies: dict[str, st.SearchStrategy[Any]] = {
        "str": st.text(max_size=10), "int": st.integers(-5, 5) | st.booleans(), "bool": st.booleans() | st.integers(0, 1),
        "float": st.floats(allow_nan=False) | st.integers(-5, 5) | st.booleans(),
        "dict": st.dictionaries(st.text(max_size=5), JSON, max_size=3),
        "list": st.lists(JSON, max_size=3), "list[str]": st.lists(st.text(max_size=5) | JSON, max_size=3),
        "list[dict]": st.lists(st.dictionaries(st.text(max_size=5), JSON, max_size=2) | JSON, max_size=3),
        "any": JSON,
    }
    return strategies[base]


def documents(fields: list[tuple[str, str]], extra: bool) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts over the given (wire name, type code) fields: each absent, typed, null or any JSON."""
    parts = {
        name: st.one_of(st.just(_ABSENT), typed(code), st.none(), JSON) for name, code in fields
    }
    base = st.fixed_dictionaries(parts).map(lambda d: {k: v for k, v in d.items() if v is not _ABSENT})
    if not extra:
        return base
    extras = st.dictionaries(st.sampled_from(["x_extra", "hostField", "camelCase", "z"]), JSON, max_size=2)
    return st.tuples(base, extras).map(lambda t: {**t[1], **t[0]})


_ABSENT = object()
SLOW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("hook", list(BY_NAME))
@SLOW
@given(data=st.data())
def test_payload_validation_agrees_with_pydantic(hook: str, data: st.DataObject) -> None:
    fields = [(name, code) for name, code, _ in EVENT_FIELDS[hook]]
    payload = data.draw(documents(fields, extra=True))
    try:
        check_payload(hook, payload)
        light = None
    except PayloadError as exc:
        light = str(exc)
    try:
        EVENTS[hook].model_validate(payload, strict=True)
        strict = None
    except ValidationError as exc:
        strict = str(exc)
    assert (light is None) == (strict is None), f"{hook} {payload!r}: light={light!r} pydantic={strict!r}"
    if light is None:
        EVENTS[hook].model_validate(payload)  # lax mode accepts whatever strict mode does


@pytest.mark.parametrize("hook", [h for h, r in RESULTS.items() if r is not None])
@SLOW
@given(data=st.data())
def test_answer_validation_agrees_with_pydantic(hook: str, data: st.DataObject) -> None:
    spec = RESULT_FIELDS[hook]
    assert spec is not None
    answer = data.draw(documents(list(spec.items()), extra=data.draw(st.booleans())))
    _, problem = check_answer(hook, answer)
    model = RESULTS[hook]
    assert model is not None
    try:
        model.model_validate(answer, strict=True)
        strict = None
    except ValidationError as exc:
        strict = str(exc)
    assert (problem is None) == (strict is None), f"{hook} {answer!r}: light={problem!r} pydantic={strict!r}"
