"""Field types for plugins' settings sections (their ``plugin_config_model``), checked the way core
checks its own settings, so a typo reads the same wherever it is made.

    class Config(BaseModel):
        exclude_hooks: HookNames = Field(default_factory=list)
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from .hookspecs.catalogue import BY_NAME, unknown_hook_message


def known_hooks(value: list[str]) -> list[str]:
    """``value`` unchanged when every entry is a canonical hook name; else the first unknown one,
    with the hook meant when one is close."""
    for name in value:
        if name not in BY_NAME:
            raise ValueError(unknown_hook_message(name))
    return value


#: a list of canonical hook names (``exclude_hooks = ["message_update"]``)
HookNames = Annotated[list[str], AfterValidator(known_hooks)]
