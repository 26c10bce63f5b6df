"""Path words -> absolute paths, and gitignore-like protected-path patterns.

Patterns (case-insensitive):

* ``name`` (no slash): the file name, anywhere: ``.env``, ``*.pem``, ``id_rsa*``;
* ``name/``: a directory of that name anywhere, and everything in it: ``.git/``;
* ``~/x`` or ``/x``: that absolute path (``~`` is the home directory); with a trailing ``/`` the
  directory and everything in it; ``**`` crosses directories;
* ``a/b`` (relative, with a slash): a path ending in ``a/b``: ``.aws/credentials``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable

_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?]|%%?|##?)([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")
#: top-level directories of the system: a relative word naming one from / is still broad
_SYSTEM_TOP = frozenset({"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "opt", "proc", "root", "run",
                         "sbin", "srv", "sys", "usr", "var", "Users", "System", "Library", "Applications"})
_GLOB_ONLY = re.compile(r"^[*?.\[\]!]*$")


def user_home(user: str) -> str:
    """``~user``: that account's home directory, or ``/home/user`` when there is no such account
    here (never derived from the home of whoever runs the guard: ``/root`` would make it ``/user``)."""
    try:
        import pwd

        return pwd.getpwnam(user).pw_dir or f"/home/{user}"
    except (ImportError, KeyError, ValueError, OSError):
        return f"/home/{user}"


def expand(word: str, cwd: str, home: str) -> str | None:
    """A path as the shell would see it: absolute and normalized; None if it hangs on an unknown variable."""
    w = word
    if w == "~" or w.startswith("~/"):
        w = home + w[1:]
    elif w.startswith("~") and len(w) > 1 and w[1] not in "+-":
        user, _, rest = w[1:].partition("/")
        w = os.path.join(user_home(user), rest)
    if "$" in w:
        w2 = expand_vars(w, cwd, home)
        if w2 is None:
            return None
        w = w2
        if w.startswith("~"):
            return expand(w, cwd, home)
    return normalize(w, cwd)


def _variable(name: str, cwd: str, home: str) -> str | None:
    if name == "HOME":
        return home
    if name == "PWD":
        return cwd
    if name in ("USER", "LOGNAME", "USERNAME"):
        value = os.environ.get(name)
        if value:
            return value
        try:
            import getpass

            return getpass.getuser()
        except Exception:  # no such account entry: the variable is unknown
            return None
    return os.environ.get(name)


def _trim(value: str, op: str, pattern: str) -> str:
    """``${VAR%pat}``, ``%%``, ``#``, ``##``: the shortest or longest suffix or prefix matching the glob
    ``pat`` removed, as the shell does (values are short: the splits are few)."""
    import fnmatch

    if len(value) > 4096:
        return value
    cuts = range(len(value) + 1)
    if op[0] == "%":
        order = reversed(cuts) if op == "%" else cuts  # shortest suffix: cut late; longest: cut early
        for k in order:
            if fnmatch.fnmatchcase(value[k:], pattern):
                return value[:k]
    else:
        order = cuts if op == "#" else reversed(cuts)
        for k in order:
            if fnmatch.fnmatchcase(value[:k], pattern):
                return value[k:]
    return value


def expand_vars(word: str, cwd: str, home: str) -> str | None:
    """``$HOME``, ``$USER``, ``${VAR:-default}``, ``$AGENT_HOOKS_HOME`` ... as the shell would expand
    them here; None when one is unknown and has no default."""
    unknown = False

    def repl(m: re.Match[str]) -> str:
        nonlocal unknown
        name = m.group(1) or m.group(4)
        op, default = m.group(2), m.group(3)
        value = _variable(name, cwd, home)
        if op and op.lstrip(":") in ("-", "=") and (value is None or (op.startswith(":") and not value)):
            return default or ""
        if op and op.lstrip(":") == "+":
            return default or "" if value else ""
        if value is None:
            unknown = True
            return m.group(0)
        if op and op[0] in "%#":
            return _trim(value, op, default or "")
        return value

    out = _VAR.sub(repl, word)
    return None if unknown or "$" in out else out


def is_relative(word: str) -> bool:
    """A path word the shell resolves against the working directory."""
    return not word.startswith(("/", "~", "$"))


def is_temporary(path: str) -> bool:
    """At or below a directory for temporary files (what is there is scratch)."""
    import tempfile

    for tmp in {"/tmp", "/var/tmp", "/private/tmp", os.path.realpath(tempfile.gettempdir())}:
        if path == tmp or path.startswith(tmp + "/"):
            return True
    return False


def normalize(path: str, cwd: str) -> str:
    if not path.startswith("/"):
        path = os.path.join(cwd, path)
    path = re.sub(r"/{2,}", "/", path)
    return os.path.normpath(path).replace("//", "/")


def _glob_to_regex(glob: str) -> str:
    out = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_patterns(patterns: list[str], home: str) -> list[tuple[str, re.Pattern[str]]]:
    """``(pattern, regex)`` pairs matching absolute, normalized, lower-cased paths."""
    compiled = []
    for pattern in patterns:
        p = pattern.strip()
        if not p:
            continue
        is_dir = p.endswith("/")
        body = p.rstrip("/")
        if body.startswith("~"):
            body = home.rstrip("/") + body[1:]
        tail = "(?:/.*)?$" if is_dir else "$"
        if body.startswith("/"):
            rx = "^" + _glob_to_regex(body) + tail
        else:
            rx = _COMPONENT + _glob_to_regex(body) + tail
        compiled.append((pattern, re.compile(rx, re.IGNORECASE)))
    return compiled


class _AnyOf:
    """Whether any of the compiled patterns matches a path, in one or two searches. The patterns
    are anchored at the start (an absolute pattern) or at a component (``(?:^|/)...``): the second
    kind become one ``/(?:a|b|...)`` searched in ``"/" + path``, which the regex engine only tries
    where a ``/`` is, instead of every pattern trying every position."""

    __slots__ = ("_anchored", "_components")

    def __init__(self, patterns: list[tuple[str, re.Pattern[str]]]) -> None:
        anchored, components = [], []
        for _, rx in patterns:
            if rx.pattern.startswith(_COMPONENT):
                components.append(f"(?:{rx.pattern[len(_COMPONENT):]})")
            else:
                anchored.append(f"(?:{rx.pattern})")
        self._anchored = re.compile("|".join(anchored), re.IGNORECASE) if anchored else None
        self._components = re.compile("/(?:" + "|".join(components) + ")", re.IGNORECASE) if components else None

    def search(self, path: str) -> bool:
        return bool((self._components is not None and self._components.search("/" + path))
                    or (self._anchored is not None and self._anchored.search(path)))


_COMPONENT = "(?:^|/)"


def _any_of(patterns: list[tuple[str, re.Pattern[str]]]) -> _AnyOf | None:
    return _AnyOf(patterns) if patterns else None


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


class Resolver:
    """``os.path.realpath`` for one decision, remembered per directory: a path costs one ``lstat`` of
    its last component once its directory is known, not one per component (a line of a thousand
    files in a hundred directories costs ~1,100 ``lstat`` calls, not ~5,000). Made afresh for every
    decision: a symlink created after one decision is seen by the next (a serving process lives
    for many)."""

    __slots__ = ("dirs", "on_step")

    def __init__(self, on_step: Callable[[], None] | None = None) -> None:
        self.dirs: dict[str, str] = {"/": "/"}
        #: called before each component is looked at on disk (the policy counts it against its budget)
        self.on_step = on_step

    def real(self, path: str) -> str:
        """Where ``path`` resolves to, as ``os.path.realpath`` says."""
        parent, base = os.path.split(path)
        if not parent.startswith("/") or not base or base in (".", "..") or "/." in parent or "//" in path:
            return _realpath(path)  # relative or not normalised: the library's own walk
        try:
            return self._step(self.real_dir(parent), base)
        except (OSError, ValueError):
            return path

    def real_dir(self, directory: str) -> str:
        """:meth:`real` of a normalised absolute directory: from its nearest known ancestor down."""
        got = self.dirs.get(directory)
        if got is not None:
            return got
        if len(self.dirs) > 4096:
            self.dirs = {"/": "/"}
        todo = []
        while directory not in self.dirs:
            todo.append(directory)
            directory = os.path.dirname(directory)
        got = self.dirs[directory]
        for known in reversed(todo):
            got = self.dirs[known] = self._step(got, os.path.basename(known))
        return got

    def _step(self, real_parent: str, base: str) -> str:
        if self.on_step is not None:
            self.on_step()
        got = os.path.join(real_parent, base)
        return os.path.realpath(got) if os.path.islink(got) else got


class PathRules:
    """Protected patterns and their exceptions."""

    def __init__(self, protect: list[str], allow: list[str], home: str,
                 on_lookup: Callable[[], None] | None = None) -> None:
        self.protect = compile_patterns(protect, home)
        self.allow = compile_patterns(allow, home)
        # one search per path for "any of them" (dozens of patterns, each a scan of the path):
        # which one matched is only asked when one did
        self._protect_any = _any_of(self.protect)
        self._allow_any = _any_of(self.allow)
        self._memo: dict[str, str | None] = {}
        #: called before each path is resolved and matched (the policy counts it against its work budget)
        self.on_lookup = on_lookup
        self.resolver = Resolver()

    def fresh(self, resolver: Resolver) -> None:
        """Forget what was matched: a new decision, where the file system may have changed."""
        self._memo = {}
        self.resolver = resolver

    def match(self, path: str) -> str | None:
        """The protecting pattern, or None when the path is free (or an allowed exception)."""
        try:
            return self._memo[path]
        except KeyError:
            if self.on_lookup is not None:
                self.on_lookup()
            if len(self._memo) > 4096:
                self._memo.clear()
            got = self._memo[path] = self._match(path)
            return got

    def _match(self, path: str) -> str | None:
        candidates = [path]
        real = self.resolver.real(path) if path.startswith("/") else _realpath(path)
        if real != path:
            candidates.append(real)
        for cand in candidates:
            if self._allow_any is not None and self._allow_any.search(cand):
                continue
            if self._protect_any is not None and self._protect_any.search(cand):
                for pattern, rx in self.protect:
                    if rx.search(cand):
                        return pattern
        return None

    def allowed(self, path: str) -> bool:
        """Whether ``path`` is one of the exceptions (a template such as ``.env.example``)."""
        return self._allow_any is not None and self._allow_any.search(path)

    def match_glob(self, path: str) -> str | None:
        return _match_glob(self, path)


#: secret file names a glob such as ``.e*`` or ``id_*`` could expand to
_SECRET_SAMPLES = (".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".netrc",
                   ".npmrc", ".pypirc", ".git-credentials", "credentials", "credentials.json", ".htpasswd",
                   "server.key", "server.pem")


def _match_glob(rules: PathRules, path: str) -> str | None:
    """The protecting pattern of a secret file the glob ``path`` could name (``cat .en?``), or None.
    A glob starting with a wildcard (``*``, ``*.txt``) is not judged: it matches no dot file."""
    directory, _, base = path.rpartition("/")
    if base and not any(ch in base for ch in "*?[") and any(ch in directory for ch in "*?["):
        # ~/.mozilla/firefox/*.default/logins.json: the name is given, only the directory is a glob
        return rules.match(path)
    if not base or base[0] in "*?[" or any(ch in directory for ch in "*?["):
        return None
    for sample in _SECRET_SAMPLES:
        if fnmatch.fnmatchcase(sample, base):
            pattern = rules.match(f"{directory}/{sample}")
            if pattern:
                return pattern
    return None


#: a command substitution whose output is not known, as a word holds it (the parser's placeholder
#: for its body, or ``$(...)``): an unknown value, like a variable not set in the line
UNKNOWN_OUTPUT = re.compile(r"\$\((?:__ahsub\d+__|\.\.\.)\)")
_UNKNOWN_DIRECTORY = re.compile(r"(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|" + UNKNOWN_OUTPUT.pattern + r")/+\*?")


def broadness(word: str, cwd: str, home: str) -> str | None:
    """Why deleting ``word`` recursively would be broad, or None.

    Returns ``"root"`` for /, the home directory, a top-level directory, an ancestor of home
    or a glob over one of them; ``"project"`` for the working directory, its ancestors or a glob
    over them; ``"variable"`` for ``$X/`` or ``$X/*`` with X unknown, or ``$(cmd)/`` with what cmd
    prints unknown (empty, it means /).
    """
    if word.startswith("~") and not word.startswith("~/") and word != "~":
        # another account's home (``~bob``, ``~bob/``, ``~bob/*``) is broad whoever runs this
        user, _, rest = word[1:].partition("/")
        if user and not rest.strip("/*"):
            return "root"
    path = expand(word, cwd, home)
    if path is None:
        return "variable" if _UNKNOWN_DIRECTORY.fullmatch(word) else None
    # a glob: judge by the directory it expands in; a last part with a name in it (`*.egg-info`,
    # `build-*`) names some entries of that directory, not all of them
    parts = path.split("/")
    for idx, part in enumerate(parts):
        if any(ch in part for ch in "*?["):
            if idx == len(parts) - 1 and not _GLOB_ONLY.match(part):
                return None
            path = "/".join(parts[:idx]) or "/"
            break
    home_n = normalize(home, "/")
    if path == "/" or path == home_n or home_n.startswith(path + "/"):
        return "root"
    cwd_r = normalize(cwd, "/")
    at_cwd = path == cwd_r or cwd_r.startswith(path + "/")
    if not at_cwd:
        if is_temporary(path) and path.count("/") > 1 + path.startswith("/private/") + path.startswith("/var/"):
            return None  # scratch below /tmp
        if is_relative(word) and path.startswith(cwd_r.rstrip("/") + "/"):
            # below the working directory: not broad, unless it names a system directory from /
            below = path[len(cwd_r.rstrip("/")) + 1:]
            if not (cwd_r == "/" and below.split("/")[0] in _SYSTEM_TOP and "/" not in below.strip("/")):
                return None
    if path.count("/") <= 1:
        return "root"
    if os.path.dirname(path) in ("/home", "/Users", os.path.dirname(home_n)):
        return "root"  # some account's home directory
    if at_cwd:
        return "project"
    return None
