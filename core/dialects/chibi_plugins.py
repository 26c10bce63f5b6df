"""chibi subprocess plugins, run by agent-hooks (seeds 000 and 001).

A chibi plugin is an executable in a plugin directory. ``PLUGIN --schema`` prints a JSON schema
whose ``hooks`` lists the chibi hook points it wants. For each hook call chibi runs it with
``CHIBI_HOOK=<hook name>`` in the environment and the JSON payload on stdin (seed 001) and, for
plugins written against the older protocol, in ``CHIBI_HOOK_DATA`` too (seed 000); the plugin
prints a JSON object, ``{}`` meaning no opinion.

:func:`load_directory` registers one plugin per executable, named ``chibi:<file name>``. Its
hookimpls are ``tryfirst`` (chibi runs subprocess plugins before in-process ones) and it is
registered ``external``: a re-entrant call still runs it (chibi's rule). A plugin that exits
non-zero, prints something that is not a JSON object, or runs past the hook's timeout is killed
with its whole process group and its call raises, so the runtime records the error and skips it
(or blocks/denies, for the hooks that fail closed).

Schemas are cached in ``<user cache dir>/chibi-schemas.json``, keyed by the executable's path,
modification time and size: a changed file is asked again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..errors import HookError, HookTimeout
from ..fileio import atomic_write
from ..hookspecs.catalogue import BY_NAME
from ..hookspecs.markers import hookimpl
from ..plugininfo import DISABLED, FAILED, LOADED, PluginInfo
from ..settings import cache_dir
from .chibi import CHIBI_NAMES, ENV_INSIDE_CHIBI, from_chibi_answer, to_chibi_payload

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..runtime import Runtime

#: payloads longer than this go on stdin only: the environment has a per-string size limit
ENV_DATA_LIMIT = 64 * 1024
SCHEMA_TIMEOUT = 10.0
#: after a kill, how long to wait for the pipes to close
_REAP = 2.0


class _FollowRuntime:
    """The default timeout: the runtime's timeout for the hook being called."""

    def __repr__(self) -> str:
        return "FOLLOW_RUNTIME"


FOLLOW_RUNTIME = _FollowRuntime()


class ChibiPluginError(Exception):
    """A chibi plugin failed: exit status, output or schema."""


@dataclass
class ChibiPluginInfo(PluginInfo):
    """What loading learned about one chibi plugin (``rt.plugin_info[name]``).

    ``hooks`` are the canonical hooks, ``chibi_hooks`` the chibi names its schema asked for.
    """

    chibi_hooks: list[str] = field(default_factory=list)
    description: str = ""


# -- running one executable -----------------------------------------------------------------------


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.communicate(timeout=_REAP)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()


