"""What every dialect shares: the translated call, the name tables, key-case helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import AgentHooksError, PayloadError, UnknownHookError
from ..hookspecs.catalogue import HOOKS

if TYPE_CHECKING:
    from ..reducer import Reduction
    from ..runtime import Outcome


class UnknownDialectError(AgentHooksError, ValueError):
    """``dialect=`` names no dialect."""


@dataclass
class Call:
    """One dialect call translated into a canonical one."""

    dialect: str
    name: str
    """the seed name the host used (for pi-agent's ``session`` event: ``session:<reason>``)"""
    hook: str
    """the canonical hook"""
    payload: dict[str, object]
    """the canonical payload"""
    original: object
    """the payload as the host gave it"""
    reduction: type[Reduction] | None = None
    """a dialect-specific combination rule, or None for the canonical one"""
    extra: dict[str, object] = field(default_factory=dict)


def seed_names(*systems: str) -> dict[str, str]:
    """Seed name -> canonical hook for the catalogue's ``systems`` (first system wins on a clash)."""
    names: dict[str, str] = {}
    for system in systems:
        for hd in HOOKS:
            for name in hd.aliases.get(system, ()):
                names.setdefault(name, hd.name)
    return names


class Dialect:
    """Base: look the name up, translate the payload, shape the result."""

    name = ""
    #: the catalogue systems whose names this dialect accepts
    systems: tuple[str, ...] = ()
    #: canonical hook -> the shape of ``outcome.native`` in this dialect, for every hook whose
    #: answers count (observe hooks: :attr:`observe_shape`). docs/dialects.md is generated from it.
    shapes: dict[str, str] = {}
    observe_shape = "`null`"
    #: canonical hook -> this dialect's combination rule, where it is not the canonical one
    rules: dict[str, str] = {}
    #: canonical hook -> what else a host or plugin author should know in this dialect
    notes: dict[str, str] = {}

    def __init__(self) -> None:
        self.names = seed_names(*self.systems)

    def resolve(self, name: str) -> str:
        """The canonical hook of seed name ``name``; UnknownHookError otherwise."""
        try:
            return self.names[name]
        except (KeyError, TypeError):
            raise UnknownHookError(self.unknown(name)) from None

    def unknown(self, name: object) -> str:
        import difflib

        close = difflib.get_close_matches(str(name), list(self.names), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown {self.name} hook {name!r}{hint}; `agenthooks hooks` lists the names per system"

    def translate(self, name: str, payload: object) -> Call:
        raise NotImplementedError

    def native(self, call: Call, outcome: Outcome) -> object:
        raise NotImplementedError

    def native_key(self, hook: str, key: str) -> str:
        """The host's spelling of the canonical payload field ``key`` of ``hook``."""
        return key

    def payload_error(self, call: Call, exc: PayloadError) -> PayloadError:
        """``exc`` (raised for the canonical payload) worded with the host's hook and field names.

        A pi user sent ``input`` and ``toolName``: an error about ``arguments`` or ``tool_name``
        would name fields they never wrote. Falls back to ``exc`` when no field is to blame.
        """
        from ..hookspecs._fields import EVENT_FIELDS
        from ..validation import check_value

        where = f"{self.name} {call.name}"
        for key, code, required in EVENT_FIELDS.get(call.hook, ()):
            native = self.native_key(call.hook, key)
            if key not in call.payload:
                if required:
                    return PayloadError(f"{where}: payload is missing required field {native!r}")
                continue
            problem = check_value(code, call.payload[key])
            if problem:
                return PayloadError(f"{where}: field {native!r} {problem}")
        return exc


def require_object(dialect: str, name: str, payload: object) -> dict[str, object]:
    """``payload`` as a dict (None -> {}); PayloadError for anything else."""
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        kind = "null" if payload is None else type(payload).__name__
        raise PayloadError(f"{dialect} {name}: payload must be a JSON object, not {kind}")
    return payload


_UPPER = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake(key: str) -> str:
    """``toolCallId`` -> ``tool_call_id``; snake_case keys are left alone."""
    return _UPPER.sub(r"_\1", key).lower() if not key.islower() else key


def camel(key: str) -> str:
    """``tool_call_id`` -> ``toolCallId``; keys without an underscore are left alone."""
    if "_" not in key.strip("_"):
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def camel_keys(value: object) -> object:
    """A dict with its own keys in camelCase (one level: nested host data is left alone)."""
    if isinstance(value, dict):
        return {camel(k) if isinstance(k, str) else k: v for k, v in value.items()}
    return value


def text_of(content: object) -> str | None:
    """The text blocks of pi content (``[{type: "text", text}]``) joined, or None if it has none."""
    if not isinstance(content, list):
        return None
    texts = [str(block["text"]) for block in content
             if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)]
    return "\n".join(texts) if texts else ("" if not content else None)
