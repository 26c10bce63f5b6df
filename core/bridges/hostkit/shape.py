"""The answer policy for malformed gating events, shared by every host adapter.

A gating event (one whose answer decides whether a tool runs) is checked against the shape its
host declares before any plugin sees it: the tool's name must be a non-empty string, its input a
JSON object where the host puts it, and the fields that name what a known tool acts on (a shell
command, a file path, a URL) present and of the right type. Anything else raises
:class:`~agent_hooks_core.bridges.base.BridgeInputError` naming the field, which every transport
turns into the adapter's failure: a deny. Hosts change payloads between releases; a shape we do
not know cannot be checked, so it must not run.

Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..base import BridgeInputError

#: characters of JSON text a tool input given as text may have (Cursor's MCP input): parsing is linear,
#: the cap keeps a hostile event from costing more than the transports' own input cap
MAX_JSON_TEXT = 8 * 1024 * 1024


@dataclass(frozen=True)
class Needs:
    """Input fields, any one of which names what a tool call acts on (a command, a path, a URL)."""

    keys: tuple[str, ...]
    #: a non-empty list of strings is accepted too (shells that pass argv)
    argv: bool = False
    #: the value is a list of strings (several paths), not one string
    many: bool = False
    #: may be absent (the tool then acts on its default, the working directory); when present it
    #: must have the right type
    optional: bool = False


def needs(*keys: str, argv: bool = False, many: bool = False, optional: bool = False) -> Needs:
    return Needs(tuple(keys), argv=argv, many=many, optional=optional)


@dataclass(frozen=True)
class ToolShape:
    """Where a gating event carries its tool call, and what each known tool must have."""

    #: path to the tool's input object; ``()`` when the fields are on the event itself
    input: tuple[str, ...] = ("tool_input",)
    #: path to the tool's name; None when the event is about one tool (``tool``)
    name: tuple[str, ...] | None = ("tool_name",)
    #: the tool's name when the event names none (Cursor's ``beforeShellExecution`` is always a shell)
    tool: str = ""
    #: tool name -> the fields it must carry; tools not listed need only an object
    fields: Mapping[str, Needs] = field(default_factory=dict)
    #: tool names compared case-insensitively (Cursor spells them ``Shell`` or ``shell``)
    fold_case: bool = False
    #: the input is JSON text holding an object (Cursor's ``beforeMCPExecution``)
    json_text: bool = False


class _NonFinite:
    """A number JSON does not have, as it was written (``NaN``, ``Infinity``, ``1e999``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def load_json(raw: bytes | str) -> tuple[Any, str | None]:
    """``json.loads`` for what hosts send: ``(value, None)``, or ``(value, problem)`` when the text
    holds a number JSON does not have: ``NaN``, ``Infinity``, ``-Infinity`` (Python's json reads
    them, JSON and the hosts' own parsers do not) or one too large for a float (``1e999``). The
    problem names the first such field (``tool_input.timeout is NaN, not a JSON number``); each
    is read as None so the rest (the event's name, a request's id) can still route the refusal.
    The one place events are loaded from JSON: bridges, the server's ``/fire`` and host routes, stdio.
    Raises what ``json.loads`` raises for text that is no JSON at all."""
    found: list[_NonFinite] = []

    def constant(text: str) -> _NonFinite:
        mark = _NonFinite(text)
        found.append(mark)
        return mark

    def number(text: str) -> Any:
        value = float(text)
        return value if value - value == 0.0 else constant(text)  # inf - inf and nan - nan are nan

    value = json.loads(raw, parse_constant=constant, parse_float=number)
    if not found:
        return value, None
    if isinstance(value, _NonFinite):
        return None, f"the event is {value.text}, not a JSON object"
    first = _without_marks(value)
    return value, f"{first}, not a JSON number"


def _without_marks(root: Any) -> str:
    """Replace every mark in ``root`` by None; ``"<dotted path> is <text>"`` of the first one in
    document order. Iterative: the depth is the JSON parser's, never Python's stack."""
    first = ""
    stack: list[tuple[Any, str, Any]] = [(root, "", iter(_entries(root)))]
    while stack:
        node, path, entries = stack[-1]
        step = next(entries, None)
        if step is None:
            stack.pop()
            continue
        key, child = step
        where = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))
        if isinstance(child, _NonFinite):
            node[key] = None
            first = first or f"{where} is {child.text}"
        elif isinstance(child, dict | list):
            stack.append((child, where, iter(_entries(child))))
    return first


