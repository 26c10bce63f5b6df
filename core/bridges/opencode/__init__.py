"""OpenCode (1.18): a TypeScript plugin (``plugin.ts``, shipped as package data) that talks to
``agenthooks serve --stdio`` for host ``opencode``; ``adapter`` answers its ``event`` calls;
``install`` puts the plugin into OpenCode's plugin directory. See docs/hosts/opencode.md.
"""

from __future__ import annotations

from .adapter import ADAPTER, OpenCodeAdapter

__all__ = ["ADAPTER", "OpenCodeAdapter"]
