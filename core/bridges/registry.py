"""Every agent host, collected once per process through the ``register_hosts`` hook.

The first-party hosts are the modules of :mod:`agent_hooks_core.bridges.hosts` (default plugins,
in name order); third-party hosts come from the modules named in the ``agent_hooks.hosts``
entry-point group of installed distributions (the cached scan of
:mod:`agent_hooks_core.discovery.entrypoints`, which never looks in the working directory).
Records name their adapter and installer lazily, so :func:`hosts` imports only the small
record modules; :func:`get` of a first-party host does not scan entry points at all (the
per-event bridge path).

A third-party record whose name or alias is taken is refused, as is a module that fails to
import or raises: :func:`problems` lists them (``agenthooks doctor`` reports them) and the other
hosts work.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from dataclasses import replace
from typing import Any

from .base import HostAdapter
from .record import Cap, Host

#: where the first-party host modules live
PACKAGE = "agent_hooks_core.bridges.hosts"

_FIRST: tuple[Host, ...] | None = None
_ALL: tuple[Host, ...] | None = None
_PROBLEMS: list[str] = []
#: first-party hosts read from their own module before the full collection (:func:`_named_module`)
_NAMED: dict[str, Host | None] = {}


class UnknownHostError(KeyError):
    """No registered host has that name or alias."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown host"


def _manager() -> Any:
    import pluggy

    from ..hookspecs import specs
    from ..hookspecs.markers import PROJECT

    class HostSpecs:  # only the one hook: the 60-odd lifecycle specs are not needed here
        register_hosts = specs.register_hosts

    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(HostSpecs)
    return pm


def _collect(modules: list[tuple[str, Any]], taken: dict[str, Host], source: str | None,
             strict: bool) -> list[Host]:
    """The records the ``register_hosts`` of each (label, module) returns, names checked."""
    out: list[Host] = []
    for label, module in modules:
        pm = _manager()
        try:
            pm.register(module, name=label)
            records = [r for batch in pm.hook.register_hosts() for r in (batch or [])]
            bad = [r for r in records if not isinstance(r, Host)]
            if bad:
                raise TypeError(f"register_hosts returned {type(bad[0]).__name__}, not Host")
        except Exception as exc:
            if strict:
                raise
            _PROBLEMS.append(f"host module {label}: {type(exc).__name__}: {exc}")
            continue
        for record in records:
            clash = next((n for n in record.names if n in taken), None)
            if clash is not None:
                message = f"host {record.name!r} from {label}: the name {clash!r} is taken by {taken[clash].source}"
                if strict:
                    raise ValueError(message)
                _PROBLEMS.append(message)
                continue
            record = replace(record, source=source or label)
            taken.update(dict.fromkeys(record.names, record))
            out.append(record)
    return out


def first_party() -> tuple[Host, ...]:
    """The hosts agent-hooks ships, without looking at installed distributions."""
    global _FIRST
    if _FIRST is None:
        package = importlib.import_module(PACKAGE)
        names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))
        modules = [(f"{PACKAGE}.{n}", importlib.import_module(f"{PACKAGE}.{n}")) for n in names]
        _FIRST = tuple(_collect(modules, {}, "agent_hooks_core", strict=True))
    return _FIRST


def hosts() -> tuple[Host, ...]:
    """Every host: the first-party ones, then those of installed distributions."""
    global _ALL
    if _ALL is None:
        first = first_party()
        taken: dict[str, Host] = {n: h for h in first for n in h.names}
        try:
            from ..discovery.entrypoints import HOSTS_GROUP, import_entry_point, scan_entry_points

            records = scan_entry_points(group=HOSTS_GROUP)
        except Exception as exc:  # a broken environment still has the first-party hosts
            _PROBLEMS.append(f"host entry points unreadable: {type(exc).__name__}: {exc}")
            records = []
        third: list[Host] = []
        for ep in records:
            label = f"{ep.dist} ({ep.value})"
            try:
                module = import_entry_point(ep.value)
            except Exception as exc:
                _PROBLEMS.append(f"host module {label}: {type(exc).__name__}: {exc}")
                continue
            third += _collect([(label, module)], taken, ep.dist, strict=False)
        _ALL = first + tuple(third)
    return _ALL


def problems() -> list[str]:
    """Host modules or records that were refused (one line each), after :func:`hosts`."""
    hosts()
    return list(dict.fromkeys(_PROBLEMS))


def names() -> list[str]:
    """Every host's name, in registry order."""
    return [h.name for h in hosts()]


def _named_module(name: str) -> Host | None:
    """The first-party host ``name`` read from its own module (``claude-code`` -> ``claude_code``)
    alone: the per-event bridge then imports one record module, not all of them."""
    if _FIRST is not None:
        return None  # already collected: the loop in get() finds it
    if name in _NAMED:
        return _NAMED[name]
    module_name = name.replace("-", "_")
    record = None
    if module_name.isidentifier() and importlib.util.find_spec(f"{PACKAGE}.{module_name}") is not None:
        module = importlib.import_module(f"{PACKAGE}.{module_name}")
        records = _collect([(f"{PACKAGE}.{module_name}", module)], {}, "agent_hooks_core", strict=True)
        record = next((r for r in records if r.name == name), None)
    _NAMED[name] = record
    return record


def get(name: str) -> Host:
    """The host called ``name`` (or with that alias); :class:`UnknownHostError` if none is."""
    record = _named_module(name)
    if record is not None:
        return record
    for pool in (first_party, hosts):  # a first-party host never needs the entry-point scan
        for record in pool():
            if name in record.names:
                return record
    raise UnknownHostError(f"unknown host {name!r} (known: {', '.join(names())})")


def find(name: str) -> Host | None:
    try:
        return get(name)
    except UnknownHostError:
        return None


def command(name: str) -> str | None:
    """``"module:function"`` of ``agenthooks <name>`` when ``name`` is a host with a per-event command."""
    record = find(name)
    return record.command if record is not None else None


def adapter(name: str) -> HostAdapter:
    """The adapter of host ``name`` (imported now); :class:`UnknownHostError` for an unknown host."""
    return get(name).load_adapter()


def installer(name: str) -> Any:
    """The installer of host ``name`` (imported now)."""
    return get(name).load_installer()


def capabilities(name: str) -> dict[str, Cap]:
    """What host ``name`` does with each canonical hook ({} for an unknown host)."""
    record = find(name)
    return dict(record.caps()) if record is not None else {}


def clear() -> None:
    """Forget the collected records (tests that install or remove a host distribution)."""
    global _FIRST, _ALL
    _FIRST = _ALL = None
    _PROBLEMS.clear()
