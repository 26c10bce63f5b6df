"""From ``[plugins.sandbox]`` and a working directory to the exact bubblewrap command line.

Mount order is what makes the policy hold: the whole file system read-only, a private ``/tmp``,
then the writable roots, then the control plane's environment read-only again, then every hidden
path last, so no writable root or per-command exception can uncover what is hidden.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import re
import shlex
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_hooks_core.settings import PROJECT_DIR

from . import defaults as d
from . import probe

#: a command that does more than run one program: per-command exceptions never apply to it
_COMPOUND = re.compile(r"[;&|`<>\n\r]|\$\(")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in d.SECRET_ENV_PATTERNS))


@dataclass(frozen=True)
class Plan:
    """The sandbox for one command: the argv that runs it and the policy that produced it."""

    #: what runs: bubblewrap's argv (:attr:`bwrap`), under flock when there is a :attr:`lock`
    argv: tuple[str, ...]
    project: str
    writable: tuple[str, ...]
    read_only: tuple[str, ...]
    hidden: tuple[str, ...]
    network: str
    unset_env: tuple[str, ...]
    exception: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: the mount points bubblewrap makes in a writable root to seal a host configuration that does not
    #: exist yet: removed again (if still empty) once no sandbox runs (:func:`remember`, :func:`tidy`)
    made: tuple[str, ...] = ()
    #: why no sandbox can be made for this directory (the command is then denied), or None
    refused: str | None = None
    #: (the user's sandbox lock file, flock): held shared while bubblewrap runs (see :func:`tidy`)
    lock: tuple[str, str] | None = None
    #: bubblewrap's argv, the command included
    bwrap: tuple[str, ...] = ()

    def command_line(self) -> str:
        """The argv as one shell command line (what the host's shell runs)."""
        return shlex.join(self.argv)

    def to_dict(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "command_line": self.command_line(), "project": self.project,
                "writable": list(self.writable), "read_only": list(self.read_only), "hidden": list(self.hidden),
                "network": self.network, "unset_env": list(self.unset_env), "exception": self.exception,
                "notes": list(self.notes), "made": list(self.made), "refused": self.refused,
                "lock": self.lock[0] if self.lock else None, "bwrap": list(self.bwrap)}


def resolve(raw: Any) -> dict[str, Any]:
    """The settings section (a SandboxConfig, a dict or nothing) as a complete dict."""
    if raw is None or (isinstance(raw, Mapping) and not raw):
        return {k: (list(v) if isinstance(v, list) else v) for k, v in d.DEFAULTS.items()}
    dump = getattr(raw, "model_dump", None)
    if dump is None:
        from .config import SandboxConfig  # an unvalidated dict (Runtime(plugin_config=...)): validate it

        raw = SandboxConfig.model_validate(dict(raw))
        dump = raw.model_dump
    return {**d.DEFAULTS, **dump()}


def project_root(cwd: str) -> str:
    """The project of ``cwd`` the way agent-hooks finds it (``.agent-hooks/``), else its git
    work tree, else ``cwd`` itself; never the home directory or above it (a project inside no
    repository, under a home that is itself inside one, is just its directory)."""
    from agent_hooks_core.settings import find_project_root

    home = os.path.realpath(os.path.expanduser("~"))
    start = os.path.realpath(cwd)
    try:
        root = find_project_root(cwd)
    except OSError:
        root = None
    if root is not None and not _inside(home, os.path.realpath(root)):
        return os.path.realpath(root)
    here = start
    while not _inside(home, here):
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return start


def _expand(raw: str, project: str, home: str) -> str:
    path = raw.replace(d.PROJECT, project)
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    path = os.path.expandvars(path)
    if not os.path.isabs(path):
        path = os.path.join(project, path)
    return os.path.normpath(path)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def control_plane(cwd: str, env: Mapping[str, str] | None = None) -> tuple[list[str], list[str]]:
    """(hidden, read-only) paths of agent-hooks' own control plane.

    Settings, trust store, hook directories, run directory and host hook configurations are
    hidden; the environment agent-hooks runs from stays readable (a build may run its Python)
    but is never writable, even inside the project.
    """
    from agent_hooks_core.controlplane import protected_paths

    hidden: list[str] = []
    read_only: list[str] = []
    for p in protected_paths(cwd=cwd, env=env):
        (hidden if p.kind in d.HIDDEN_KINDS else read_only).append(p.path)
    return hidden, read_only


def secret_env(config: Mapping[str, Any], env: Mapping[str, str]) -> list[str]:
    """Names to remove: secret-looking names in ``env``, the well-known ones, and ``unset_env``."""
    keep = set(config["keep_env"]) | set(d.KEEP_ENV)
    names = {n for n in env if _SECRET_NAME.match(n.upper())}
    names |= set(d.SECRET_ENV_NAMES) | set(config["unset_env"])
    return sorted(n for n in names - keep if n and "=" not in n)


#: the shell the prelude runs in: the system's POSIX shell (dash on Debian and Ubuntu), which starts
#: in about a third of bash's time; it uses nothing but its builtins
PRELUDE_SHELL = "/bin/sh"


#: where the prelude lists the environment: bubblewrap's fresh /dev, private to the sandbox
ENV_LIST = "/dev/.agent-hooks-env"


def prelude(config: Mapping[str, Any], shell: str, command: str | Sequence[str]) -> list[str]:
    """What bubblewrap runs first: a script (in :data:`PRELUDE_SHELL`, as pid 1) that unsets every
    secret-named variable of the environment the command really gets (the host's shell's, which the
    hook never sees), then execs the command (a text for ``shell``, or an argv), so no process inside
    still holds the secrets in its ``/proc/PID/environ``.

    The names come from ``export -p`` (a builtin), written to :data:`ENV_LIST` and read back with
    ``.`` while ``export`` is an alias of a function that unsets the secret-named of its arguments:
    the shell's own parser splits its own quoting, so a value holding newlines or quotes yields no
    name of its own. No command substitution (the guard cannot know what one prints) and no ``read``
    loop (dash reads one byte per system call). The list is emptied before the command starts."""
    keep = sorted(n for n in {*config["keep_env"], *d.KEEP_ENV} if _ENV_NAME.fullmatch(n))
    secret = [*d.SECRET_ENV_PATTERNS, *d.SECRET_ENV_NAMES,
              *(n for n in config["unset_env"] if _ENV_NAME.fullmatch(n))]
    arms = ["''|[0-9]*|*[!A-Za-z0-9_]*) ;;", *([f"{'|'.join(keep)}) ;;"] if keep else []),
            f"{'|'.join(secret)}) unset \"$v\" ;;"]
    text = isinstance(command, str)
    run = f'exec {shlex.quote(shell)} -c "$1" {os.path.basename(shell)}' if text else 'exec "$@"'
    script = (f'_ahs_unset() {{ for w; do v=${{w%%=*}}; case "$v" in {" ".join(arms)} esac; done; }}; '
              f'alias export=_ahs_unset; command export -p > {ENV_LIST}; . {ENV_LIST}; unalias export; '
              f'unset -f _ahs_unset; unset w v; : > {ENV_LIST}; {run}')
    first = PRELUDE_SHELL if os.access(PRELUDE_SHELL, os.X_OK) else shell
    return [first, "-c", script, "agent-hooks-sandbox", *([command] if text else command)]


def tidy(lock: str | None = None) -> list[str]:
    """Remove the mount points sandboxes made (:attr:`Plan.made`, recorded by :func:`remember`) that
    are empty directories, if no sandboxed command of the user runs now (the lock taken exclusive,
    without waiting); the paths removed.

    Removing a directory detaches whatever another sandbox mounted on it, which would uncover what
    that sandbox seals: every sandbox holds the lock shared while it runs (the ``flock`` it runs
    under). ``rmdir`` only: a directory that holds anything stays (and is no longer one of ours)."""
    import fcntl

    lock = lock or _lock_file()
    if lock is None:
        return []
    records = os.path.join(os.path.dirname(lock), "made")
    try:
        names = os.listdir(records)
    except OSError:
        return []
    if not names:
        return []
    removed: list[str] = []
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return []
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return []  # a sandbox runs: the last one's clean-up removes them
        for name in names:
            record = os.path.join(records, name)
            try:
                path = os.readlink(record)
            except OSError:
                continue
            try:
                os.rmdir(path)
                removed.append(path)
                continue  # the record stays: the next command there makes it again
            except FileNotFoundError:
                if os.path.isdir(os.path.dirname(path)):
                    continue  # not made yet, or made again later
            except OSError:  # holds something (someone's now), not a directory: not ours any more
                pass
            try:
                os.unlink(record)
            except OSError:
                pass
    finally:
        os.close(fd)
    return removed


def remember(plan: Plan) -> None:
    """Record the mount points ``plan``'s bubblewrap will make, for :func:`tidy`: a symbolic link to
    each (named by a hash of its path: made at most once, read without opening anything)."""
    if not plan.made or plan.lock is None:
        return
    import hashlib

    records = os.path.join(os.path.dirname(plan.lock[0]), "made")
    try:
        os.makedirs(records, mode=0o700, exist_ok=True)
    except OSError:  # unrecorded, they stay: an empty directory, not a hole
        return
    for path in plan.made:
        name = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        try:
            os.symlink(path, os.path.join(records, name))
        except OSError:  # there already (or unrecordable: it stays, empty)
            pass


#: where flock is looked for (not on the agent's PATH: every sandbox of the user must find the
#: same one, or one that takes no lock could lose its mounts to another's clean-up)
TOOL_DIRS = ("/usr/bin", "/bin")


def _tool(name: str) -> str | None:
    return next((p for p in (os.path.join(d, name) for d in TOOL_DIRS) if os.access(p, os.X_OK)), None)


def find_program(name: str) -> str | None:
    """``name`` as an absolute path (looked up now, so the agent's PATH cannot swap it)."""
    found = shutil.which(name)
    return os.path.realpath(found) if found else None


def exception_for(config: Mapping[str, Any], command: str | Sequence[str]) -> dict[str, Any] | None:
    """The first exception whose pattern matches the whole of a simple command."""
    text = command if isinstance(command, str) else shlex.join(str(c) for c in command)
    if _COMPOUND.search(text):
        return None
    for exc in config["exceptions"]:
        rule = exc if isinstance(exc, Mapping) else exc.model_dump()
        if re.fullmatch(rule["match"], text.strip()):
            return dict(rule)
    return None


#: a mount plan is reused for this long at most (and only while no directory it looked at changed)
PLAN_SECONDS = 60.0
_PLANS: dict[str, tuple[float, tuple[tuple[str, tuple[int, int] | None], ...], Plan]] = {}


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    return st.st_ino, st.st_mtime_ns


def _watched(paths: Sequence[str]) -> list[str]:
    """Every path whose change could change what ``paths`` are or lead to: each of them and all
    their ancestors (a path created, removed or replaced by a link changes its directory's
    modification time)."""
    out: set[str] = set()
    for p in paths:
        d = os.path.normpath(p)
        while d not in out:
            out.add(d)
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return sorted(out)


def build(config: Mapping[str, Any], cwd: str, command: str | Sequence[str], *,
          env: Mapping[str, str] | None = None, bwrap: str | None = None,
          isolation: Sequence[str] | None = None, perms: bool | None = None) -> Plan:
    """The sandbox plan for ``command`` run from ``cwd`` (``isolation``: the namespace options
    :func:`agent_hooks_sandbox.probe.check` found this bubblewrap supports; ``perms``: whether it
    takes ``--perms`` for a tmpfs, :func:`agent_hooks_sandbox.probe.tmpfs_perms`).

    The argv is bubblewrap's, under ``flock`` holding the user's sandbox lock when it mounts on
    an entry of a writable root (see :func:`tidy`). The mounts depend on the settings, the environment, the directory and the file
    system, not on the command (but for an exception): they are planned once per process and
    reused while none of the directories they were read from changed (:data:`PLAN_SECONDS` at most)."""
    env = os.environ if env is None else env
    exc = exception_for(config, command)
    program = bwrap or find_program(str(config["bwrap"])) or str(config["bwrap"])
    if isolation is None:
        isolation = probe.check(program)[1]
    if perms is None:
        perms = probe.tmpfs_perms(program)
    key = json.dumps([cwd, config, exc, program, list(isolation), perms, sorted(env.items())], sort_keys=True,
                     default=str)
    now = time.monotonic()
    hit = _PLANS.get(key)
    if hit is not None and hit[0] > now and all(_stamp(d) == stamp for d, stamp in hit[1]):
        mounts = hit[2]
    else:
        mounts, looked_at = _mounts(config, cwd, env, exc, program, isolation, perms)
        if len(_PLANS) > 64:
            _PLANS.clear()
        _PLANS[key] = (now + PLAN_SECONDS, tuple((d, _stamp(d)) for d in _watched(looked_at)), mounts)
    shell = str(config["shell"])
    if not os.access(shell, os.X_OK):
        shell = "/bin/sh"
    words = command if isinstance(command, str) else [str(c) for c in command]
    argv = [*mounts.argv, "--", *prelude(config, shell, words)]
    # flock holds the user's sandbox lock shared while bubblewrap runs; -o: not handed down, so
    # nothing inside can drop it; -E 126: a lock not had in 10 s is a command not run
    outer = ([mounts.lock[1], "-s", "-o", "-w", "10", "-E", "126", mounts.lock[0], *argv] if mounts.lock is not None
             else argv)
    return dataclasses.replace(mounts, argv=tuple(outer), bwrap=tuple(argv))


def _repointable(bases: Sequence[str], writable: Sequence[str], control: Sequence[str]) -> str | None:
    """Why a symbolic link in a writable directory the hosts read their configuration from leads to
    agent-hooks' control plane (a host's hook configuration, resolved through it), or None.

    A mount cannot pin a link (it lands where the link leads) and the command may replace it with a
    directory of its own, holding a hook configuration the host runs later, unsandboxed. A link
    that leads to a directory holding the one it is in (``up -> ..``) is no name a host reads."""
    for base in dict.fromkeys(bases):
        if not any(_inside(base, w) for w in writable):
            continue
        try:
            with os.scandir(base) as entries:
                links = [e.path for e in entries if e.is_symlink()]
        except OSError:
            continue
        for link in links:
            target = os.path.realpath(link)
            if _inside(base, target):
                continue
            hit = next((c for c in control if _inside(c, target)), None)
            if hit is not None:
                return (f"{link} is a symbolic link in a writable directory, to {target} (which holds {hit}): a "
                        "sandboxed command could replace it with a directory and a hook configuration of its own; "
                        "make it a directory (or remove it)")
    return None


def _lock_file() -> str | None:
    found = _lock_dir()
    return os.path.join(found, "lock") if found else None


def _lock_dir() -> str | None:
    """The user's private directory for the sandbox's lock (outside agent-hooks' control plane,
    which the guard keeps every command away from; hidden inside the sandbox), or None."""
    import platformdirs

    path = os.path.realpath(platformdirs.user_cache_dir("agent-hooks-sandbox", appauthor=False))
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return path if st.st_uid == os.getuid() and not st.st_mode & 0o077 else None


def _empty(path: str) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _empty_dir(path: str, perms: bool) -> list[str]:
    """An empty directory over ``path`` that the command cannot write to: a tmpfs of mode 0555 (it
    could chmod it, but what it puts there stays in memory and goes with it), or, where bubblewrap
    has no ``--perms``, a tmpfs remounted read-only."""
    return ["--perms", "0555", "--tmpfs", path] if perms else ["--tmpfs", path, "--remount-ro", path]


def _mounts(config: Mapping[str, Any], cwd: str, env: Mapping[str, str], exc: dict[str, Any] | None,
            program: str, isolation: Sequence[str], perms: bool) -> tuple[Plan, list[str]]:
    """The plan without the command (its argv ends before ``--``), and every path it looked at."""
    home = os.path.realpath(os.path.expanduser("~"))
    project = project_root(cwd)
    notes: list[str] = []
    network = (exc or {}).get("network") or config["network"]
    extra_writable = list((exc or {}).get("writable") or ())

    hidden_cp, read_only = control_plane(cwd, env)
    hidden_all = [_expand(h, project, home) for h in config["hidden"]] + hidden_cp

    found: list[str] = []  # what exists of them, by the path given and by where it leads
    for path in hidden_all:
        if os.path.lexists(path):
            for variant in (path, os.path.realpath(path)):
                if variant not in found and os.path.lexists(variant):
                    found.append(variant)
    trees = [h for h in found if os.path.isdir(h) and not os.path.islink(h)]
    hidden = [h for h in found if not any(t != h and _inside(h, t) for t in trees)]

    writable: list[str] = []
    for raw in [*config["writable"], *extra_writable]:
        real = os.path.realpath(_expand(raw, project, home))
        if real == "/" or _inside(home, real):
            notes.append(f"writable {raw!r} ({real}) refused: it holds your home directory")
            continue
        if _inside(ENV_LIST, real):
            notes.append(f"writable {raw!r} ({real}) refused: the sandbox's /dev is its own")
            continue
        if not os.path.exists(real):
            continue
        if any(_inside(real, h) for h in hidden):
            notes.append(f"writable {raw!r} refused: it is inside a hidden path")
            continue
        if real not in writable:
            writable.append(real)
    read_only = [*read_only, *(_expand(p, project, home) for p in config["read_only"])]
    ro = sorted({real for real in (os.path.realpath(p) for p in read_only if os.path.exists(p))
                 if any(_inside(real, w) for w in writable)})
    # control-plane files that do not exist yet inside a writable root (a host's project hook
    # configuration): the entry that would hold one, next to the directory the host looks from
    # (the working directory, the project, a writable root), is made read-only where it exists,
    # or, missing, an empty directory no one can write is mounted there (its mount point is made
    # on disk and removed again after the command: see tidy())
    sealed: list[str] = []
    made: list[str] = []  # what of them bubblewrap will make: removed after the command
    tops: list[str] = []
    bases = sorted({*writable, cwd, os.path.realpath(cwd), project}, key=len, reverse=True)
    refused = _repointable(bases, writable, hidden_cp)
    for path in hidden_cp:
        owner = next((w for w in writable if _inside(path, w) and path != w), None)
        if owner is None or os.path.lexists(path):
            continue
        base = next(b for b in bases if _inside(path, b) and path != b and _inside(b, owner))
        top = os.path.join(base, os.path.relpath(path, base).split(os.sep)[0])
        if os.path.basename(top) == PROJECT_DIR or any(_inside(top, h) for h in hidden) or top in tops:
            continue  # a new project settings file is the trust store's to judge; creating the
            # directory would make this a project
        tops.append(top)
        if os.path.lexists(top) and not os.path.isdir(top):
            ro.append(top)  # a file where a host looks for a directory: pinned as it is
        elif os.path.isdir(top) and not _empty(top):
            if top not in ro:
                ro.append(top)
        else:  # missing, or an empty directory (perhaps another sandbox's mount point, which
            # its clean-up may remove before this one starts: a read-only bind of it would then fail)
            sealed.append(top)
            if not os.path.lexists(top):
                made.append(top)
    lock: tuple[str, str] | None = None
    flock = _tool("flock")
    lock_dir = _lock_dir() if tops and flock else None
    if lock_dir is not None and flock:
        lock = (os.path.join(lock_dir, "lock"), flock)
        hidden.append(lock_dir)  # out of the command's reach: it could hold the lock, or drop it
    if made and lock is None:
        notes.append("no flock, or no private directory for its lock: the empty mount points sealing "
                     f"{', '.join(made)} stay after the command")

    # --as-pid-1: the first process inside is our prelude, which execs the command's shell with the
    # secret-named variables gone; bwrap's own pid-1 reaper would keep the original environment
    # readable at /proc/1/environ
    argv: list[str] = [program, *isolation]
    if network == "off":
        argv.append("--unshare-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in writable:
        argv += ["--bind", path, path]
    for path in ro:
        argv += ["--ro-bind", path, path]
    for path in sealed:
        argv += _empty_dir(path, perms)
    for path in hidden:
        if os.path.isdir(path) and not os.path.islink(path):
            argv += _empty_dir(path, perms)
        else:
            argv += ["--ro-bind", "/dev/null", path]
    # no --unsetenv: the prelude removes every one of these names and more (bubblewrap would only
    # spend time on them)
    unset = secret_env(config, env)
    looked_at = [home, cwd, project, *hidden_all, *read_only, *hidden_cp, *writable, *tops,
                 *(_expand(raw, project, home) for raw in [*config["writable"], *extra_writable])]
    plan = Plan(tuple(argv), project, tuple(writable), tuple([*ro, *sealed]), tuple(hidden), network, tuple(unset),
                (exc or {}).get("match"), tuple(notes), tuple(made) if lock else (), refused, lock)
    return plan, [p for p in looked_at if p]
