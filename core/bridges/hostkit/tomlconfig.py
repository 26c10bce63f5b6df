"""Reading and writing the TOML files of hosts configured in TOML (Codex's hook trust in
``config.toml``, Mistral Vibe's ``hooks.toml``, Kimi CLI's ``config.toml``), edited with tomlkit so
the user's comments, order and other keys keep their text. The edit itself is a
:class:`~.jsonconfig.FileChange` like every other host's (same dry-run diff, backup and apply)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .jsonconfig import ConfigEdit, FileChange, InstallError

if TYPE_CHECKING:
    from tomlkit import TOMLDocument


def read_toml(path: Path) -> tuple[TOMLDocument, str | None]:
    """(the tomlkit document in ``path``, its text or None when the file does not exist)."""
    import tomlkit

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document(), None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return tomlkit.parse(text), text
    except Exception as exc:  # tomlkit raises several unrelated types for bad input
        raise InstallError(f"{path} is not valid TOML ({exc}); fix or move it, nothing was changed") from None


def dump_toml(doc: Mapping[str, object], like: str | None = None) -> str:
    """The text of ``doc``, checked to parse (what we write must be readable again), ending in the
    white space ``like`` (the text it replaces) ends in: removing the tables we appended leaves
    no blank line behind."""
    import tomlkit

    text = tomlkit.dumps(doc)
    tomlkit.parse(text)
    if like is not None and text.strip():
        text = text.rstrip() + like[len(like.rstrip()):]
    return text


# -- a [[hooks]] array of tables (Vibe, Kimi) ------------------------------------------------


def read_hooks_toml(path: Path) -> tuple[TOMLDocument, str | None]:
    """:func:`read_toml`, refusing a file whose ``hooks`` is not an array of tables."""
    doc, text = read_toml(path)
    hooks = doc.get("hooks")
    if hooks is not None and not (isinstance(hooks, list) and all(isinstance(h, Mapping) for h in hooks)):
        raise InstallError(f"{path}: \"hooks\" must be an array of tables ([[hooks]]); nothing was changed")
    return doc, text


def hook_entries(doc: TOMLDocument) -> list[Any]:
    hooks = doc.get("hooks")
    return list(hooks) if isinstance(hooks, list) else []


def render_hooks(doc: TOMLDocument, keep: list[object], add: list[dict[str, object]], like: str | None = None) -> str:
    """``doc`` with ``hooks`` = ``keep`` (entries already in it) + ``add``, edited in place so the
    user's entries, comments and other keys keep their text."""
    import tomlkit

    hooks = doc.get("hooks")
    if isinstance(hooks, list):
        for i in reversed(range(len(hooks))):
            if not any(hooks[i] is k for k in keep):
                del hooks[i]
    if add:
        if not isinstance(hooks, list):
            hooks = tomlkit.aot()
            doc["hooks"] = hooks
        for item in add:
            table = tomlkit.table()
            for key, value in item.items():
                table[key] = value
            hooks.append(table)
    if "hooks" in doc and not doc["hooks"]:
        del doc["hooks"]
    return dump_toml(doc, like)


def hooks_change(path: Path, doc: TOMLDocument, old: str | None, is_ours: Callable[[object], bool],
                 wanted: list[dict[str, object]]) -> FileChange:
    """The edit that makes our entries of ``doc`` (read from ``path``) exactly ``wanted``, the
    user's entries kept in place; no change when they already are."""
    entries = hook_entries(doc)
    keep = [h for h in entries if not is_ours(h)]
    unchanged = old is not None and [dict(h) for h in entries if is_ours(h)] == wanted
    return FileChange(path, old, None if unchanged else render_hooks(doc, keep, wanted, old))


def hooks_removal(path: Path, is_ours: Callable[[object], bool]) -> ConfigEdit:
    """The edit that removes our entries from the ``[[hooks]]`` of ``path`` (none when it has none)."""
    doc, old = read_hooks_toml(path)
    entries = hook_entries(doc)
    keep = [h for h in entries if not is_ours(h)]
    if old is None or len(keep) == len(entries):
        return ConfigEdit([FileChange(path, old, None)], removal=True)
    return ConfigEdit([FileChange(path, old, render_hooks(doc, keep, [], old))], removal=True)
