"""The ``agent_hooks`` entry points of the installed distributions, scanned once and cached.

The scan is cached (``<cache dir>/entry-points-*.json``), keyed on the modification times of the
``sys.path`` entries, which change whenever a distribution is installed, upgraded or removed. A
cache hit does not import ``importlib.metadata`` at all.

The working directory is never scanned: under ``python -m agent_hooks_core`` it is on
``sys.path`` (``''``), and it is the agent's project, which must not be able to install a plugin
by holding a ``*.dist-info`` (issue 17.14).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..fileio import TRUST_MAX, atomic_write, read_bounded
from ..settings import cache_dir, normalize_name

GROUP = "agent_hooks"
#: modules implementing ``register_hosts``: what a distribution that adds an agent host names
HOSTS_GROUP = "agent_hooks.hosts"
#: a distribution that also names its plugin in this group ships it off until the user enables it
#: (``enabled = [NAME]``, ``agenthooks plugins enable NAME``): a plugin that changes how every
#: command runs must not start doing so because something depended on it
OFF_GROUP = "agent_hooks.off_until_enabled"
CACHE_VERSION = 4


@dataclass(frozen=True)
class EntryPointRecord:
    """One ``agent_hooks`` entry point of an installed distribution."""

    name: str
    value: str
    dist: str
    version: str
    off_until_enabled: bool = False
    group: str = GROUP


#: (stamps, records) of the last scan in this process
_MEMO: tuple[Any, list[EntryPointRecord]] | None = None


def search_path() -> list[str]:
    """``sys.path`` without the working directory (``''``, ``.`` or the cwd itself)."""
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = ""
    out = []
    for entry in sys.path:
        if entry in ("", "."):
            continue
        try:
            if os.path.realpath(entry) == cwd:
                continue
        except (OSError, ValueError):
            continue
        out.append(entry)
    return out


def _stamps() -> list[list[Any]]:
    stamps: list[list[Any]] = []
    for entry in search_path():
        try:
            mtime: int | None = os.stat(entry).st_mtime_ns
        except OSError:
            mtime = None
        stamps.append([entry, mtime])
    return stamps


def _cache_file() -> Path:
    # zlib, not hashlib (~2 ms of import per bridge process); a collision only costs a rescan,
    # since the file holds the sys.path entries it was made for
    raw = "\0".join([sys.executable, *search_path()]).encode()
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return cache_dir() / f"entry-points-{key}.json"


def _scan_metadata() -> list[EntryPointRecord]:
    """Read every installed distribution's ``agent_hooks`` entry points (first on the path wins)."""
    import importlib.metadata as md

    section = re.compile(rf"^\[(?:{re.escape(GROUP)}|{re.escape(HOSTS_GROUP)})\]\s*$", re.MULTILINE)
    seen: set[str] = set()
    records: list[EntryPointRecord] = []
    for dist in md.distributions(path=search_path()):
        norm = getattr(dist, "_normalized_name", None)
        text = dist.read_text("entry_points.txt")
        has_group = bool(text) and bool(section.search(text or ""))
        if norm is None or has_group:
            name = dist.metadata["Name"] or ""
            norm = normalize_name(name)
        if norm in seen:
            continue
        seen.add(norm)
        if not has_group:
            continue
        eps = list(dist.entry_points)
        off = {normalize_name(ep.name) for ep in eps if ep.group == OFF_GROUP}
        for ep in eps:
            if ep.group == GROUP:
                records.append(EntryPointRecord(ep.name, ep.value, name, dist.version or "",
                                                normalize_name(ep.name) in off))
            elif ep.group == HOSTS_GROUP:
                records.append(EntryPointRecord(ep.name, ep.value, name, dist.version or "", group=HOSTS_GROUP))
    records.sort(key=lambda r: (normalize_name(r.name), normalize_name(r.dist)))
    return records


#: a directory modified this recently may still change within the same mtime tick: not cached
RACY_SECONDS = 2.0


def scan_entry_points(use_cache: bool = True, group: str = GROUP) -> list[EntryPointRecord]:
    """The entry points of ``group`` (plugins, or :data:`HOSTS_GROUP`) of the installed
    distributions, sorted by name.

    Cached in memory and on disk while no ``sys.path`` entry's mtime changes. A scan while an
    entry was modified in the last :data:`RACY_SECONDS` is not cached (an install still running,
    or a second change within the same mtime tick, would go unnoticed: git's "racy" problem).
    """
    return [r for r in _scan_all(use_cache) if r.group == group]


def _scan_all(use_cache: bool) -> list[EntryPointRecord]:
    global _MEMO
    stamps = _stamps()
    if use_cache and _MEMO is not None and _MEMO[0] == stamps:
        return list(_MEMO[1])
    path = _cache_file()
    if use_cache:
        try:
            data = json.loads(read_bounded(path, TRUST_MAX))
            if data.get("version") == CACHE_VERSION and data.get("stamps") == stamps:
                records = [EntryPointRecord(*r) for r in data["records"]]
                _MEMO = (stamps, records)
                return list(records)
        except (OSError, ValueError, TypeError, KeyError):
            pass
    records = _scan_metadata()
    racy_after = time.time_ns() - int(RACY_SECONDS * 1e9)
    if any(type(m) is int and m >= racy_after for _, m in stamps):
        _MEMO = None
        return list(records)
    _MEMO = (stamps, records)
    try:
        atomic_write(path, json.dumps({"version": CACHE_VERSION, "stamps": stamps,
                                       "records": [list(asdict(r).values()) for r in records]}))
    except OSError:
        pass  # a read-only home only costs the scan next time
    return list(records)


def clear_cache() -> None:
    global _MEMO
    _MEMO = None
    with contextlib.suppress(OSError):
        _cache_file().unlink()


def import_entry_point(value: str) -> Any:
    """The object an entry point's ``module:attr`` names (the module is imported)."""
    import importlib

    module_name, _, attr = value.partition(":")
    module_name = module_name.strip()
    attr = re.sub(r"\[.*\]$", "", attr).strip()
    obj: Any = importlib.import_module(module_name)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj
