"""Trust for project-local code.

A project's hook files (``.agent-hooks/hooks/*.py``) and the ``hooks``/``chibi_plugins`` entries
of its settings file are code execution: a cloned repository must not run code just because an
agent was started in it. They load only after the user ran ``agenthooks trust`` in the project,
and only while they are unchanged: ``trust`` pins each item to a SHA-256 digest, stored in the
user's directory (``trust.json``), never in the project. A changed or new item is untrusted again
until the user re-runs ``agenthooks trust``.

What is pinned:

* each project hook file: its content;
* the project settings' code keys (``hooks``, ``chibi_plugins``): their values, so editing other
  keys (``order``, ``disabled``, a plugin section) does not revoke trust in its code;
* the project settings' policy keys (``disabled``, ``[plugins.*]``, ``hook_timeout``,
  ``timeouts``), pinned apart: they can switch a gating plugin off, so an untrusted (or changed)
  value is ignored with a notice rather than applied;
* each file the project settings' ``hooks`` names, wherever it lives: its content; a package
  (a directory with ``__init__.py``): every file in its tree, since any of them may be executed;
* a project-configured chibi plugin directory: the names and contents of the files in it.

User hook files (``<user dir>/hooks/*.py``, the user settings' ``hooks`` entries and its
``chibi_plugins`` directory) are pinned
the same way, apart from any project (``"user"`` in ``trust.json``): the user directory is where
an agent's one allowed write would make code load in every later session, so a new or changed
user hook file does not load until a person runs ``agenthooks trust``, which shows what changed.

Code is executed from the very bytes that were hashed (:func:`read_code`), never read twice, so a
file rewritten between the check and the import cannot slip in.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .fileio import HOOK_FILE_MAX, TRUST_MAX, UnreadableFile, atomic_write, locked, read_bounded
from .settings import CODE_KEYS, POLICY_KEYS, user_dir

if TYPE_CHECKING:
    from .settings import Settings

TRUST_FILE = "trust.json"


@dataclass(frozen=True)
class TrustItem:
    """One pinned (or pinnable) piece of project code."""

    kind: str
    """hook-file, settings, chibi-dir"""
    path: str
    """absolute path (for ``settings``: the settings file)"""
    digest: str


def _sha256(data: bytes = b"") -> Any:
    import hashlib  # only projects with local code pay for it (~2 ms per bridge process)

    return hashlib.sha256(data)


def store_path() -> Path:
    return user_dir() / TRUST_FILE


def _read_store() -> dict[str, Any]:
    try:
        data = json.loads(read_bounded(store_path(), TRUST_MAX))
    except (FileNotFoundError, UnreadableFile, ValueError):
        # a store that is not a regular JSON file under the cap trusts nothing (the safe reading)
        return {"version": 1, "projects": {}}
    if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
        return {"version": 1, "projects": {}}
    return data


def _write_store(data: dict[str, Any]) -> None:
    atomic_write(store_path(), json.dumps(data, indent=2, sort_keys=True) + "\n")


def bytes_digest(data: bytes) -> str:
    return "sha256:" + _sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    return bytes_digest(read_bounded(path, HOOK_FILE_MAX))


#: a hook package or chibi plugin directory: at most this many files, this many bytes in all
TREE_MAX_FILES = 2000
TREE_MAX_BYTES = 32 << 20


def _tree(path: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    total = 0
    for p in sorted(path.rglob("*")):
        if "__pycache__" in p.parts or not p.is_file():
            continue
        if len(out) >= TREE_MAX_FILES:
            raise UnreadableFile(errno.EFBIG, f"holds over {TREE_MAX_FILES} files", str(path))
        data = read_bounded(p, HOOK_FILE_MAX)
        total += len(data)
        if total > TREE_MAX_BYTES:
            raise UnreadableFile(errno.EFBIG, f"holds over {TREE_MAX_BYTES >> 20} MiB", str(path))
        out[str(p.relative_to(path))] = data
    return out


def tree_digest(files: dict[str, bytes]) -> str:
    """Digest of a directory read into memory: every file's relative path and content."""
    h = _sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + bytes_digest(files[rel]).encode() + b"\0")
    return "sha256:" + h.hexdigest()


def dir_digest(path: Path) -> str:
    return tree_digest(_tree(path))


