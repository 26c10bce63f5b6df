"""Helpers for testing plugins (and runtimes): build a runtime, fire, assert on outcomes.

They work with any test runner; with pytest, the ``agent_hooks`` pytest plugin (installed with
agent-hooks-core) adds fixtures around them: ``make_runtime``, ``plugin_runtime``,
``hook_recorder`` and ``conformance_vector``. ::

    import agent_hooks_example
    from agent_hooks_core.testing import assert_blocked, make_runtime

    def test_blocks_rm():
        rt = make_runtime(agent_hooks_example)
        out = rt.fire("pre_tool", {"tool_name": "bash", "arguments": {"command": "rm -rf /"}})
        assert_blocked(out, reason="rm -rf")

Every ``assert_*`` raises :class:`AssertionError` with the decision, the combined result and the
errors in the message, and returns what it checked, so tests can go on from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import HookError, PluginError
from ..hookspecs.markers import hookimpl

if TYPE_CHECKING:
    from ..runtime import Outcome, Runtime

__all__ = [
    "HookRecorder",
    "assert_allowed",
    "assert_blocked",
    "assert_denied",
    "assert_error",
    "assert_modified",
    "assert_no_errors",
    "assert_observed",
    "assert_result",
    "load_plugin",
    "make_runtime",
]


def load_plugin(spec: object) -> tuple[str, object]:
    """``(name, plugin)`` for a plugin given as an object, a module, a ``(name, obj)`` pair, an
    installed entry-point or distribution name, a ``module:attr`` / module path, or a ``.py`` file."""
    from ..runtime import _plugin_name

    if isinstance(spec, tuple):
        return str(spec[0]), spec[1]
    if not isinstance(spec, str):
        return _plugin_name(spec), spec
    from ..discovery import import_entry_point, import_file, scan_entry_points
    from ..settings import normalize_name

    if spec.endswith(".py"):
        from pathlib import Path

        path = Path(spec)
        return path.stem, import_file(path)
    key = normalize_name(spec)
    for rec in scan_entry_points():
        if key in (normalize_name(rec.name), normalize_name(rec.dist)):
            return rec.name, import_entry_point(rec.value)
    try:
        obj = import_entry_point(spec)
    except ImportError:
        raise PluginError(f"no plugin {spec!r}: not an installed entry point (group agent_hooks) "
                          "nor an importable module") from None
    return spec.partition(":")[2] or spec.rpartition(".")[2], obj


def make_runtime(*plugins: object, config: Mapping[str, object] | None = None,
                 configs: Mapping[str, Mapping[str, object]] | None = None, **options: Any) -> Runtime:
    """A :class:`~agent_hooks_core.Runtime` holding only ``plugins`` (no settings, no entry points).

    ``plugins``: see :func:`load_plugin`. ``config`` is the ``[plugins.<name>]`` section of the one
    plugin given; ``configs`` maps names to sections when there are several. Sections are
    validated by each plugin's ``plugin_config_model()`` exactly as discovery does (an invalid
    one raises :class:`~agent_hooks_core.PluginError` naming the field). Other keyword arguments
    go to the Runtime (``hook_timeout``, ``order``, ``ui``, ``has_ui``, ...).
    """
    from ..discovery import configure
    from ..runtime import Runtime

    pairs = [load_plugin(p) for p in plugins]
    sections: dict[str, Mapping[str, object]] = dict(configs or {})
    if config is not None:
        if len(pairs) != 1:
            raise TypeError("config= is for a single plugin; use configs={name: section}")
        sections[pairs[0][0]] = dict(config)
    rt = Runtime(plugins=pairs, **options)
    for name, _ in pairs:
        message = configure(rt, name, sections.get(name), ["test"] if name in sections else [])
        if message is not None:
            raise PluginError(f"plugin {name!r}: {message}")
    unknown = set(sections) - {n for n, _ in pairs}
    if unknown:
        raise TypeError(f"configs= names plugins that are not in the runtime: {', '.join(sorted(unknown))}")
    return rt


class HookRecorder:
    """Records every hook call of a runtime (through ``hook_called``)::

        rec = HookRecorder.attach(rt)
        rt.fire("turn_start", {})
        assert rec.hooks == ["turn_start"]
    """

    name = "hook-recorder"

    def __init__(self) -> None:
        self.calls: list[Outcome] = []

    @classmethod
    def attach(cls, rt: Runtime) -> HookRecorder:
        rec = cls()
        rt.register(rec, name=cls.name)
        return rec

    @hookimpl
    def hook_called(self, outcome: Outcome) -> None:
        self.calls.append(outcome)

    @property
    def hooks(self) -> list[str]:
        return [o.hook for o in self.calls]

    def get(self, hook: str) -> list[Outcome]:
        return [o for o in self.calls if o.hook == hook]

    @property
    def last(self) -> Outcome | None:
        """The latest call (None before the first)."""
        return self.calls[-1] if self.calls else None

    def clear(self) -> None:
        self.calls.clear()


# -- assertions ---------------------------------------------------------------------------------


def _show(out: Outcome) -> str:
    errors = "; ".join(str(e) for e in out.errors) or "none"
    return (f"{out.hook}: decision {out.decision!r}, result {out.data!r}, answered by "
            f"{out.answered or 'nobody'}, errors: {errors}")


def _check_reason(out: Outcome, reason: str | None, by: str | None) -> None:
    if reason is not None and reason not in (out.reason or ""):
        raise AssertionError(f"expected the reason to contain {reason!r}; {_show(out)}")
    if by is not None and by not in out.answered:
        raise AssertionError(f"expected plugin {by!r} to have answered; {_show(out)}")


def assert_blocked(out: Outcome, reason: str | None = None, by: str | None = None) -> Outcome:
    """The action does not happen: ``block``, ``cancel`` or ``handled`` (not a permission denial)."""
    if out.decision != "blocked":
        raise AssertionError(f"expected {out.hook} to be blocked; {_show(out)}")
    _check_reason(out, reason, by)
    return out


def assert_denied(out: Outcome, reason: str | None = None, by: str | None = None) -> Outcome:
    """A permission hook denied."""
    if out.decision != "denied":
        raise AssertionError(f"expected {out.hook} to be denied; {_show(out)}")
    _check_reason(out, reason, by)
    return out


def assert_allowed(out: Outcome) -> Outcome:
    """Nothing blocked, denied or changed."""
    if out.decision != "allowed":
        raise AssertionError(f"expected {out.hook} to be allowed unchanged; {_show(out)}")
    return out


def assert_observed(out: Outcome) -> Outcome:
    """An observe hook ran (its answers are ignored)."""
    if out.decision != "observed":
        raise AssertionError(f"expected {out.hook} to be an observe hook; {_show(out)}")
    return out


def assert_result(out: Outcome, **fields: object) -> dict[str, Any]:
    """The combined result has these field values (other fields may be present)."""
    data = out.data or {}
    wrong = {k: data.get(k, "<missing>") for k, v in fields.items() if data.get(k, _MISSING) != v}
    if wrong:
        raise AssertionError(f"expected {fields!r}, got {wrong!r}; {_show(out)}")
    return data


def assert_modified(out: Outcome, **fields: object) -> dict[str, Any]:
    """The result changes something (decision ``modified``) and has these field values."""
    if out.decision != "modified":
        raise AssertionError(f"expected {out.hook} to be modified; {_show(out)}")
    return assert_result(out, **fields)


def assert_no_errors(target: Outcome | Runtime) -> None:
    """No handler failed (an Outcome), or every plugin loaded (a Runtime from settings)."""
    errors: Iterable[HookError] = getattr(target, "errors", None) or getattr(target, "load_errors", [])
    errors = list(errors)
    if errors:
        raise AssertionError("unexpected errors: " + "; ".join(str(e) for e in errors))


def assert_error(target: Outcome | Runtime, plugin: str | None = None, kind: str | None = None,
                 match: str | None = None) -> HookError:
    """An error matching ``plugin``, ``kind`` (error, invalid, timeout, load, ...) and ``match``
    (a substring of the message) was recorded; returns it."""
    errors: list[HookError] = list(getattr(target, "errors", None) or getattr(target, "load_errors", []))
    for err in errors:
        if ((plugin is None or err.plugin == plugin) and (kind is None or err.kind == kind)
                and (match is None or match in err.message)):
            return err
    wanted = ", ".join(f"{k}={v!r}" for k, v in (("plugin", plugin), ("kind", kind), ("match", match)) if v)
    raise AssertionError(f"no error with {wanted or 'any properties'}; errors: "
                         + ("; ".join(str(e) for e in errors) or "none"))


_MISSING = object()
