"""Conformance vectors: table-driven checks that a runtime combines handler answers as documented.

A vector names a hook, a payload and the answers of N handlers in call order, and states what
the combined result must be. The runner builds one plugin per answer, fires the hook through a
runtime made by a *factory* (yours, if you embed or re-implement agent-hooks) and compares.
The format is described in ``core/data/vectors/README.md``; the vectors ship inside the package::

    from agent_hooks_core.testing.vectors import load_vectors, run_vectors
    failures = [r for r in run_vectors(load_vectors(), factory=my_factory) if not r.passed]

    python -m agent_hooks_core.testing.vectors [--factory module:callable] [--mode fire|afire] [FILE...]

A factory is ``factory(plugins, **options) -> runtime``: ``plugins`` is a list of
``(name, plugin)`` pairs in load order, ``options`` the vector's runtime options
(``hook_timeout``, ``timeouts``, ``default_fallback``). The runtime needs ``fire(hook, payload)``
(and ``afire`` for the async mode) returning an object with ``data``, ``decision``, ``answered``,
``handlers``, ``errors`` (items with ``plugin``, ``kind``, ``message``), ``event`` and ``notes``.
"""

from __future__ import annotations

import argparse
import asyncio
import builtins
import copy
import difflib
import importlib
import json
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeGuard, cast

from ..hookspecs.markers import hookimpl

MODES = ("fire", "afire")
#: keys every vector's ``expect`` must have
REQUIRED_EXPECT = ("data", "decision", "answered", "errors")
OPTIONAL_EXPECT = ("called", "seen", "event", "notes")
MARKERS = ("$raise", "$hang", "$async", "$coroutine", "$object", "$model", "$exit")
_HANG_LIMIT = 30.0  # a hung handler gives up by itself eventually, whatever the runtime does


class VectorFormatError(ValueError):
    """A vector file is malformed; ``str()`` is one line naming the file and the vector."""


@dataclass(frozen=True)
class Step:
    """One ``fire``: the hook, its payload and each handler's answer (None = no method called)."""

    hook: str
    payload: dict[str, object] | None
    answers: tuple[object, ...]


@dataclass(frozen=True)
class Vector:
    name: str
    hook: str
    payload: dict[str, object] | None
    answers: tuple[object, ...]
    expect: dict[str, object]
    plugins: tuple[str, ...]
    options: dict[str, object] = field(default_factory=dict)
    before: tuple[Step, ...] = ()
    modes: tuple[str, ...] = MODES
    rule: str = ""
    description: str = ""
    source: str = ""
    """file the vector came from"""
    approvers: tuple[str, ...] = ()
    """plugins that declare ``agent_hooks_approver = True`` (their allow counts on verdict hooks)"""


@dataclass
class VectorResult:
    vector: Vector
    mode: str
    passed: bool
    diff: list[str]
    outcome: OutcomeLike | None = None

    def __str__(self) -> str:
        head = f"{'PASS' if self.passed else 'FAIL'} {self.vector.name} [{self.mode}]"
        return "\n".join([head, *("    " + line for line in self.diff)])


