"""Bridges to real agent hosts: one module or package per host.

Each host is a :class:`~agent_hooks_core.bridges.record.Host` record registered through the
``register_hosts`` hook (:mod:`.registry`; first-party records in :mod:`.hosts`). A record names
the host's :class:`~agent_hooks_core.bridges.base.HostAdapter` (events in, answers out, no I/O)
and its installer (wires the host's config to us; ``agenthooks install <host>``, ``uninstall``
and the host's ``doctor`` lines). Transports (``agent_hooks_core.transports``) carry events to
adapters. Imports are lazy: a bridge process loads one adapter.
"""

from __future__ import annotations

from .base import HostAdapter
from .record import load

__all__ = ["HostAdapter", "adapter", "load"]


def adapter(host: str) -> HostAdapter:
    """The adapter of ``host``; KeyError (:class:`~.registry.UnknownHostError`) for an unknown host."""
    from .registry import adapter as of

    return of(host)
