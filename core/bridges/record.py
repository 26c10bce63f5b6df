"""The :class:`Host` record: everything agent-hooks knows about one agent host, in one value.

A host is a plugin: a module implements the ``register_hosts`` hook and returns one record per
host (first-party hosts live in :mod:`agent_hooks_core.bridges.hosts`, one module each; a third
party names its module in the ``agent_hooks.hosts`` entry-point group). Everything that lists
hosts (the per-event commands, ``serve``, ``agenthooks hosts``, ``doctor``, ``install`` and
``uninstall``, the control plane, docs/hosts/README.md) is derived from these records by
:mod:`agent_hooks_core.bridges.registry`.

The heavy parts (adapter, installer, per-event command) are named as ``"module:attribute"``
strings and imported only when used, so collecting every record costs a few small imports: a
bridge process pays for one host. Standard library only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .base import HostAdapter

#: how events reach us: a process per event (``agenthooks <host>``), HTTP or the unix socket of
#: ``agenthooks serve``, or one warm session over ``agenthooks serve --stdio``
Transport = Literal["command", "http", "socket", "stdio"]
TRANSPORTS: tuple[Transport, ...] = ("command", "http", "socket", "stdio")

#: what ``agenthooks install`` edits: a JSON or TOML settings file, or an extension file the host loads
ConfigFormat = Literal["json", "toml", "extension"]


@dataclass(frozen=True)
class Cap:
    """What a host does with one canonical hook."""

    #: the host events that fire it, for people ("PreToolUse Bash")
    via: str
    #: a plugin's block or deny stops the host's action
    block: bool = False
    #: a plugin's changed value reaches the host
    rewrite: bool = False
    #: a failure of ours (bad input, a plugin that fails to load or raises, our process dying)
    #: blocks instead of allowing
    closed: bool = False
    #: what is partial or different about it on this host
    note: str = ""
    #: a plugin's "ask" reaches the user as the host's own confirmation prompt
    ask: bool = False
    #: a ``stop_gate`` "continue" keeps the agent working
    continues: bool = False
    #: the host version this row was proven on with the real agent ("" = protocol-tested only)
    proven: str = ""

    def flags(self) -> str:
        """``F``ire ``B``lock ``R``ewrite ``C``losed, ``-`` where the host cannot."""
        return "F" + ("B" if self.block else "-") + ("R" if self.rewrite else "-") + ("C" if self.closed else "-")

    def to_dict(self) -> dict[str, Any]:
        return {"fire": True, "block": self.block, "rewrite": self.rewrite, "fail_closed": self.closed,
                "ask": self.ask, "continue": self.continues, "via": self.via, "note": self.note,
                "proven": self.proven}


@dataclass(frozen=True)
class Config:
    """What ``agenthooks install <host>`` writes."""

    format: ConfigFormat
    #: the scopes ``install`` takes (``--user``, ``--project``…); the first is the default
    scopes: tuple[str, ...]
    #: the files it edits, for people ("~/.codex/hooks.json and config.toml, or .codex/hooks.json");
    #: the exact paths come from the installer's ``config_targets``
    files: str


@dataclass(frozen=True)
class Timeout:
    """The host's own limit on one hook call, as ``install`` configures it, and what the host does
    when a hook passes it: the one failure of ours no answer can turn into a deny."""

    #: seconds the host waits for one hook call; None: it waits without limit
    seconds: float | None
    #: at that limit the host blocks the gated action (True) or lets it run (False: fails open)
    closed: bool
    #: the host events this is about, for people ("PreToolUse")
    gated: str = ""
    #: how, or what is different ("onFailure: block", "our extension's own 60 s timer blocks")
    note: str = ""

    def line(self, deadline: float | None = None) -> str:
        """One line for ``hosts`` and ``doctor``; ``deadline``: when our own answer is due."""
        if self.seconds is None:
            text = "waits for our answer without a limit of its own"
        else:
            at = f"its own {self.seconds:g} s timeout"
            text = (f"blocks when a hook passes {at}" if self.closed
                    else f"fails open when it kills a hook at {at}")
        if self.gated:
            text += f" ({self.gated})"
        if deadline is not None and not self.closed and self.seconds is not None:
            text += f"; our deadline answers at {deadline:g} s"
        return text + (f"; {self.note}" if self.note else "")

    def to_dict(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "fails_closed": self.closed, "gated": self.gated, "note": self.note}


Caps = Mapping[str, Cap]
#: a host's own event names (the map is derived from the capabilities' ``via``), or the map itself:
#: host event -> the canonical hooks it fires
Events = tuple[str, ...] | Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Host:
    """One agent host, as registered through ``register_hosts``."""

    #: the name users type: ``agenthooks install <name>``, ``agenthooks <name>``, ``/hosts/<name>``
    name: str
    #: the name people know ("OpenAI Codex CLI")
    title: str
    #: ``"module:attribute"`` of its :class:`~agent_hooks_core.bridges.base.HostAdapter`
    adapter: str
    #: ``"module"`` or ``"module:attribute"`` of its installer (``install``, ``uninstall``,
    #: ``status``, ``config_targets``; see :mod:`agent_hooks_core.cli.hosts`)
    installer: str
    config: Config
    #: how it talks to us, one line for the hosts table
    transport: str
    #: the transports its events may come through
    transports: tuple[Transport, ...]
    #: the host's own events, in its order: their names (each one's hooks are read from the
    #: capabilities' ``via``), or host event -> canonical hooks; or a function returning either,
    #: called only when asked (it may import the adapter)
    events: Events | Callable[[], Events]
    #: canonical hook -> what the host does with it; a hook not listed never fires there.
    #: A mapping, or a function returning one (called only when asked)
    capabilities: Caps | Callable[[], Caps]
    #: what the host does when we fail, one line ("exit 2 blocks PreToolUse; other events go on")
    failure: str
    #: its page under docs/hosts/ ("codex.md")
    docs: str
    #: the host's own hook timeout and what it does then (None: not described)
    timeout: Timeout | None = None
    #: the executable that runs it (``agenthooks hosts`` says whether it is on PATH)
    executable: str = ""
    #: other names it answers to (``agenthooks install <alias>``)
    aliases: tuple[str, ...] = ()
    #: ``"module:function"`` of ``agenthooks <name>`` (one event per process: takes the argv after
    #: the command, returns the exit code), or None for a host that talks to us another way
    command: str | None = None
    #: every event the pinned host version fires, read from its shipped code (docs/hosts/protocols.md
    #: says where); a default-suite test checks each is in the event map or in ``not_wired``
    fires: tuple[str, ...] = ()
    #: host event -> why we do not wire it
    not_wired: Mapping[str, str] = field(default_factory=dict, compare=False)
    #: where the record came from (filled in by the registry: "agent_hooks_core" or a distribution)
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        problems = [f"{what} must be 'module:attribute', not {value!r}"
                    for what, value in (("adapter", self.adapter), ("command", self.command))
                    if value is not None and not _spec_ok(value, attr=True)]
        if not _spec_ok(self.installer, attr=False):
            problems.append(f"installer must be 'module' or 'module:attribute', not {self.installer!r}")
        if not self.name or self.name != self.name.strip().lower() or " " in self.name:
            problems.append(f"name must be a lower-case word, not {self.name!r}")
        unknown = [t for t in self.transports if t not in TRANSPORTS]
        if unknown or not self.transports:
            problems.append(f"transports must be some of {', '.join(TRANSPORTS)}, not {list(self.transports)!r}")
        if not self.config.scopes:
            problems.append("config.scopes must name at least one scope")
        if problems:
            raise ValueError(f"host {self.name!r}: " + "; ".join(problems))

    @property
    def names(self) -> tuple[str, ...]:
        """Its name and its aliases."""
        return (self.name, *self.aliases)

    def caps(self) -> Caps:
        """The capabilities, computing them if the record holds a function."""
        return self.capabilities() if callable(self.capabilities) else self.capabilities

    def event_map(self) -> dict[str, tuple[str, ...]]:
        """Host event -> the canonical hooks it fires (``("host_event",)`` for one that fires none)."""
        events = self.events() if callable(self.events) else self.events
        if isinstance(events, Mapping):
            return {name: tuple(hooks) for name, hooks in events.items()}
        return derive_events(events, self.caps())

    def load_adapter(self) -> HostAdapter:
        """The adapter, imported now; TypeError when it is not a :class:`~.base.HostAdapter`."""
        adapter = load(self.adapter)
        if not isinstance(adapter, HostAdapter):
            raise TypeError(f"host {self.name!r}: {self.adapter} is a {type(adapter).__name__}, not a HostAdapter")
        return adapter

    def load_installer(self) -> Any:
        return load(self.installer)

    def load_command(self) -> Callable[[list[str]], int] | None:
        return load(self.command) if self.command is not None else None


def with_proven(caps: Caps, version: str, hooks: tuple[str, ...]) -> dict[str, Cap]:
    """``caps`` with ``proven=version`` on ``hooks`` (for capabilities computed elsewhere)."""
    return {hook: replace(cap, proven=version) if hook in hooks else cap for hook, cap in caps.items()}


def derive_events(names: tuple[str, ...], caps: Caps) -> dict[str, tuple[str, ...]]:
    """Host event -> hooks, read from each capability's ``via``: comma-separated parts, each
    starting with a host event name ("PreToolUse Bash, PermissionRequest")."""
    out: dict[str, list[str]] = {name: [] for name in names}
    for hook, cap in caps.items():
        for part in cap.via.split(","):
            words = part.split()
            if words and words[0] in out and hook not in out[words[0]]:
                out[words[0]].append(hook)
    return {name: tuple(hooks) or ("host_event",) for name, hooks in out.items()}


def _spec_ok(spec: str, attr: bool) -> bool:
    module, colon, name = spec.partition(":")
    parts = [*module.split("."), *([name] if colon else [])]
    return bool(module) and (bool(name) if attr else (not colon or bool(name))) and all(p.isidentifier() for p in parts)


def load(spec: str) -> Any:
    """The object named by ``"module:attribute"`` (or the module for a plain module path)."""
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module