class ErrorLike(Protocol):
    """One handler's failure as the vectors read it (:class:`~agent_hooks_core.errors.HookError`)."""

    @property
    def plugin(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...


class OutcomeLike(Protocol):
    """What the vectors read of an outcome (:class:`~agent_hooks_core.runtime.Outcome`, or another
    implementation's); ``notes`` is read when present."""

    @property
    def data(self) -> Mapping[str, object] | None: ...
    @property
    def decision(self) -> object: ...
    @property
    def answered(self) -> Sequence[str]: ...
    @property
    def handlers(self) -> Sequence[str]: ...
    @property
    def errors(self) -> Sequence[ErrorLike]: ...
    @property
    def event(self) -> Mapping[str, object]: ...


class RuntimeLike(Protocol):
    """What the vectors call on a runtime a :data:`Factory` builds."""

    def fire(self, hook: str, payload: dict[str, object] | None = None) -> OutcomeLike: ...
    def afire(self, hook: str, payload: dict[str, object] | None = None) -> Awaitable[OutcomeLike]: ...


# -- loading ----------------------------------------------------------------------------------


def packaged_dir() -> Path:
    """The vectors shipped inside the package (``agent_hooks_core/data/vectors``)."""
    return Path(__file__).resolve().parent.parent / "data" / "vectors"


def vector_files(*paths: str | Path) -> list[Path]:
    """JSON files under ``paths`` (files or directories), sorted; the packaged ones by default."""
    roots = [Path(p) for p in paths] or [packaged_dir()]
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            files.extend(sorted(root.glob("*.json")))
        elif root.is_file():
            files.append(root)
        else:
            raise VectorFormatError(f"{root}: no such file or directory")
    return files


def load_vectors(*paths: str | Path) -> list[Vector]:
    """Every vector in ``paths`` (default: the packaged vectors), checked for format."""
    vectors: list[Vector] = []
    seen: dict[str, str] = {}
    for path in vector_files(*paths):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise VectorFormatError(f"{path.name}: {exc}") from None
        items = doc.get("vectors") if isinstance(doc, dict) else None
        if not isinstance(items, list):
            raise VectorFormatError(f"{path.name}: expected an object with a 'vectors' list")
        for i, raw in enumerate(items):
            vector = parse_vector(raw, f"{path.name}: vector {i}")
            vector = Vector(**{**vector.__dict__, "source": path.name})
            if vector.name in seen:
                raise VectorFormatError(f"{path.name}: vector name {vector.name!r} also in {seen[vector.name]}")
            seen[vector.name] = path.name
            vectors.append(vector)
    return vectors


def parse_vector(raw: object, where: str = "vector") -> Vector:
    """One vector from its JSON object; :class:`VectorFormatError` naming the problem otherwise."""
    if not isinstance(raw, dict):
        raise VectorFormatError(f"{where}: must be an object")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise VectorFormatError(f"{where}: 'name' must be a non-empty string")
    where = f"{where} {name!r}"
    known = {"name", "hook", "payload", "answers", "plugins", "approvers", "options", "before", "modes", "rule",
             "description", "expect"}
    extra = set(raw) - known
    if extra:
        raise VectorFormatError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
    main = _parse_step(raw, where)
    plugins = raw.get("plugins")
    if plugins is None:
        plugins = [f"h{i + 1}" for i in range(len(main.answers))]
    if (not isinstance(plugins, list) or len(plugins) != len(main.answers)
            or not all(isinstance(p, str) and p for p in plugins) or len(set(plugins)) != len(plugins)):
        raise VectorFormatError(f"{where}: 'plugins' must be distinct names, one per answer")
    approvers = raw.get("approvers", [])
    if not isinstance(approvers, list) or any(a not in plugins for a in approvers):
        raise VectorFormatError(f"{where}: 'approvers' must list names of the vector's plugins")
    before = raw.get("before", [])
    if not isinstance(before, list):
        raise VectorFormatError(f"{where}: 'before' must be a list of steps")
    steps = tuple(_parse_step(step, f"{where} before[{k}]") for k, step in enumerate(before))
    for k, step in enumerate(steps):
        if len(step.answers) > len(plugins):
            raise VectorFormatError(f"{where} before[{k}]: more answers than plugins")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise VectorFormatError(f"{where}: 'options' must be an object")
    modes = raw.get("modes", list(MODES))
    if not isinstance(modes, list) or not modes or any(m not in MODES for m in modes):
        raise VectorFormatError(f"{where}: 'modes' must be a non-empty list of {', '.join(MODES)}")
    expect = raw.get("expect")
    if not isinstance(expect, dict):
        raise VectorFormatError(f"{where}: 'expect' must be an object")
    missing = [k for k in REQUIRED_EXPECT if k not in expect]
    if missing:
        raise VectorFormatError(f"{where}: 'expect' is missing {', '.join(missing)}")
    unknown = set(expect) - set(REQUIRED_EXPECT) - set(OPTIONAL_EXPECT)
    if unknown:
        raise VectorFormatError(f"{where}: 'expect' has unknown key(s) {', '.join(sorted(unknown))}")
    if "seen" in expect and (not isinstance(expect["seen"], list) or len(expect["seen"]) != len(plugins)):
        raise VectorFormatError(f"{where}: 'seen' must have one entry (an object or null) per handler")
    for err in expect["errors"]:
        if not isinstance(err, dict) or not isinstance(err.get("plugin"), str):
            raise VectorFormatError(f"{where}: each expected error needs a 'plugin'")
    for answer in main.answers:
        _check_answer_format(answer, where)
    return Vector(
        name=name, hook=main.hook, payload=main.payload, answers=main.answers, expect=expect,
        plugins=tuple(plugins), options=options, before=steps, modes=tuple(modes),
        rule=str(raw.get("rule", "")), description=str(raw.get("description", "")),
        approvers=tuple(approvers),
    )


def _parse_step(raw: object, where: str) -> Step:
    if not isinstance(raw, dict):
        raise VectorFormatError(f"{where}: must be an object")
    hook = raw.get("hook")
    if not isinstance(hook, str) or not hook:
        raise VectorFormatError(f"{where}: 'hook' must be a hook name")
    payload = raw.get("payload")
    if payload is not None and not isinstance(payload, dict):
        raise VectorFormatError(f"{where}: 'payload' must be an object or null")
    answers = raw.get("answers")
    if not isinstance(answers, list):
        raise VectorFormatError(f"{where}: 'answers' must be a list (one answer per handler)")
    return Step(hook, payload, tuple(answers))


def _is_marker(value: object) -> TypeGuard[dict[str, object]]:
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) and k.startswith("$") for k in value)


