"""Light checks of payloads and answers against the generated field table.

Equivalent to the pydantic models for the simple types the models use, at a fraction of the
cost and without importing pydantic. ``tests/test_generated.py`` checks the two agree.
"""

from __future__ import annotations

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
}

#: hook -> the set of its declared event field names
KNOWN_FIELDS: dict[str, frozenset[str]] = {h: frozenset(f[0] for f in fs) for h, fs in EVENT_FIELDS.items()}


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def check_value(code: str, value: Any) -> str | None:
    """None when ``value`` fits the type code, else what is wrong with it."""
    nullable = code.endswith("?")
    if nullable:
        code = code[:-1]
    if value is None:
        return None if nullable else "must not be null"
    minimum = None
    if ">=" in code:
        code, _, bound = code.partition(">=")
        minimum = float(bound)
    if code == "any":
        return None
    if code.startswith("enum:"):
        allowed = code[5:].split("|")
        return None if value in allowed else f"must be one of {', '.join(allowed)}, not {value!r}"
    expected = _TYPES[code]
    if not isinstance(value, expected) or (code in ("int", "float") and isinstance(value, bool)):
        return f"must be {code}, not {_kind(value)}"
    if code == "list[str]" and not all(isinstance(v, str) for v in value):
        return "must be a list of strings"
    if minimum is not None and value < minimum:
        return f"must be >= {minimum:g}"
    return None


def check_payload(hook: str, payload: Any) -> dict[str, Any]:
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


def check_answer(hook: str, answer: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """(the fields the answer sets, None) or ({}, what is wrong with it).

    Fields set to None count as not set, like pydantic's ``exclude_none``.
    """
    spec = RESULT_FIELDS[hook]
    if spec is None:
        return {}, None
    fields: dict[str, Any] = {}
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