@dataclass(frozen=True)
class Code:
    """A hook file or package read once: what is hashed is what is executed."""

    path: Path
    """the file, or the package's ``__init__.py``"""
    files: dict[str, bytes]
    """relative path -> content (one entry, the file's name, for a plain file)"""
    digest: str
    package: Path | None = None
    """the package directory, for a package"""

    @property
    def pin_key(self) -> str:
        return _key(self.package if self.package is not None else self.path)


def read_code(path: Path) -> Code:
    """Read a hook file, or for ``pkg/__init__.py`` the whole package tree, into memory."""
    if path.name == "__init__.py":
        files = _tree(path.parent)
        return Code(path, files, tree_digest(files), package=path.parent)
    data = read_bounded(path, HOOK_FILE_MAX)
    return Code(path, {path.name: data}, bytes_digest(data))


def _digest_of(payload: dict[str, Any]) -> str:
    return bytes_digest(json.dumps(payload, sort_keys=True).encode())


def settings_digest(settings: Settings) -> str | None:
    """Digest of the project settings' code keys; None when the project file has none."""
    project = settings.project
    if project is None or not any(project.has(k) for k in CODE_KEYS):
        return None
    return _digest_of({k: project.get(k) for k in CODE_KEYS})


def policy_digest(settings: Settings) -> str | None:
    """Digest of the project settings' policy keys; None when the project file has none."""
    project = settings.project
    if project is None or not any(project.has(k) for k in POLICY_KEYS):
        return None
    # a key added to POLICY_KEYS later counts only when set, so digests users already trusted hold
    return _digest_of({k: project.get(k) for k in POLICY_KEYS if k not in _LATER_POLICY_KEYS or project.has(k)})


_LATER_POLICY_KEYS = frozenset({"stop_gate_limit"})


def policy_key(settings_file: Path) -> str:
    return _key(settings_file) + "#policy"


def _key(path: Path) -> str:
    return str(Path(os.path.abspath(path)))


def project_hook_files(root: Path) -> list[Path]:
    hooks_dir = root / ".agent-hooks" / "hooks"
    return sorted(p for p in hooks_dir.glob("*.py") if p.is_file()) if hooks_dir.is_dir() else []


def code_item(path: Path) -> TrustItem:
    code = read_code(path)
    return TrustItem("hook-package" if code.package is not None else "hook-file", code.pin_key, code.digest)


def expand_hook_path(path: Path) -> list[Path]:
    """A hook path names a file, a package directory (its ``__init__.py``), or a directory whose
    ``*.py`` files are hooks."""
    if path.is_dir() and (path / "__init__.py").is_file():
        return [path / "__init__.py"]
    if path.is_dir():
        return sorted(p for p in path.glob("*.py") if p.is_file())
    return [path]


def current_items(settings: Settings) -> list[TrustItem]:
    """Every piece of project code as it is now (what ``agenthooks trust`` would pin)."""
    root = settings.project_root
    if root is None:
        return []
    items = [code_item(p) for p in project_hook_files(root)]
    policy = policy_digest(settings)
    if policy is not None and settings.project is not None:
        items.append(TrustItem("policy", policy_key(settings.project.path), policy))
    digest = settings_digest(settings)
    if digest is not None and settings.project is not None:
        items.append(TrustItem("settings", _key(settings.project.path), digest))
        for hp in settings.hook_paths("project"):
            items.extend(code_item(p) for p in expand_hook_path(hp.path) if p.is_file())
        chibi = settings.chibi_plugins()
        if chibi is not None and chibi[1] == "project" and chibi[0].is_dir():
            items.append(TrustItem("chibi-dir", _key(chibi[0]), dir_digest(chibi[0])))
    return items


