"""The event object handlers receive: a dict with attribute access.

Handlers read ``event.tool_name`` or ``event["tool_name"]``. It is a plain dict underneath so the
runtime builds it without pydantic (the bridge path starts a fresh process per event); call
:meth:`HookEvent.model` for the typed pydantic model of the payload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .hookspecs.models import EventModel


class HookEvent(dict[str, Any]):
    """The payload of one hook call. ``hook`` names the canonical hook. Values are ``Any``: a
    handler reads the fields it knows (``event.command``) with the types the hook's model gives them."""

    __slots__ = ("hook",)

    def __init__(self, hook: str, data: Mapping[str, object]) -> None:
        super().__init__(data)
        self.hook = hook

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "hook":  # protocol lookups (copy, pickle) and an unset slot
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            if name.endswith("_") and name[:-1] in self:  # event.from_ for the "from" field
                return self[name[:-1]]
            from .validation import KNOWN_FIELDS

            if name in KNOWN_FIELDS.get(self.hook, ()):
                return None  # an optional field the host did not send reads as None, as on the model
            raise AttributeError(f"{self.hook} event has no field {name!r}") from None

    def __setattr__(self, name: str, value: object) -> None:
        if name == "hook":
            object.__setattr__(self, name, value)
        else:
            self[name] = value

    def __reduce__(self) -> tuple[object, ...]:
        # copy, deepcopy and pickle rebuild it with its hook (dict's default would lose the slot)
        return (HookEvent, (self.hook, dict(self)))

    def model(self) -> EventModel:
        """The payload as this hook's pydantic event model (imports pydantic on first use)."""
        from .hookspecs.models import EVENTS

        return EVENTS[self.hook].model_validate(dict(self))

    def replace(self, **changes: object) -> HookEvent:
        new = HookEvent(self.hook, self)
        new.update(changes)
        return new

    def __repr__(self) -> str:
        return f"HookEvent({self.hook!r}, {dict.__repr__(self)})"
