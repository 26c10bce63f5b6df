"""``[plugins.otel]`` in settings.toml, validated by pydantic (the exporter itself is configured by
the standard ``OTEL_*`` environment variables)."""

from __future__ import annotations

from agent_hooks_core.config_fields import HookNames
from pydantic import BaseModel, ConfigDict, Field


class OtelConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payload_fields: list[str] = Field(
        default_factory=lambda: ["tool_name"],
        description="event fields copied to span attributes (dotted paths such as 'arguments.command'), "
                    "always redacted; [] sends none")
    max_attribute_chars: int = Field(1024, ge=16, description="a payload attribute is cut to this length")
    exclude_hooks: HookNames = Field(default_factory=list, description="hooks without spans or metrics")
