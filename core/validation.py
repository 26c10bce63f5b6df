"""Light checks of payloads and answers against the generated field table.

Equivalent to the pydantic models for the simple types the models use, at a fraction of the
cost and without importing pydantic: pydantic's strict mode, which is what JSON data gets.
``tests/core/test_validation.py`` checks the two agree on generated payloads and answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import PayloadError
from .hookspecs._fields import EVENT_DEFAULTS, EVENT_FIELDS, RESULT_FIELDS

_TYPES: dict[str, type | tuple[type, ...]] = {
    "str": str,
    "int": int,
    "float": (int, float),
    "bool": bool,
    "dict": dict,
    "list": list,
    "list[str]": list,
    "list[dict]": list,
}

#: hook -> the set of its declared event field names
KNOWN_FIELDS: dict[str, frozenset[str]] = {h: frozenset(f[0] for f in fs) for h, fs in EVENT_FIELDS.items()}


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _show(value: object) -> str:
    """A short repr: bounded in length and depth (a deeply nested value must not blow the stack)."""
    import reprlib

    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 3, 60, 60
    return short.repr(value)


def too_deep(hook: str, payload: object) -> str:
    """The message for a payload whose nesting exhausted the stack (found without recursing)."""
    worst, deepest = None, 0
    for name, value in (payload.items() if isinstance(payload, dict) else ()):
        stack, depth = [(value, 1)], 0
        while stack:
            item, level = stack.pop()
            depth = max(depth, level)
            if isinstance(item, dict):
                stack.extend((v, level + 1) for v in item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend((v, level + 1) for v in item)
        if depth > deepest:
            worst, deepest = name, depth
    where = f"field {worst!r}" if worst is not None else "payload"
    return f"{hook}: {where} is nested too deeply ({deepest} levels)"


class _Code:
    """A parsed type code (parsed once per distinct code, not per value)."""

    __slots__ = ("allowed", "base", "minimum", "nullable", "types")

    def __init__(self, code: str) -> None:
        base = code[:-1] if code.endswith("?") else code
        self.nullable = code.endswith("?") or base == "any"  # pydantic's Any takes None too
        self.minimum: float | None = None
        if ">=" in base:
            base, _, bound = base.partition(">=")
            self.minimum = float(bound)
        self.base = base
        self.allowed: tuple[str, ...] | None = tuple(base[5:].split("|")) if base.startswith("enum:") else None
        self.types: type | tuple[type, ...] | None = (
            None if base == "any" or self.allowed is not None else _TYPES[base]
        )


_CODES: dict[str, _Code] = {}


def check_value(code: str, value: object) -> str | None:
    """None when ``value`` fits the type code, else what is wrong with it."""
    c = _CODES.get(code)
    if c is None:
        c = _CODES[code] = _Code(code)
    if value is None:
        return None if c.nullable else "must not be null"
    if c.allowed is not None:
        return None if value in c.allowed else f"must be one of {', '.join(c.allowed)}, not {_show(value)}"
    if c.types is None:
        return None
    base = c.base
    if not isinstance(value, c.types) or (isinstance(value, bool) and base in ("int", "float")):
        return f"must be {base}, not {_kind(value)}"
    if base == "list[str]" and isinstance(value, list) and not all(isinstance(v, str) for v in value):
        return "must be a list of strings"
    if base == "list[dict]" and isinstance(value, list) and not all(isinstance(v, dict) for v in value):
        return "must be a list of objects"
    if c.minimum is not None and isinstance(value, (int, float)) and value < c.minimum:
        return f"must be >= {c.minimum:g}"
    return None


def check_payload(hook: str, payload: object) -> dict[str, object]:
    """The payload with defaults filled in; :class:`PayloadError` naming the field otherwise."""
    if not isinstance(payload, dict):
        raise PayloadError(f"{hook}: payload must be a JSON object, not {_kind(payload)}")
    defaults = EVENT_DEFAULTS.get(hook)
    data = dict(payload)
    if defaults:
        for name, value in defaults.items():
            if name not in data:
                data[name] = value.copy() if isinstance(value, (dict, list)) else value
    for name, code, required in EVENT_FIELDS[hook]:
        if name not in data:
            if required:
                raise PayloadError(f"{hook}: payload is missing required field {name!r}")
            continue
        problem = check_value(code, data[name])
        if problem:
            raise PayloadError(f"{hook}: field {name!r} {problem}")
    return data


def check_answer(hook: str, answer: Mapping[str, object]) -> tuple[dict[str, Any], str | None]:
    """(the fields the answer sets, None) or ({}, what is wrong with it).

    Fields set to None count as not set, like pydantic's ``exclude_none``.
    """
    spec = RESULT_FIELDS[hook]
    if spec is None:
        return {}, None
    fields: dict[str, object] = {}
    for name, value in answer.items():
        code = spec.get(name)
        if code is None:
            hint = f"; expected one of {', '.join(sorted(spec))}" if spec else ""
            return {}, f"unknown result field {name!r}{hint}"
        if value is None:
            continue
        problem = check_value(code, value)
        if problem:
            return {}, f"result field {name!r} {problem}"
        fields[name] = value
    return fields, None
