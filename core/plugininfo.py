"""What a loader records about each plugin (``rt.plugin_info[name]``) and the statuses it can have.

Kept apart from discovery so that every loader (entry points and hook files in
:mod:`agent_hooks_core.discovery`, chibi subprocess plugins in
:mod:`agent_hooks_core.dialects.chibi_plugins`) can import it without importing the others.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: the statuses a plugin can have
LOADED, DISABLED, FAILED, UNTRUSTED = "loaded", "disabled", "failed", "untrusted"
#: a loaded plugin whose hookimpls were replaced after loading: its gating hooks deny
TAMPERED = "tampered"
#: the reason of a plugin switched off for one run (``disabled_extra``, ``agenthooks -p no:NAME``)
RUN_DISABLED = "disabled for this run (-p no:NAME)"


@dataclass
class PluginInfo:
    """What discovery knows about one plugin (``rt.plugin_info[name]``)."""

    name: str
    source: str
    """entry-point, file, chibi or builtin"""
    status: str
    """loaded, disabled, failed, untrusted or tampered"""
    distribution: str | None = None
    version: str | None = None
    path: str | None = None
    """the hook file, or the plugin module's file"""
    entry_point: str | None = None
    """``module:attr`` of an entry-point plugin"""
    scope: str | None = None
    """where a hook file came from: project, user or cli"""
    reason: str | None = None
    """why it is not loaded (or a note, e.g. a rename)"""
    hooks: list[str] = field(default_factory=list)
    order: int | None = None
    """1-based position in the effective call order (loaded plugins)"""
    load_ms: float | None = None
    required: str | None = None
    """the settings file (or organisation policy) that requires this plugin, if any"""

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        if out["required"] is None:  # most plugins are not required: keep rows (and JSON) short
            del out["required"]
        return out


def info_dict(info: object) -> dict[str, Any]:
    """``rt.plugin_info`` values as dicts (other loaders may store dicts or their own objects)."""
    if isinstance(info, dict):
        return dict(info)
    if hasattr(info, "to_dict"):
        return dict(info.to_dict())
    return dict(vars(info))