def _check_answer_format(answer: object, where: str) -> None:
    if not _is_marker(answer):
        return
    keys = [k for k in answer if k in MARKERS]
    if len(keys) != 1 or (set(answer) - {keys[0], "$type"}) or ("$type" in answer and keys[0] != "$raise"):
        raise VectorFormatError(f"{where}: bad marker {answer!r}; one of {', '.join(MARKERS)}")
    if keys[0] in ("$async", "$coroutine"):
        _check_answer_format(answer[keys[0]], where)
    if keys[0] == "$raise" and "$type" in answer:
        exc_type = getattr(builtins, str(answer["$type"]), None)
        if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
            raise VectorFormatError(f"{where}: $type {answer['$type']!r} is not a builtin exception")
    if keys[0] == "$object" and answer["$object"] not in _OBJECTS:
        raise VectorFormatError(f"{where}: $object must be one of {', '.join(_OBJECTS)}")
    if keys[0] == "$hang" and answer["$hang"] not in ("sleep", "busy"):
        raise VectorFormatError(f"{where}: $hang must be sleep or busy")


# -- building handlers ------------------------------------------------------------------------


class _ModelDumpRaises:
    def model_dump(self, **kwargs: object) -> object:
        raise ValueError("model_dump lied")


class _ModelDumpList:
    def model_dump(self, **kwargs: object) -> object:
        return ["not", "a", "dict"]


class _Opinion:
    """An arbitrary object: not a dict, not a model."""


_OBJECTS: dict[str, Callable[[], object]] = {
    "plain": _Opinion,
    "model_dump_raises": _ModelDumpRaises,
    "model_dump_list": _ModelDumpList,
}


class _Script:
    """What the handlers of one run answer and what they saw."""

    def __init__(self, vector: Vector) -> None:
        self.steps = [*vector.before, Step(vector.hook, vector.payload, vector.answers)]
        self.current = 0
        self.release = threading.Event()
        self.seen: list[dict[str, object] | None] = [None] * len(vector.plugins)

    def answer(self, index: int, hook: str) -> object:
        step = self.steps[self.current]
        if step.hook != hook or index >= len(step.answers):
            return None
        return step.answers[index]


def _hang_sync(release: threading.Event, how: str) -> None:
    limit = time.monotonic() + _HANG_LIMIT
    if how == "busy":
        while not release.is_set() and time.monotonic() < limit:
            pass
    else:
        while not release.is_set() and time.monotonic() < limit:
            time.sleep(0.005)


async def _hang_async(release: threading.Event) -> None:
    limit = time.monotonic() + _HANG_LIMIT
    while not release.is_set() and time.monotonic() < limit:
        await asyncio.sleep(0.005)


def _raise(marker: dict[str, object]) -> None:
    exc_type: type[BaseException] = getattr(builtins, str(marker.get("$type", "RuntimeError")))
    if exc_type is SystemExit:
        raise SystemExit(marker["$raise"])
    raise exc_type(marker["$raise"])


def _resolve_sync(answer: object, script: _Script, hook: str) -> object:
    """What a sync handler does for ``answer``."""
    if not _is_marker(answer):
        return copy.deepcopy(answer)  # a handler's answer is its own object, never the vector's
    if "$raise" in answer:
        _raise(answer)
    if "$exit" in answer:
        raise SystemExit(answer["$exit"])
    if "$hang" in answer:
        _hang_sync(script.release, str(answer["$hang"]))
        return None
    if "$object" in answer:
        return _OBJECTS[str(answer["$object"])]()
    if "$model" in answer:
        from ..hookspecs.models import RESULTS

        model = RESULTS.get(hook)
        if model is None:
            raise VectorFormatError(f"$model: {hook} has no result model")
        return model.model_validate(answer["$model"])
    if "$coroutine" in answer:
        return _resolve_async(answer["$coroutine"], script, hook)
    raise VectorFormatError(f"marker {answer!r} cannot run here")


