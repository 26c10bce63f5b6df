"""One settings file read and type-checked: every message names the file, the line and what is
wrong (``tomllib``, or ``tomlkit`` on Python 3.10, imported only when a file exists)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fileio import SETTINGS_MAX, UnreadableFile, read_bounded
from .keys import KNOWN_KEYS, LIST_KEYS, SettingsError


@dataclass
class SettingsFile:
    """One settings file as read (values type-checked, paths not yet resolved)."""

    path: Path
    scope: str
    """user or project"""
    data: dict[str, Any] = field(default_factory=dict)
    exists: bool = False
    base: Path | None = None
    """the directory relative paths in this file resolve against"""
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    """where an organisation policy comes from (its URL or path), for messages"""

    def get(self, key: str, default: object = None) -> Any:
        return self.data.get(key, default)

    def has(self, key: str) -> bool:
        return key in self.data


def loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(text)
    import tomlkit  # pragma: no cover - Python 3.10

    return tomlkit.parse(text).unwrap()  # pragma: no cover


_LINE = re.compile(r"line (\d+)")


def parse_error(path: Path, exc: Exception) -> SettingsError:
    message = str(exc)
    lineno = getattr(exc, "lineno", None) or getattr(exc, "line", None)
    if not lineno:
        found = _LINE.search(message)
        lineno = int(found.group(1)) if found else None
    message = re.sub(r"\s*\(at line \d+, column \d+\)$", "", message)
    message = re.sub(r"\s*at line \d+ col \d+$", "", message)
    where = f"{path}:{lineno}" if lineno else str(path)
    return SettingsError(f"{where}: invalid TOML: {message}")


def _key_line(text: str, key: str) -> int | None:
    found = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text, re.MULTILINE)
    return text.count("\n", 0, found.start()) + 1 if found else None


def read_file(path: Path, scope: str, base: Path | None = None) -> SettingsFile:
    """Read and type-check one settings file; a missing file is an empty one.

    Raises :class:`SettingsError` (file, line, what) for invalid TOML or a value of the wrong type.
    """
    sf = SettingsFile(path=path, scope=scope, base=base if base is not None else path.parent)
    try:
        text = read_bounded(path, SETTINGS_MAX).decode("utf-8")
    except FileNotFoundError:
        return sf
    except UnreadableFile as exc:  # a symlink to /dev/zero, a FIFO, a 2 GB file: never read
        raise SettingsError(f"{path}: {exc.strerror} (a settings file must be a regular file of at most "
                            f"{SETTINGS_MAX >> 20} MiB)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_text(text, sf)


def parse_text(text: str, sf: SettingsFile) -> SettingsFile:
    """Parse and type-check ``text`` as the settings file ``sf`` (which names it in messages)."""
    path = sf.path
    sf.exists = True
    try:
        data = loads(text)
    except Exception as exc:  # tomllib.TOMLDecodeError / tomlkit.exceptions.ParseError
        raise parse_error(path, exc) from None

    def bad(key: str, expected: str, value: object = None, item: str = "") -> SettingsError:
        line = _key_line(text, key.split(".")[-1])
        where = f"{path}:{line}" if line else str(path)
        got = data_get(key) if value is None else value
        return SettingsError(f"{where}: {key}{item}: expected {expected}, got {describe_value(got)}")

    def data_get(dotted: str) -> object:
        node: object = data
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    for key in LIST_KEYS:
        if key not in data:
            continue
        if not isinstance(data[key], list):
            raise bad(key, "a list of strings")
        for i, item in enumerate(data[key]):
            if not isinstance(item, str):
                raise bad(key, "a string", item, f"[{i}]")
    if "organisation" in data:
        _check_organisation(data["organisation"], bad)
    if "hook_timeout" in data:
        value = data["hook_timeout"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise bad("hook_timeout", "a number of seconds >= 0 (0 = no timeout)")
    if "stop_gate_limit" in data:
        value = data["stop_gate_limit"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad("stop_gate_limit", "a whole number >= 0 (continuations in a row; 0 = never)")
    if "chibi_plugins" in data and not isinstance(data["chibi_plugins"], str):
        raise bad("chibi_plugins", "a directory path (string)")
    if "timeouts" in data:
        if not isinstance(data["timeouts"], dict):
            raise bad("timeouts", "a table of hook = seconds")
        for hook, value in data["timeouts"].items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise bad(f"timeouts.{hook}", "a number of seconds >= 0 (0 = no timeout)")
    if "plugins" in data:
        if not isinstance(data["plugins"], dict):
            raise bad("plugins", "a table of [plugins.<name>] sections")
        for name, section in data["plugins"].items():
            if not isinstance(section, dict):
                raise bad(f"plugins.{name}", "a table ([plugins.<name>] section)")
    if "serve" in data:
        _check_serve(data["serve"], bad)
    for key in data:
        if key not in KNOWN_KEYS:
            sf.warnings.append(f"{path}: unknown key {key!r} (ignored){_did_you_mean(key, KNOWN_KEYS)}")
    sf.data = data
    return sf


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_serve(value: object, bad: Callable[..., SettingsError]) -> None:
    if not isinstance(value, dict):
        raise bad("serve", "a table ([serve] section)")
    port = value.get("port")
    if "port" in value and (isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535):
        raise bad("serve.port", "a TCP port number (1-65535)")
    if "autostart" in value and not isinstance(value["autostart"], bool):
        raise bad("serve.autostart", "true or false (start the warm server from the per-event command)")


def _check_organisation(value: object, bad: Callable[..., SettingsError]) -> None:
    if not isinstance(value, dict):
        raise bad("organisation", "a table: {url = \"https://...\", sha256 = \"...\"} or {path = \"...\"}")
    if ("url" in value) == ("path" in value):
        raise bad("organisation", "exactly one of url or path", value)
    for key, item in value.items():
        if key in ("url", "path", "sha256") and not isinstance(item, str):
            raise bad(f"organisation.{key}", "a string", item)
        if key == "refresh_hours" and (isinstance(item, bool) or not isinstance(item, (int, float)) or item <= 0):
            raise bad("organisation.refresh_hours", "a number of hours > 0", item)
        if key not in ("url", "path", "sha256", "refresh_hours"):
            raise bad(f"organisation.{key}", "one of url, path, sha256, refresh_hours", item)
    if "url" in value:
        if not value["url"].startswith("https://") and not value["url"].startswith("http://127.0.0.1"):
            raise bad("organisation.url", "an https:// URL", value["url"])
        if "sha256" not in value:
            raise bad("organisation", "a sha256 pin beside the url (the file's SHA-256, hex)", value)
    if "sha256" in value and not re.fullmatch(r"(sha256:)?[0-9a-fA-F]{64}", value["sha256"]):
        raise bad("organisation.sha256", "64 hex digits", value["sha256"])


def _type_name(value: object) -> str:
    """A type as a user reads it (TOML's words, never Python's ``NoneType``)."""
    import datetime

    if value is None:
        return "nothing"
    if isinstance(value, (datetime.date, datetime.time)):
        return "a date/time"
    kinds = ((bool, "a boolean"), (str, "a string"), (int, "an integer"), (float, "a number"), (list, "a list"),
             (dict, "a table"))  # isinstance: tomlkit's values subclass these
    return next((name for kind, name in kinds if isinstance(value, kind)), "a value of another kind")


def describe_value(value: object) -> str:
    """``an integer (3)``: the kind of value and, when short, the value itself."""
    kind = _type_name(value)
    if isinstance(value, (bool, int, float, str)):
        shown = repr(value) if not isinstance(value, bool) else str(value).lower()
        if len(shown) <= 40:
            return f"{kind} ({shown})"
    return kind
