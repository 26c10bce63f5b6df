"""The organisation policy the user file names, read as a settings file that may set only
:data:`~.keys.ORG_KEYS` (it is fetched, not reviewed: no code, no timeouts)."""

from __future__ import annotations

from pathlib import Path

from .. import orgpolicy
from .keys import ORG_KEYS, SettingsError
from .parsing import SettingsFile, parse_text
from .paths import cache_dir


def organisation_file(spec: dict[str, object], user_file: Path) -> tuple[SettingsFile | None, str | None]:
    """The organisation policy the user file names: (file, None), or (None, why it is not in effect)."""
    got = orgpolicy.get(spec, user_file, cache_dir() / "organisation")
    if isinstance(got, str):
        return None, got
    sf = SettingsFile(path=got.path, scope="organisation", base=None, source=got.source)
    try:
        parse_text(got.data.decode("utf-8"), sf)
    except UnicodeDecodeError:
        return None, f"organisation policy {got.source}: not UTF-8 text"
    except SettingsError as exc:
        return None, f"organisation policy {got.source}: {exc}"
    sf.warnings = [w for w in sf.warnings if "unknown key" not in w] + got.warnings
    for key in list(sf.data):
        if key not in ORG_KEYS:
            del sf.data[key]
            sf.warnings.append(f"organisation policy {got.source}: key {key!r} is not allowed there (ignored); "
                               f"it may set {', '.join(sorted(ORG_KEYS))}")
    return sf, None
