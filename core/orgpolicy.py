"""An organisation's policy: one settings file a team distributes to every machine.

The user settings name it::

    organisation = { url = "https://example.org/agent-hooks.toml", sha256 = "<hex>", refresh_hours = 24 }
    organisation = { path = "/etc/agent-hooks/org.toml" }            # sha256 optional here

It may set ``disabled``, ``required`` and ``[plugins.<name>]`` sections (no code: it is fetched,
not reviewed); the user and project files cannot weaken them (see ``docs/settings.md``).

A URL is fetched at most once per ``refresh_hours`` (default 24) and kept in
``<cache dir>/organisation/<sha256>.toml``; the copy in use always matches the pinned SHA-256.
When the file at the URL changes, the pinned copy stays in effect and a warning says to update the
pin. A policy that cannot be had at all (no cached copy, fetch failed, digest mismatch) is an
error the runtime turns into a deny of every gating hook: a machine never quietly runs without
its team's policy.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .fileio import SETTINGS_MAX, atomic_write, read_bounded

DEFAULT_REFRESH_HOURS = 24.0
FETCH_TIMEOUT = 5.0


def _digest(data: bytes) -> str:
    import hashlib  # only users with an organisation policy pay for it

    return hashlib.sha256(data).hexdigest()


@dataclass
class Fetched:
    """The policy's bytes, where they are on disk, and what to tell the user."""

    data: bytes
    path: Path
    source: str
    """the URL or path the user settings name"""
    warnings: list[str] = field(default_factory=list)


def get(spec: Mapping[str, object], user_file: Path, cache: Path) -> Fetched | str:
    """The bytes of the policy ``spec`` names (verified against its pin), or why they cannot be had.

    ``cache`` is the directory fetched copies live in.
    """
    raw_pin = spec.get("sha256")
    pin = raw_pin.lower().removeprefix("sha256:") if isinstance(raw_pin, str) else None
    if "path" in spec:
        path = Path(os.path.expandvars(str(spec["path"]))).expanduser()
        if not path.is_absolute():
            path = user_file.parent / path
        try:
            data = read_bounded(path, SETTINGS_MAX)
        except OSError as exc:
            return f"organisation policy {path}: cannot read: {exc.strerror or exc}"
        if pin is not None and _digest(data) != pin:
            return f"organisation policy {path}: its SHA-256 is {_digest(data)}, not the pinned {pin}"
        return Fetched(data, path, str(path))
    url = str(spec["url"])
    if pin is None:
        return f"organisation policy {url}: no sha256 pin"
    warnings: list[str] = []
    hours = spec.get("refresh_hours", DEFAULT_REFRESH_HOURS)  # a number: the settings reader checked it
    got = _fetch_pinned(url, pin, float(hours) if isinstance(hours, (int, float)) else DEFAULT_REFRESH_HOURS,
                        cache, warnings)
    if isinstance(got, str):
        return got
    return Fetched(got[0], got[1], url, warnings)


def _fetch_pinned(url: str, pin: str, refresh_hours: float, cache: Path,
                  warnings: list[str]) -> tuple[bytes, Path] | str:
    cached, record = cache / f"{pin}.toml", cache / f"{pin}.json"
    data: bytes | None
    try:
        data = read_bounded(cached, SETTINGS_MAX)
    except OSError:
        data = None
    if data is not None and _digest(data) != pin:
        data = None  # a damaged cache: fetch again
    try:
        checked = json.loads(read_bounded(record, SETTINGS_MAX)).get("checked", 0.0)
    except (OSError, ValueError, AttributeError):
        checked = 0.0
    if data is not None and time.time() - float(checked) < refresh_hours * 3600:
        return data, cached
    fetched, problem = _fetch(url)
    if fetched is not None and _digest(fetched) != pin:
        problem = (f"the file at {url} now has SHA-256 {_digest(fetched)}, not the pinned {pin}; "
                   "update organisation.sha256 in your user settings to accept it")
        fetched = None
    if fetched is not None:
        try:
            atomic_write(cached, fetched.decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            pass  # an unwritable cache costs a fetch next time
        data = fetched
    try:
        atomic_write(record, json.dumps({"url": url, "checked": time.time(), "problem": problem}))
    except OSError:
        pass
    if data is None:
        return f"organisation policy {url}: {problem}"
    if problem is not None:
        warnings.append(f"organisation policy {url}: {problem} (the pinned copy stays in effect)")
    return data, cached


def _fetch(url: str) -> tuple[bytes | None, str | None]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT) as response:  # https, or http on 127.0.0.1 (settings check)
            return response.read(1 << 20), None
    except urllib.error.HTTPError as exc:
        return None, f"cannot fetch: HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return None, f"cannot fetch: {reason}"
