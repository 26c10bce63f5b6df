"""Edits of a settings file: read-modify-write under the file's lock with tomlkit (comments and
layout survive), never writing a file that would not read back."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..fileio import SETTINGS_MAX, UnreadableFile, atomic_write, locked, read_bounded
from .keys import SettingsError, normalize_name
from .parsing import describe_value, loads, parse_error

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

T = TypeVar("T")


def edit_file(path: Path, mutate: Callable[[TOMLDocument], T]) -> T:
    """Apply ``mutate(document)`` to the settings file at ``path`` and write it back atomically.

    The read-modify-write holds the file's edit lock (:func:`agent_hooks_core.fileio.locked`), so
    two edits at once (two ``agenthooks plugins disable``) both land. The file is edited with
    tomlkit, so comments, ordering and formatting survive. A file that is not valid TOML raises
    :class:`SettingsError` and is left untouched; so does a directory we cannot write (one line,
    not a traceback). Returns what ``mutate`` returned.
    """
    import tomlkit

    try:
        with locked(path):
            try:
                text = read_bounded(path, SETTINGS_MAX).decode("utf-8")
            except FileNotFoundError:
                text = ""
            except UnreadableFile as exc:
                raise SettingsError(f"{path}: {exc.strerror}; not edited") from None
            except UnicodeDecodeError as exc:
                raise SettingsError(f"{path}: cannot read: {exc}; not edited") from None
            try:
                doc = tomlkit.parse(text)
            except Exception as exc:
                raise parse_error(path, exc) from None
            result = mutate(doc)
            new_text = tomlkit.dumps(doc)
            if new_text != text:
                loads(new_text)  # never write a file we could not read back
                atomic_write(path, new_text)
    except OSError as exc:
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            what = f"{blocker} is a file, not a directory"
        else:
            what = exc.strerror or "operating system error"
            if exc.filename and exc.filename != str(path):
                what += f" ({exc.filename})"
        raise SettingsError(f"{path}: cannot write settings: {what}") from None
    return result


def list_add(doc: TOMLDocument, key: str, name: str) -> bool:
    """Append ``name`` to the array ``key`` unless present (by normalized name); True if added."""
    import tomlkit

    if key not in doc:
        doc[key] = tomlkit.array()
    arr = _array(doc, key)
    if any(normalize_name(str(v)) == normalize_name(name) for v in arr):
        return False
    arr.append(name)
    return True


def list_remove(doc: TOMLDocument, key: str, names: Iterable[str]) -> list[str]:
    """Remove every entry of array ``key`` matching one of ``names``; returns the removed ones."""
    if key not in doc:
        return []
    wanted = {normalize_name(n) for n in names}
    arr = _array(doc, key)
    removed = []
    for i in reversed(range(len(arr))):
        if normalize_name(str(arr[i])) in wanted:
            removed.append(str(arr[i]))
            del arr[i]
    return removed[::-1]


def _array(doc: TOMLDocument, key: str) -> list[object]:
    """The array ``key`` of ``doc`` (tomlkit's arrays are lists); one line when it is something else."""
    arr = doc[key]
    if not isinstance(arr, list):
        raise SettingsError(f"{key}: expected a list of plugin names, got {describe_value(arr)}; not edited")
    return arr