async def _resolve_async(answer: object, script: _Script, hook: str) -> object:
    """What an async handler does for ``answer``."""
    await asyncio.sleep(0)  # really suspend once: a runtime must not treat it as sync
    if _is_marker(answer) and "$hang" in answer:
        await _hang_async(script.release)
        return None
    return _resolve_sync(answer, script, hook)


def build_plugins(vector: Vector, script: _Script | None = None) -> list[tuple[str, object]]:
    """One plugin per handler: it implements every hook of the vector's steps."""
    script = script or _Script(vector)
    hooks = {step.hook for step in script.steps}
    plugins: list[tuple[str, object]] = []
    for index, name in enumerate(vector.plugins):
        namespace: dict[str, object] = {}
        for hook in sorted(hooks):
            is_async = any(
                step.hook == hook and index < len(step.answers) and _is_marker(answer := step.answers[index])
                and "$async" in answer
                for step in script.steps
            )
            namespace[hook] = _make_handler(index, hook, is_async, script)
        if name in vector.approvers:
            namespace["agent_hooks_approver"] = True  # the declaration that lets its allow count
        plugins.append((name, type(f"VectorPlugin_{name}", (), namespace)()))
    return plugins


def _make_handler(index: int, hook: str, is_async: bool, script: _Script) -> Callable[..., object]:
    def record(event: Mapping[str, object]) -> None:
        if script.current == len(script.steps) - 1:
            script.seen[index] = copy.deepcopy(dict(event))

    if is_async:
        async def async_handler(self: object, event: Mapping[str, object]) -> object:
            record(event)
            answer = script.answer(index, hook)
            if _is_marker(answer) and "$async" in answer:
                return await _resolve_async(answer["$async"], script, hook)
            return _resolve_sync(answer, script, hook)

        async_handler.__name__ = hook
        return hookimpl(async_handler)

    def handler(self: object, event: Mapping[str, object]) -> object:
        record(event)
        return _resolve_sync(script.answer(index, hook), script, hook)

    handler.__name__ = hook
    return hookimpl(handler)


# -- running ----------------------------------------------------------------------------------


def default_factory(plugins: Sequence[tuple[str, object]], **options: object) -> RuntimeLike:
    """agent-hooks' own :class:`~agent_hooks_core.runtime.Runtime`."""
    from ..runtime import Runtime

    return Runtime(plugins=list(plugins), **options)  # type: ignore[arg-type]  # a vector's options, checked by Runtime


Factory = Callable[..., "RuntimeLike"]
"""Builds a runtime from ``(plugins, **vector options)``: any implementation the vectors check."""


def run_vector(vector: Vector, factory: Factory = default_factory, mode: str = "fire") -> VectorResult:
    """Fire the vector's steps through a fresh runtime and compare the last outcome."""
    script = _Script(vector)
    try:
        runtime = factory(build_plugins(vector, script), **vector.options)
        if mode == "afire":
            outcome = asyncio.run(_afire_steps(runtime, script))
        else:
            outcome = None
            for k, step in enumerate(script.steps):
                script.current = k
                outcome = runtime.fire(step.hook, copy.deepcopy(step.payload))
    except Exception as exc:  # the runtime raised: that is a failure of the vector, not of the run
        return VectorResult(vector, mode, False, [f"raised {type(exc).__name__}: {exc}"])
    finally:
        script.release.set()
    if outcome is None:
        return VectorResult(vector, mode, False, ["the runtime gave no outcome"])
    diff = compare(vector, outcome, script.seen)
    return VectorResult(vector, mode, not diff, diff, outcome)


async def _afire_steps(runtime: RuntimeLike, script: _Script) -> OutcomeLike | None:
    outcome: OutcomeLike | None = None
    for k, step in enumerate(script.steps):
        script.current = k
        outcome = await runtime.afire(step.hook, copy.deepcopy(step.payload))
    return outcome


def run_vectors(vectors: Iterable[Vector], factory: Factory = default_factory,
                modes: Sequence[str] = MODES) -> list[VectorResult]:
    """Every vector in every mode it allows (of ``modes``)."""
    return [run_vector(v, factory, mode) for v in vectors for mode in modes if mode in v.modes]


# -- comparing --------------------------------------------------------------------------------


def matches(expected: object, actual: object) -> bool:
    """JSON equality (``true`` is not ``1``), with matchers: ``{"$contains": "text"}``, ``{"$any": true}``."""
    if _is_marker(expected):
        if "$any" in expected:
            return True
        if "$contains" in expected:
            return isinstance(actual, str) and str(expected["$contains"]) in actual
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and set(expected) == set(actual)
                and all(matches(v, actual[k]) for k, v in expected.items()))
    if isinstance(expected, list):
        return (isinstance(actual, (list, tuple)) and len(expected) == len(actual)
                and all(matches(e, a) for e, a in zip(expected, actual, strict=True)))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return bool(expected == actual)


