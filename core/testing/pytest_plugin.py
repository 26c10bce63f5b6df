"""The ``agent_hooks`` pytest plugin (entry point ``pytest11``): fixtures for plugin authors.

Fixtures

``make_runtime``
    ``make_runtime(*plugins, config=None, configs=None, **runtime_options)``: a Runtime holding only
    those plugins; sections validated by the plugins' config models (see
    :func:`agent_hooks_core.testing.make_runtime`).
``plugin_runtime``
    A Runtime holding only *the plugin under test*: the ``agent_hooks_plugin`` ini option, else
    the single ``agent_hooks`` entry point of the ``pyproject.toml`` in pytest's rootdir (imported
    directly, so the project need not be installed). Its settings section comes from the
    ``plugin_config`` fixture (override it) or ``@pytest.mark.plugin_config({...})``.
``hook_recorder``
    A :class:`~agent_hooks_core.testing.HookRecorder` attached to ``plugin_runtime``.
``conformance_vector``
    Parametrized over every conformance vector and mode (the packaged vectors, or the files of
    the ``agent_hooks_vectors`` ini option): ``conformance_vector.check(factory)`` fails with the
    difference when a runtime (yours, if you embed or re-implement agent-hooks) combines answers
    differently.

The assertion helpers (``assert_blocked``, ``assert_denied``, ``assert_modified``, ...) are in
:mod:`agent_hooks_core.testing`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..runtime import Runtime
    from . import HookRecorder
    from .vectors import Factory, Vector, VectorResult

# agent_hooks_core is imported inside the fixtures: every pytest run of an environment with
# agent-hooks-core installed loads this module, and should not pay for the runtime it does not use


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("agent_hooks_plugin", "the plugin under test for the plugin_runtime fixture: an entry-point "
                  "name, a module or module:attr (default: the project's own agent_hooks entry point)")
    parser.addini("agent_hooks_vectors", "conformance vector files or directories for the conformance_vector "
                  "fixture (default: the vectors shipped with agent-hooks-core)", type="paths")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "plugin_config(section): the [plugins.<name>] settings section "
                            "plugin_runtime validates and hands to the plugin under test")


@pytest.fixture
def make_runtime() -> Callable[..., Any]:
    """Factory: ``make_runtime(plugin, config={...})`` -> a Runtime holding only those plugins."""
    from . import make_runtime as factory

    return factory


def _project_entry_point(rootdir: Path) -> tuple[str, str] | None:
    """(name, value) of the single ``agent_hooks`` entry point declared by rootdir's pyproject.toml."""
    pyproject = rootdir / "pyproject.toml"
    if not pyproject.is_file():
        return None
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomlkit as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except Exception:
        return None
    eps = (data.get("project") or {}).get("entry-points", {}).get("agent_hooks") or {}
    if len(eps) == 1:
        name, value = next(iter(eps.items()))
        return str(name), str(value)
    return None


def plugin_under_test(config: pytest.Config) -> tuple[str | None, str]:
    """(name or None, what to load) of the plugin under test."""
    value = config.getini("agent_hooks_plugin")
    if value:
        return None, str(value).strip()
    found = _project_entry_point(Path(str(config.rootpath)))
    if found:
        return found
    raise pytest.UsageError(
        "plugin_runtime: which plugin is under test? Set `agent_hooks_plugin = NAME` in the pytest "
        "configuration, or declare exactly one [project.entry-points.agent_hooks] in pyproject.toml")


@pytest.fixture
def plugin_config() -> dict[str, object] | None:
    """The settings section of the plugin under test (None: no section). Override it in a conftest."""
    return None


@pytest.fixture
def plugin_runtime(request: pytest.FixtureRequest, plugin_config: dict[str, object] | None) -> Runtime:
    """A Runtime holding only the plugin under test."""
    name, spec = plugin_under_test(request.config)
    marker = request.node.get_closest_marker("plugin_config")
    section = marker.args[0] if marker is not None and marker.args else plugin_config
    from . import load_plugin
    from . import make_runtime as factory

    loaded_name, plugin = load_plugin(spec)
    return factory((name or loaded_name, plugin), config=section)


@pytest.fixture
def hook_recorder(plugin_runtime: Runtime) -> HookRecorder:
    """Every hook call of ``plugin_runtime``: ``hook_recorder.calls``, ``.hooks``, ``.last``."""
    from . import HookRecorder

    return HookRecorder.attach(plugin_runtime)


# -- conformance vectors ----------------------------------------------------------------------------


@dataclass
class ConformanceCase:
    """One conformance vector in one mode (fire or afire)."""

    vector: Vector
    mode: str

    def run(self, factory: Factory | None = None) -> VectorResult:
        from . import vectors

        return vectors.run_vector(self.vector, factory or vectors.default_factory, self.mode)

    def check(self, factory: Factory | None = None) -> VectorResult:
        """Run it; fail the test with the difference when the runtime disagrees."""
        result = self.run(factory)
        if not result.passed:
            rule = f" ({self.vector.rule})" if getattr(self.vector, "rule", "") else ""
            pytest.fail(f"conformance vector {self.vector.name} [{self.mode}]{rule}:\n  "
                        + "\n  ".join(result.diff), pytrace=False)
        return result


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_vector" not in metafunc.fixturenames:
        return
    try:
        from . import vectors
    except ImportError:  # pragma: no cover - an agent-hooks-core without vectors
        raise pytest.UsageError("conformance_vector: this agent-hooks-core has no conformance vectors") from None
    paths = metafunc.config.getini("agent_hooks_vectors") or []
    cases = [ConformanceCase(v, mode) for v in vectors.load_vectors(*paths)
             for mode in vectors.MODES if mode in v.modes]
    metafunc.parametrize("conformance_vector", cases, ids=[f"{c.vector.name}-{c.mode}" for c in cases])
