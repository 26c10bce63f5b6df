"""The conformance vectors, run against agent-hooks' own Runtime, and the runner itself."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import Runtime
from agent_hooks_core.hookspecs.catalogue import BY_NAME, HOOKS
from agent_hooks_core.hookspecs.models import EVENTS, RESULTS
from agent_hooks_core.testing import vectors as vec

#: the one copy of the vectors, in the checkout (under tox the package is an installed wheel)
TESTS_DIR = Path(__file__).resolve().parents[2] / "core" / "data" / "vectors"
VECTORS = vec.load_vectors(TESTS_DIR)
CASES = [(v, mode) for v in VECTORS for mode in v.modes]


@pytest.mark.parametrize(("vector", "mode"), CASES, ids=[f"{v.name}[{m}]" for v, m in CASES])
def test_vector(vector: vec.Vector, mode: str) -> None:
    result = vec.run_vector(vector, mode=mode)
    assert result.passed, str(result)
    # the combined result is always a valid result model (Outcome.result never raises)
    outcome = result.outcome
    if outcome.data is None:
        assert RESULTS[vector.hook] is None or BY_NAME[vector.hook].observe
    else:
        assert outcome.result is not None


def test_the_package_ships_every_vector() -> None:
    packaged = vec.packaged_dir()
    here = {p.name: p.read_bytes() for p in TESTS_DIR.glob("*.json")}
    shipped = {p.name: p.read_bytes() for p in packaged.glob("*.json")}
    assert set(here) == set(shipped), "pyproject.toml's package-data must include data/vectors/*.json"
    stale = sorted(name for name in here if here[name] != shipped[name])
    assert not stale, f"the installed package's vectors differ in {stale}: reinstall"


def test_at_least_150_vectors_with_unique_names() -> None:
    assert len(VECTORS) >= 150
    assert len({v.name for v in VECTORS}) == len(VECTORS)


def test_every_canonical_hook_has_a_seed_example_vector() -> None:
    catalogue = {v.hook for v in VECTORS if v.source == "catalogue.json"}
    assert catalogue == set(BY_NAME)
    for v in VECTORS:
        if v.source == "catalogue.json":
            EVENTS[v.hook].model_validate(v.payload or {})  # the translated seed payloads are canonical


def _names(pattern: str) -> set[str]:
    return {v.hook for v in VECTORS if pattern in v.name}


@pytest.mark.parametrize("path", ["error", "invalid", "timeout"])
@pytest.mark.parametrize("hook", [h.name for h in HOOKS if h.fail_closed])
def test_every_fail_closed_path_has_a_vector(hook: str, path: str) -> None:
    assert any(
        v.hook == hook and v.source == "fail_closed.json" and any(e.get("kind") == path for e in v.expect["errors"])
        for v in VECTORS
    ), f"no fail-closed vector for {hook} / {path}"


@pytest.mark.parametrize("hook", [h.name for h in HOOKS if h.deny_without_handler])
def test_every_fail_safe_hook_has_a_no_handler_vector(hook: str) -> None:
    assert any(v.hook == hook and not v.answers and v.expect["data"]["denied"] is True for v in VECTORS)


@pytest.mark.parametrize("field", ["block", "handled", "cancel", "delivered", "denied"])
def test_every_short_circuit_field_has_a_vector(field: str) -> None:
    assert any(
        v.source == "short_circuit.json" and isinstance(v.expect["data"], dict) and v.expect["data"].get(field) is True
        and len(v.expect.get("called", [])) < len(v.answers)
        for v in VECTORS
    ), f"no vector where {field} short-circuits"


@pytest.mark.parametrize("kind", ["unknown result field", "must be", "include or exclude", "answer must be a dict"])
def test_every_invalid_answer_path_has_a_vector(kind: str) -> None:
    assert any(kind in e.get("message", "") for v in VECTORS for e in v.expect["errors"])


def test_every_rule_has_vectors() -> None:
    rules = Counter(v.rule.split(" ")[0] for v in VECTORS)
    for rule in ("observe", "chain", "short-circuit(block)", "concat", "accumulate", "include-intersection",
                 "exclude-union", "merge-patch", "last-wins", "saturating-sum", "deny-wins", "first-result",
                 "fail-closed", "fallback"):
        assert rules[rule] >= 2, rule
    answers = json.dumps([v.answers for v in VECTORS])
    for marker in vec.MARKERS:
        assert marker in answers, f"no vector uses {marker}"


# -- the runner ----------------------------------------------------------------------------------


def test_runner_reports_a_diff_for_a_wrong_runtime() -> None:
    """A runtime that calls handlers in reverse order fails the chain vectors, with a readable diff."""

    def reversed_factory(plugins: list[tuple[str, Any]], **options: Any) -> Runtime:
        return Runtime(plugins=list(reversed(plugins)), **options)

    chain = [v for v in VECTORS if v.name == "pre_message/chain-prompt"]
    [result] = vec.run_vectors(chain, reversed_factory, modes=("fire",))
    assert not result.passed
    text = str(result)
    assert text.startswith("FAIL pre_message/chain-prompt [fire]")
    assert '"prompt": "A"' in text and "answered" in text


def test_runner_reports_a_runtime_that_raises() -> None:
    def broken(plugins: list[tuple[str, Any]], **options: Any) -> Any:
        raise RuntimeError("cannot build")

    [result] = vec.run_vectors(VECTORS[:1], broken, modes=("fire",))
    assert not result.passed and result.diff == ["raised RuntimeError: cannot build"]


def test_matchers() -> None:
    assert vec.matches({"a": {"$contains": "ell"}}, {"a": "hello"})
    assert not vec.matches({"a": {"$contains": "x"}}, {"a": "hello"})
    assert vec.matches({"a": {"$any": True}}, {"a": [1]})
    assert not vec.matches({"a": 1}, {"a": 1, "b": 2})
    assert not vec.matches(True, 1) and not vec.matches(1, True)
    assert vec.matches([1, {"b": None}], (1, {"b": None}))


@pytest.mark.parametrize(("doc", "message"), [
    ("not json", "catalogue.json:"),
    ('{"v": []}', "expected an object with a 'vectors' list"),
    ('{"vectors": [{"hook": "pre_tool", "answers": [], "expect": {}}]}', "'name' must be a non-empty string"),
    ('{"vectors": [{"name": "x", "hook": "pre_tool", "answers": [], "expect": {"data": {}}}]}',
     "'expect' is missing decision, answered, errors"),
    ('{"vectors": [{"name": "x", "hook": "pre_tool", "answers": {}, "expect": {}}]}', "'answers' must be a list"),
    ('{"vectors": [{"name": "x", "hook": "pre_tool", "answers": [{"$boom": 1}], '
     '"expect": {"data": {}, "decision": "allowed", "answered": [], "errors": []}}]}', "bad marker"),
    ('{"vectors": [{"name": "x", "hook": "pre_tool", "answers": [], "typo": 1, '
     '"expect": {"data": {}, "decision": "allowed", "answered": [], "errors": []}}]}', "unknown key(s) typo"),
])
def test_malformed_vector_files_give_one_line(tmp_path: Path, doc: str, message: str) -> None:
    path = tmp_path / "catalogue.json"
    path.write_text(doc)
    with pytest.raises(vec.VectorFormatError) as info:
        vec.load_vectors(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_duplicate_names_across_files(tmp_path: Path) -> None:
    doc = {"vectors": [{"name": "same", "hook": "on_start", "answers": [],
                        "expect": {"data": None, "decision": "observed", "answered": [], "errors": []}}]}
    (tmp_path / "a.json").write_text(json.dumps(doc))
    (tmp_path / "b.json").write_text(json.dumps(doc))
    with pytest.raises(vec.VectorFormatError, match=r"also in a\.json"):
        vec.load_vectors(tmp_path)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert vec.main([str(TESTS_DIR / "concat.json"), "--mode", "fire"]) == 0
    assert capsys.readouterr().out.strip().endswith("7 passed, 0 failed (7 vectors)")
    bad = json.loads((TESTS_DIR / "concat.json").read_text())
    bad["vectors"] = bad["vectors"][:1]
    bad["vectors"][0]["expect"]["data"] = {"inject": "wrong"}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert vec.main([str(tmp_path / "bad.json")]) == 1
    assert "FAIL pre_system_prompt/concat-in-order [fire]" in capsys.readouterr().out
    assert vec.main(["--factory", "nope"]) == 2
    assert "expected module:callable" in capsys.readouterr().err
    assert vec.main([str(tmp_path / "missing.json")]) == 2
    assert vec.main(["--factory", "agent_hooks_core.testing.vectors:default_factory",
                     str(TESTS_DIR / "concat.json")]) == 0


def test_default_run_uses_the_packaged_vectors() -> None:
    assert [v.name for v in vec.load_vectors()] == [v.name for v in VECTORS]


@pytest.mark.slow
def test_vectors_run_from_an_installed_wheel(fresh_venv: Any) -> None:
    env = fresh_venv("agent-hooks-core")
    proc = env.run("python", "-m", "agent_hooks_core.testing.vectors", "--mode", "fire")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(VECTORS)} passed, 0 failed" in proc.stdout