def _subset(expected: object, actual: object) -> bool:
    return isinstance(expected, dict) and isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())


def _dump(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=repr)


def _diff_lines(label: str, expected: object, actual: object) -> list[str]:
    if isinstance(expected, (dict, list)) and isinstance(actual, (dict, list)):
        lines = list(difflib.unified_diff(_dump(expected).splitlines(), _dump(actual).splitlines(),
                                          "expected", "actual", lineterm="", n=1))
        return [f"{label}:", *("  " + line for line in lines)]
    return [f"{label}: expected {json.dumps(expected, default=repr)}, got {json.dumps(actual, default=repr)}"]


def compare(vector: Vector, outcome: OutcomeLike, seen: Sequence[object] | None = None) -> list[str]:
    """What differs between the vector's expectations and ``outcome`` (empty: it passed)."""
    exp = vector.expect
    diff: list[str] = []
    if not matches(exp["data"], outcome.data):
        diff += _diff_lines("data", exp["data"], outcome.data)
    if exp["decision"] != outcome.decision:
        diff += _diff_lines("decision", exp["decision"], outcome.decision)
    if _items(exp["answered"]) != list(outcome.answered):
        diff += _diff_lines("answered", exp["answered"], list(outcome.answered))
    if "called" in exp and _items(exp["called"]) != list(outcome.handlers):
        diff += _diff_lines("called", exp["called"], list(outcome.handlers))
    errors = [{"plugin": e.plugin, "kind": e.kind, "message": e.message} for e in outcome.errors]
    if not _errors_match(exp["errors"], errors):
        diff += _diff_lines("errors", exp["errors"], errors)
    if "event" in exp and not _subset(exp["event"], dict(outcome.event)):
        diff += _diff_lines("event", exp["event"], dict(outcome.event))
    if "notes" in exp:
        notes: list[str] = list(getattr(outcome, "notes", []))
        want_notes = _items(exp["notes"])
        if len(notes) != len(want_notes) or not all(
                isinstance(n, str) and n in got for n, got in zip(want_notes, notes, strict=True)):
            diff += _diff_lines("notes", exp["notes"], notes)
    if "seen" in exp and seen is not None:
        for i, (want, got) in enumerate(zip(_items(exp["seen"]), seen, strict=True)):
            ok = got is None if want is None else _subset(want, got)
            if not ok:
                diff += _diff_lines(f"seen by {vector.plugins[i]}", want, got)
    return diff


def _items(value: object) -> list[object]:
    """An expected list as a list (a vector's file is checked for format, not every type)."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _errors_match(expected: object, actual: list[dict[str, str]]) -> bool:
    if not isinstance(expected, list) or len(expected) != len(actual):
        return False
    for want, got in zip(expected, actual, strict=True):
        if want["plugin"] != got["plugin"]:
            return False
        if "kind" in want and want["kind"] != got["kind"]:
            return False
        if "message" in want and str(want["message"]) not in got["message"]:
            return False
    return True


# -- command line -----------------------------------------------------------------------------


def _load_factory(spec: str) -> Factory:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise VectorFormatError(f"--factory {spec!r}: expected module:callable")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise VectorFormatError(f"--factory {spec!r}: {exc}") from None
    if not callable(factory):
        raise VectorFormatError(f"--factory {spec!r}: not callable")
    return cast("Factory", factory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent_hooks_core.testing.vectors",
                                     description="Run the agent-hooks conformance vectors against a runtime.")
    parser.add_argument("paths", nargs="*", help="vector files or directories (default: the packaged vectors)")
    parser.add_argument("--factory", help="module:callable building a runtime (default: agent-hooks' Runtime)")
    parser.add_argument("--mode", choices=MODES, action="append", help="fire, afire (default: both)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list passing vectors too")
    args = parser.parse_args(argv)
    try:
        factory = _load_factory(args.factory) if args.factory else default_factory
        vectors = load_vectors(*args.paths)
    except VectorFormatError as exc:
        print(f"vectors: error: {exc}", file=sys.stderr)
        return 2
    results = run_vectors(vectors, factory, tuple(args.mode or MODES))
    failed = [r for r in results if not r.passed]
    for r in results:
        if args.verbose or not r.passed:
            print(r)
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed ({len(vectors)} vectors)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
