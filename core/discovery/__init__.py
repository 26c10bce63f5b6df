"""Discovery: which plugins a Runtime built from settings holds, and in what order.

``load_runtime`` (what ``Runtime.from_settings`` calls) does, without importing anything it
does not load, one job per module:

* :mod:`.entrypoints` scans (and caches) the installed distributions' ``agent_hooks`` entry points;
* :mod:`.planning` reads the settings and trust and decides each candidate's status before
  importing it (``disabled`` and ``untrusted`` candidates are never imported);
* :mod:`.loading` imports, registers and configures the rest (:mod:`.hookfiles` for local hook
  files, from the very bytes trust checked), and registers the :mod:`.gate` when a required
  plugin is missing;
* :mod:`.tracing` prints what happened with ``--trace``.

Call order is then pluggy's ``tryfirst``/``trylast`` groups, inside each the settings' ``order``
first, then load order (see :mod:`agent_hooks_core.runtime`).

A plugin's **name** is its entry-point name (``guard`` for ``agent-hooks-guard``) or, for a hook
file, the file's stem. Settings may name a plugin by its name or its distribution name.
"""

from __future__ import annotations

from ..plugininfo import DISABLED, FAILED, LOADED, RUN_DISABLED, UNTRUSTED, PluginInfo, info_dict
from . import entrypoints
from .entrypoints import GROUP, EntryPointRecord, clear_cache, import_entry_point, scan_entry_points
from .gate import GATING_HOOKS, RequiredGate
from .hookfiles import import_file
from .loading import (
    Loaded,
    configure,
    describe_exception,
    describe_validation_error,
    effective_order,
    load_runtime,
    plan_of,
    settings_of,
)
from .planning import Candidate, LoadPlan, plan
from .tracing import TracePlugin

__all__ = [
    "DISABLED",
    "FAILED",
    "GATING_HOOKS",
    "GROUP",
    "LOADED",
    "RUN_DISABLED",
    "UNTRUSTED",
    "Candidate",
    "EntryPointRecord",
    "LoadPlan",
    "Loaded",
    "PluginInfo",
    "RequiredGate",
    "TracePlugin",
    "clear_cache",
    "configure",
    "describe_exception",
    "describe_validation_error",
    "effective_order",
    "entrypoints",
    "import_entry_point",
    "import_file",
    "info_dict",
    "load_runtime",
    "plan",
    "plan_of",
    "scan_entry_points",
    "settings_of",
]