def _entries(node: Any) -> list[tuple[Any, Any]]:
    return list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []


def json_type(value: Any) -> str:
    """The JSON name of ``value``'s type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path) or "the event"


def _walk(event: Mapping[str, Any], path: tuple[str, ...], where: str) -> Any:
    """The value at ``path``; BridgeInputError naming the first step that is missing or not an object."""
    value: Any = event
    for i, key in enumerate(path):
        if not isinstance(value, Mapping):
            raise BridgeInputError(f"{where}: {_dotted(path[:i])} must be an object, not {json_type(value)}")
        if key not in value:
            # an object under another key is likely the input a new host release moved: name it
            others = sorted(k for k, v in value.items() if isinstance(k, str) and isinstance(v, dict))[:4]
            hint = f" (objects there: {', '.join(others)})" if others and i == len(path) - 1 else ""
            raise BridgeInputError(f"{where}: {_dotted(path[:i + 1])} is missing{hint}")
        value = value[key]
    return value


def _check_field(tool: str, args: Mapping[str, Any], spec: Needs, prefix: str) -> None:
    present = [k for k in spec.keys if args.get(k) is not None]
    if not present:
        if spec.optional:
            return
        names = " or ".join(f"{prefix}{k}" for k in spec.keys)
        raise BridgeInputError(f"{tool} {names} is missing: the call cannot be checked")
    key = present[0]
    value = args[key]
    if spec.many:
        ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
        wanted = "a list of strings"
    else:
        ok = isinstance(value, str) and bool(value)
        if not ok and spec.argv:
            ok = isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
        wanted = "a string or a list of strings" if spec.argv else "a string"
    if not ok:
        if isinstance(value, str | list) and not value:
            what = "empty"
        elif isinstance(value, dict):
            what = f"an object, not {wanted}"
        else:
            what = f"a {json_type(value)}, not {wanted}"
        raise BridgeInputError(f"{tool} {prefix}{key} is {what}: the call cannot be checked")


def tool_call(event: Mapping[str, Any], shape: ToolShape, where: str) -> tuple[str, dict[str, Any]]:
    """(tool name, input object) of the gating event ``event`` (named ``where`` in messages), or
    BridgeInputError saying which field is missing, null, of the wrong type or somewhere else."""
    if not isinstance(event, Mapping):
        raise BridgeInputError(f"{where}: the event must be an object, not {json_type(event)}")
    if shape.name is None:
        tool = shape.tool
    else:
        tool = _walk(event, shape.name, where)
        if not isinstance(tool, str) or not tool.strip():
            what = "empty" if isinstance(tool, str) else f"a {json_type(tool)}, not a string"
            raise BridgeInputError(f"{where}: {_dotted(shape.name)} is {what}")
    args = _walk(event, shape.input, where) if shape.input else event
    name = _dotted(shape.input) if shape.input else "the event"
    if shape.json_text and isinstance(args, str):
        if len(args) > MAX_JSON_TEXT:
            raise BridgeInputError(f"{where}: {name} is longer than {MAX_JSON_TEXT} characters")
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):
            raise BridgeInputError(f"{where}: {name} is not valid JSON") from None
    if not isinstance(args, dict):
        raise BridgeInputError(f"{where}: {name} must be an object, not {json_type(args)}")
    spec = shape.fields.get(tool.lower() if shape.fold_case else tool)
    if spec is not None:
        _check_field(tool, args, spec, f"{name}." if shape.input else "")
    return tool, args