class TrustState:
    """The pins of one project (or of the user hook files), as stored; answers "may this load, and
    if not, why"."""

    def __init__(self, root: Path | None, pins: dict[str, str], trusted: bool, *, user: bool = False) -> None:
        self.root = root
        self.pins = pins
        self.trusted = trusted
        """the user trusted this project at some point"""
        self.user = user
        """the pins of the user hook files, not of a project"""

    def _check(self, key: str, digest: str, what: str) -> str | None:
        if not self.trusted:
            return f"project {self.root} is not trusted (run `agenthooks trust` there to allow its {what})"
        pinned = self.pins.get(key)
        since = "your user hook files were last trusted" if self.user else "the project was trusted"
        if pinned is None:
            return f"{what} added since {since} (run `agenthooks trust` to allow it)"
        if pinned != digest:
            return f"{what} changed since {since} (run `agenthooks trust` to allow it)"
        return None

    def file_reason(self, path: Path) -> str | None:
        """None when the project hook file (or package) may load as it is now, else why not."""
        try:
            code = read_code(path)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        return self.code_reason(code)

    def code_reason(self, code: Code) -> str | None:
        """None when ``code`` (read once, about to be executed) is what was pinned, else why not."""
        what = f"hook package {code.package.name}" if code.package is not None else f"hook file {code.path.name}"
        return self._check(code.pin_key, code.digest, what)

    def policy_reason(self, settings: Settings) -> str | None:
        """None when the project settings' policy keys may apply, else why not."""
        digest = policy_digest(settings)
        if digest is None or settings.project is None:
            return None
        return self._check(policy_key(settings.project.path), digest,
                           "settings " + "/".join(k for k in POLICY_KEYS if settings.project.has(k)))

    def settings_reason(self, settings: Settings) -> str | None:
        """None when the project settings' hooks/chibi_plugins may load, else why not."""
        digest = settings_digest(settings)
        if digest is None or settings.project is None:
            return None
        return self._check(_key(settings.project.path), digest, "settings entries `hooks`/`chibi_plugins`")

    def dir_reason(self, path: Path) -> str | None:
        try:
            digest = dir_digest(path)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        return self._check(_key(path), digest, f"chibi plugin directory {path}")


def state(settings: Settings) -> TrustState:
    root = settings.project_root
    if root is None:
        return TrustState(None, {}, False)
    entry = _read_store()["projects"].get(_key(root))
    if not isinstance(entry, dict):
        return TrustState(root, {}, False)
    return TrustState(root, dict(entry.get("pins") or {}), True)


def trust(settings: Settings) -> list[TrustItem]:
    """Pin the project's code as it is now; returns what was pinned."""
    root = settings.project_root
    if root is None:
        raise ValueError("no project here: a project is a directory holding .agent-hooks/")
    items = current_items(settings)
    with locked(store_path()):
        data = _read_store()
        data["projects"][_key(root)] = {"pins": {i.path: i.digest for i in items}}
        _write_store(data)
    return items


def revoke(root: Path) -> bool:
    with locked(store_path()):
        data = _read_store()
        removed = data["projects"].pop(_key(root), None) is not None
        if removed:
            _write_store(data)
    return removed


def user_hook_files(settings: Settings) -> list[Path]:
    """The user hook files as they are now: ``<user dir>/hooks/*.py``, then the user settings' ``hooks``."""
    hooks_dir = user_dir() / "hooks"
    files = sorted(p for p in hooks_dir.glob("*.py") if p.is_file()) if hooks_dir.is_dir() else []
    for hp in settings.hook_paths("user"):
        files.extend(p for p in expand_hook_path(hp.path) if p.is_file())
    return files


def current_user_items(settings: Settings) -> list[TrustItem]:
    """Every user hook file as it is now (what ``agenthooks trust`` pins for the user)."""
    items: dict[str, TrustItem] = {}
    for path in user_hook_files(settings):
        try:
            item = code_item(path)
        except OSError:
            continue  # unreadable: it cannot load either, and discovery says why
        items.setdefault(item.path, item)
    chibi = settings.chibi_plugins()
    if chibi is not None and chibi[1] == "user" and chibi[0].is_dir():
        try:
            items.setdefault(_key(chibi[0]), TrustItem("chibi-dir", _key(chibi[0]), dir_digest(chibi[0])))
        except OSError:
            pass
    return list(items.values())


def user_state() -> TrustState:
    """The pins of the user hook files (none yet: every user hook file is new)."""
    entry = _read_store().get("user")
    pins = dict(entry.get("pins") or {}) if isinstance(entry, dict) else {}
    return TrustState(None, pins, True, user=True)


def trust_user(settings: Settings) -> list[TrustItem]:
    """Pin the user hook files as they are now; returns what was pinned."""
    items = current_user_items(settings)
    with locked(store_path()):
        data = _read_store()
        data["user"] = {"pins": {i.path: i.digest for i in items}}
        _write_store(data)
    return items


def trusted_projects() -> dict[str, dict[str, str]]:
    return {root: dict(entry.get("pins") or {}) for root, entry in _read_store()["projects"].items()
            if isinstance(entry, dict)}
