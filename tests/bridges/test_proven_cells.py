"""The capability matrix is evidence: every claim a host record makes that ``agenthooks hosts`` shows
as proven (a ``Cap.proven`` version, no ``*``) is backed by a real-agent test in tests/hosts marked
``@pytest.mark.proves(host, hook, *claims)``, run against the version pinned in tests/hosts/pins.py.

The markers are read statically (ast): the default suite checks them without any agent installed.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest
from agent_hooks_core.bridges import matrix, registry
from agent_hooks_core.bridges.capabilities import of

from tests.hosts.pins import PINS

HOSTS_DIR = Path(__file__).resolve().parents[1] / "hosts"
FIRST_PARTY = [r.name for r in registry.first_party()]


def _proves(decorator: ast.expr) -> ast.Call | None:
    """The ``pytest.mark.proves(...)`` call, if ``decorator`` is one."""
    if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
            and decorator.func.attr == "proves" and ast.unparse(decorator.func.value) == "pytest.mark":
        return decorator
    return None


def markers() -> list[tuple[str, str, tuple[str, ...], str]]:
    """Every ``proves`` marker in tests/hosts: (host, hook, claims, "file::test")."""
    found = []
    for path in sorted(HOSTS_DIR.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for decorator in node.decorator_list:
                call = _proves(decorator)
                if call is None:
                    continue
                where = f"{path.name}::{node.name}"
                assert node.name.startswith("test_"), f"{where}: proves marks a function that is not a test"
                args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                        for a in call.args]
                assert len(args) >= 3 and None not in args and not call.keywords, \
                    f"{where}: proves(host, hook, claim, ...) takes string literals only"
                host, hook, *claims = args
                found.append((str(host), str(hook), tuple(str(c) for c in claims), where))
    return found


MARKERS = markers()


def proofs() -> dict[tuple[str, str], dict[str, list[str]]]:
    """(host, hook) -> claim -> the tests proving it."""
    out: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for host, hook, claims, where in MARKERS:
        for claim in claims:
            out[host, hook][claim].append(where)
    return out


def test_there_are_proving_tests() -> None:
    assert len(MARKERS) >= 20, MARKERS


@pytest.mark.parametrize(("host", "hook", "claims", "where"), MARKERS, ids=[m[3] for m in MARKERS])
def test_each_marker_names_a_pinned_host_a_hook_it_fires_and_known_claims(host, hook, claims, where) -> None:
    assert host in FIRST_PARTY, f"{where}: unknown host {host!r}"
    assert host in PINS, f"{where}: {host} has no pinned version in tests/hosts/pins.py"
    assert hook in of(host), f"{where}: {host} does not fire {hook}"
    unknown = [c for c in claims if c not in matrix.CLAIMS]
    assert not unknown, f"{where}: unknown claims {unknown} (known: {', '.join(matrix.CLAIMS)})"


@pytest.mark.parametrize("host", FIRST_PARTY)
def test_every_proven_cell_has_a_proving_test_on_the_pinned_version(host) -> None:
    proven = proofs()
    problems = []
    for hook, cap in of(host).items():
        claimed = matrix.claims(cap)
        if not claimed:
            continue  # it only fires: nothing to prove beyond the event map (tests/bridges)
        backed = proven.get((host, hook), {})
        missing = [c for c in claimed if c not in backed]
        if cap.proven:
            if missing:
                problems.append(f"{hook}: says proven on {cap.proven} but no tests/hosts test proves {missing}")
            elif cap.proven != PINS.get(host):
                problems.append(f"{hook}: says proven on {cap.proven}, the tests run {PINS.get(host)}")
        elif not missing and host in PINS:
            problems.append(f"{hook}: every claim ({', '.join(claimed)}) is proven on {PINS[host]}: set proven=")
    assert not problems, f"{host}: " + "; ".join(problems)


def test_a_host_without_a_binary_is_protocol_tested_only() -> None:
    unpinned = [h for h in FIRST_PARTY if h not in PINS]
    assert unpinned == ["cursor"], unpinned
    for host in unpinned:
        assert matrix.proven_version(host) == "", host


def test_the_marker_is_registered_for_the_real_agent_tests() -> None:
    text = (HOSTS_DIR / "conftest.py").read_text(encoding="utf-8")
    assert 'addinivalue_line("markers", PROVES)' in text and "proves(host, hook, *claims)" in text


def test_the_record_modules_pin_what_the_tests_pin() -> None:
    """A host module's own ``PROVEN`` constant (where it has one) is the pinned version."""
    import importlib

    for record in registry.first_party():
        module = importlib.import_module(f"agent_hooks_core.bridges.hosts.{record.name.replace('-', '_')}")
        pinned = getattr(module, "PROVEN", None)
        if pinned is not None:
            assert pinned == PINS[record.name], (record.name, pinned)