def run_plugin(path: str, args: list[str], env: dict[str, str], stdin: bytes, timeout: float | None,
               cwd: str | None = None) -> str:
    """Run ``path args`` in its own session; its stdout, or ChibiPluginError / HookTimeout."""
    try:
        proc = subprocess.Popen(
            [path, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, start_new_session=True,
        )
    except OSError as exc:
        raise ChibiPluginError(f"cannot run {path}: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise HookTimeout() from None
    except BaseException:  # the runtime's own timeout (HookTimeout), KeyboardInterrupt, ...
        _kill(proc)
        raise
    if proc.returncode != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        detail = f": {lines[-1][:200]}" if lines else ""
        status = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
                  else f"exited with status {proc.returncode}")
        raise ChibiPluginError(f"{status}{detail}")
    return out.decode("utf-8", "replace")


def parse_object(text: str, what: str) -> dict[str, object] | None:
    """The JSON object printed by a plugin (``null`` -> None); ChibiPluginError for anything else."""
    stripped = text.strip()
    if not stripped:
        raise ChibiPluginError(f"printed nothing; expected a JSON object as {what}")
    try:
        value = json.loads(stripped)
    except ValueError:
        snippet = stripped[:80] + ("…" if len(stripped) > 80 else "")
        raise ChibiPluginError(f"printed {snippet!r}, not JSON; expected a JSON object as {what}") from None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ChibiPluginError(f"printed a JSON {type(value).__name__}, not an object, as {what}")
    return value


# -- one plugin -----------------------------------------------------------------------------------


class ChibiPlugin:
    """One chibi executable as an agent-hooks plugin: one hookimpl per hook in its schema."""

    def __init__(self, rt: Runtime, path: str, name: str, hooks: dict[str, str],
                 timeout: float | _FollowRuntime | None = FOLLOW_RUNTIME) -> None:
        self._rt = rt
        self._path = path
        self._name = name
        self._timeout = timeout
        for chibi_name, hook in hooks.items():
            setattr(self, hook, self._impl(chibi_name, hook))

    def __repr__(self) -> str:
        return f"<chibi plugin {self._name} {self._path}>"

    def _impl(self, chibi_name: str, hook: str) -> Callable[[dict[str, object]], object]:
        def handler(event: dict[str, object]) -> object:
            return self.call(chibi_name, hook, event)

        handler.__name__ = hook
        handler.__qualname__ = f"{self._name}.{hook}"
        return cast("Callable[[dict[str, object]], object]", hookimpl(tryfirst=True)(handler))

    def timeout(self, hook: str) -> float | None:
        if not isinstance(self._timeout, _FollowRuntime):
            return self._timeout
        return self._rt._timeout(BY_NAME[hook])

    def call(self, chibi_name: str, hook: str, event: dict[str, object]) -> dict[str, object] | None:
        """Run the executable for one hook call; its answer as a canonical answer."""
        data = json.dumps(to_chibi_payload(hook, event), default=str)
        env = dict(os.environ)
        env["CHIBI_HOOK"] = chibi_name
        if len(data) <= ENV_DATA_LIMIT:
            env["CHIBI_HOOK_DATA"] = data
        else:
            env.pop("CHIBI_HOOK_DATA", None)
        out = run_plugin(self._path, [], env, data.encode(), self.timeout(hook), cwd=self._rt.cwd)
        answer = parse_object(out, f"the answer to {chibi_name}")
        if answer is None:
            return None
        return from_chibi_answer(hook, answer)


# -- schemas and their cache --------------------------------------------------------------------


def _cache_file() -> Path:
    return cache_dir() / "chibi-schemas.json"


class SchemaCache:
    """``--schema`` answers on disk, keyed by path, mtime and size."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or _cache_file()
        self.entries: dict[str, object] = {}
        self.dirty = False
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError):
            pass

    @staticmethod
    def _key(st: os.stat_result) -> list[int]:
        return [st.st_mtime_ns, st.st_size]

    def get(self, path: str, st: os.stat_result) -> dict[str, object] | None:
        entry = self.entries.get(path)
        if isinstance(entry, dict) and entry.get("key") == self._key(st) and isinstance(entry.get("schema"), dict):
            return cast("dict[str, object]", entry["schema"])
        return None

    def put(self, path: str, st: os.stat_result, schema: dict[str, object]) -> None:
        self.entries[path] = {"key": self._key(st), "schema": schema}
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            atomic_write(self.path, json.dumps(self.entries, indent=1, sort_keys=True))
            self.dirty = False
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness


def read_schema(path: str, timeout: float = SCHEMA_TIMEOUT, cwd: str | None = None) -> dict[str, object]:
    """Run ``path --schema``; the schema, or ChibiPluginError naming what is wrong."""
    env = dict(os.environ)
    env.pop("CHIBI_HOOK", None)
    env.pop("CHIBI_HOOK_DATA", None)
    try:
        out = run_plugin(path, ["--schema"], env, b"", timeout, cwd=cwd)
    except HookTimeout:
        raise ChibiPluginError(f"--schema timed out after {timeout:g}s") from None
    except ChibiPluginError as exc:
        raise ChibiPluginError(f"--schema {exc}") from None
    try:
        schema = parse_object(out, "its --schema")
    except ChibiPluginError as exc:
        raise ChibiPluginError(f"--schema {exc}") from None
    if schema is None:
        raise ChibiPluginError("--schema printed null; expected a JSON object")
    hooks = schema.get("hooks", [])
    if not isinstance(hooks, list) or not all(isinstance(h, str) for h in hooks):
        raise ChibiPluginError("--schema: `hooks` must be a list of hook names")
    return schema


def executables(directory: Path) -> list[Path]:
    """The executable files of ``directory`` in name order (hidden files skipped)."""
    found = []
    for entry in sorted(directory.iterdir(), key=lambda p: p.name):
        if entry.name.startswith(".") or not entry.is_file():
            continue
        if os.access(entry, os.X_OK):
            found.append(entry)
    return found


# -- loading a directory --------------------------------------------------------------------------


def load_directory(rt: Runtime, directory: str | os.PathLike[str], *,
                   timeout: float | _FollowRuntime | None = FOLLOW_RUNTIME,
                   schema_timeout: float = SCHEMA_TIMEOUT, cache: SchemaCache | None = None) -> None:
    """Register every chibi plugin executable of ``directory`` with ``rt``.

    ``timeout``: seconds per hook call (default: the runtime's timeout for that hook). Problems are
    recorded in ``rt.load_errors`` (``HookError(kind="load")``) and ``rt.plugin_info``; the other
    plugins still load. Inside ``agenthooks chibi`` (chibi runs its plugins itself) this does nothing.
    """
    if os.environ.get(ENV_INSIDE_CHIBI):
        return
    root = Path(directory).expanduser()
    if not root.is_absolute():
        root = Path(rt.cwd) / root
    try:
        files = executables(root)
    except OSError as exc:
        rt.load_errors.append(HookError(f"chibi:{root}", "load",
                                        f"chibi plugin directory {root}: {exc.strerror or exc}", "load"))
        return
    schemas = cache if cache is not None else SchemaCache()
    try:
        for path in files:
            _load_one(rt, path, schemas, timeout, schema_timeout)
    finally:
        schemas.save()


def _load_one(rt: Runtime, path: Path, schemas: SchemaCache, timeout: float | _FollowRuntime | None,
              schema_timeout: float) -> None:
    start = time.perf_counter()
    name = f"chibi:{path.name}"
    info = ChibiPluginInfo(name, "chibi", LOADED, path=str(path))
    rt.plugin_info[name] = info

    def problem(message: str) -> None:
        info.status, info.reason = FAILED, message
        rt.load_errors.append(HookError(name, "load", message, "load"))

    try:
        st = path.stat()
        key = str(path.resolve())
        schema = schemas.get(key, st)
        if schema is None:
            schema = read_schema(str(path), schema_timeout, cwd=rt.cwd)
            schemas.put(key, st, schema)
    except (ChibiPluginError, OSError) as exc:
        problem(f"{path}: {exc}")
        return
    info.description = str(schema.get("description") or "")
    hooks: dict[str, str] = {}
    unknown = []
    listed = schema.get("hooks", [])  # read_schema checked: a list of names
    for chibi_name in [h for h in listed if isinstance(h, str)] if isinstance(listed, list) else []:
        hook = CHIBI_NAMES.get(chibi_name)
        if hook is None:
            unknown.append(chibi_name)
        elif chibi_name not in hooks:
            hooks[chibi_name] = hook
    info.chibi_hooks, info.hooks = list(hooks), list(hooks.values())
    if unknown:
        # chibi skips hook points it does not have; so do we, and say so
        rt.load_errors.append(HookError(name, "load", f"{path}: unknown chibi hook(s) "
                                        f"{', '.join(map(repr, unknown))} ignored", "load"))
    if not hooks:
        if unknown:
            info.status, info.reason = FAILED, "none of its hooks is a chibi hook agent-hooks knows"
        else:
            info.status, info.reason = DISABLED, "its --schema lists no hooks (a tool-only chibi plugin)"
        return
    try:
        rt.register(ChibiPlugin(rt, str(path), name, hooks, timeout), name=name, external=True)
    except Exception as exc:
        problem(f"{path}: {exc}")
    info.load_ms = round((time.perf_counter() - start) * 1000, 3)
