"""Python code read with :mod:`ast`: what a ``python -c`` one-liner or a heredoc script does.

Calls are recognised by what they name after imports are resolved (``from shutil import rmtree
as r; r(p)`` is ``shutil.rmtree``), and their arguments are evaluated where that needs no running:
literals, f-strings and ``+`` of known parts, names assigned earlier, ``os.path.expanduser``,
``Path.home()``, ``os.environ['HOME']``, ``os.path.join``, ``Path(a) / b``. Each call becomes the
equivalent command (``shutil.rmtree(home)`` -> ``rm -rf ~``) for the shell rules to judge, or, when
what it runs or deletes is computed at run time (``getattr(__import__('shutil'), 'rm'+'tree')``,
``exec(b64decode(...))``), an item of unknown code that the dynamic-exec rule decides.

Returns None when the text is not Python 3, or longer than AST_LIMIT (the caller then falls back
to its linear regexes).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .indirect import Derived

#: code longer than this is left to the caller's linear regexes: parsing costs about half a
#: millisecond per KB, and a decision has a budget of milliseconds
AST_LIMIT = 4096
#: nodes looked at per piece of code (past it the code is left to the regexes too)
MAX_NODES = 4000
_SHELL = frozenset({"os.system", "os.popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
                    "subprocess.check_output", "subprocess.Popen", "subprocess.getoutput",
                    "subprocess.getstatusoutput", "pty.spawn", "commands.getoutput", "os.execv", "os.execvp",
                    "os.execl", "os.execlp", "os.execve", "os.execvpe", "os.spawnv", "os.spawnvp", "os.posix_spawn",
                    "os.posix_spawnp", "asyncio.create_subprocess_shell", "asyncio.create_subprocess_exec"})
_DELETE_TREE = frozenset({"shutil.rmtree", "distutils.dir_util.remove_tree"})
_DELETE = frozenset({"os.remove", "os.unlink", "pathlib.Path.unlink"})
#: these remove empty directories only (judged as rmdir: nothing below them changes)
_RMDIR = frozenset({"os.rmdir", "os.removedirs", "pathlib.Path.rmdir"})
#: ``os.symlink(src, dst)``, ``os.link(src, dst)`` (and ``Path(dst).symlink_to(src)``, ``.hardlink_to``)
_LINK = frozenset({"os.symlink", "os.link"})
_MOVE = frozenset({"shutil.move", "os.rename", "os.replace", "os.renames"})
_COPY = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree"})
_SEND = frozenset({"urllib.request.urlopen", "urllib.request.Request", "requests.post", "requests.put",
                   "requests.get", "requests.request", "requests.patch", "httpx.post", "httpx.put", "httpx.get",
                   "httpx.request", "http.client.HTTPConnection", "http.client.HTTPSConnection",
                   "socket.create_connection", "smtplib.SMTP", "ftplib.FTP"})
def _every_file_root(pattern: str) -> str | None:
    """The directory a glob lists every file of (``~/*``, ``src/**/*`` -> ``~``, ``src``); None
    for a pattern that picks some (``*.pyc``: a glob with a suffix is not ``*``)."""
    head, _, last = pattern.rstrip("/").rpartition("/")
    if last not in ("*", "**", ".*", "*.*"):
        return None
    while head.endswith("/**") or head == "**":
        head = head[:-3].rstrip("/") if head != "**" else ""
    if any(ch in head for ch in "*?["):
        return None
    return head or "."


#: calls that list the files under their first argument, and Path methods that do
_LISTERS = frozenset({"os.walk", "os.listdir", "os.scandir", "glob.glob", "glob.iglob", "os.fwalk"})
_PATH_LISTERS = frozenset({"rglob", "glob", "iterdir", "walk"})
_PATH_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes", "unlink", "rmdir", "touch",
                           "symlink_to", "hardlink_to", "chmod", "lchmod"})
#: permission and ownership changes: ``os.chmod(path, mode)`` is ``chmod MODE path``
_MODE = {"os.chmod": "chmod", "os.lchmod": "chmod", "os.chown": "chown", "os.lchown": "chown",
         "shutil.chown": "chown", "pathlib.Path.chmod": "chmod", "pathlib.Path.lchmod": "chmod"}
_EVAL = frozenset({"exec", "eval", "compile", "builtins.exec", "builtins.eval"})
_IMPORTERS = frozenset({"__import__", "importlib.import_module", "builtins.__import__"})


class _Unknown(Exception):
    pass


class _TooLarge(Exception):
    pass


class _Reader:
    def __init__(self, via: str) -> None:
        self.via = via
        self.names: dict[str, str] = {}  # local name -> dotted name it stands for
        self.values: dict[str, object] = {}  # local name -> known value (str or list of str)
        self.out: list[Derived] = []
        self.walked: list[str] = []  # roots whose files the code lists (os.walk, glob, rglob ...)

    # -- names -------------------------------------------------------------------------------

    def dotted(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            got = self.names.get(node.id, node.id)
            return "pathlib.Path" if got == "Path" else got
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):  # Path(x).unlink(), __import__('os'), getattr(shutil, 'rmtree')
            base = self.dotted(node.func)
            if base in ("pathlib.Path", "Path", "pathlib.PurePath"):
                return "pathlib.Path"
            if base in _IMPORTERS and node.args:
                module = self.known(node.args[0])
                return module if isinstance(module, str) else None
            if base == "getattr" and len(node.args) >= 2:
                owner, attr = self.dotted(node.args[0]), self.known(node.args[1])
                return f"{owner}.{attr}" if owner and isinstance(attr, str) else None
        return None

    # -- values ------------------------------------------------------------------------------

    def value(self, node: ast.AST) -> object:
        """A str or list of str the expression is known to be; _Unknown when it is computed."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            v = node.value
            return v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        if isinstance(node, ast.JoinedStr):
            return "".join(str(self.value(v.value if isinstance(v, ast.FormattedValue) else v)) for v in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(left, list) and isinstance(right, list):
                return left + right
            raise _Unknown
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # Path(a) / "b"
            return f"{str(self.value(node.left)).rstrip('/')}/{self.value(node.right)}"
        if isinstance(node, (ast.List, ast.Tuple)):
            return [str(self.value(e)) for e in node.elts]
        if isinstance(node, ast.Name):
            if node.id in self.values:
                return self.values[node.id]
            raise _Unknown
        if isinstance(node, ast.Subscript):
            if self.dotted(node.value) == "os.environ":
                key = self.value(node.slice)
                return f"${{{key}}}"
            raise _Unknown
        if isinstance(node, ast.Call):
            name = self.dotted(node.func) or ""
            args = node.args
            if name in ("os.path.expanduser", "os.path.abspath", "os.path.realpath", "os.path.normpath", "str",
                        "os.fspath", "pathlib.Path", "Path", "os.path.expandvars", "pathlib.Path.resolve",
                        "pathlib.Path.expanduser") and len(args) == 1:
                return self.value(args[0])
            if name in ("pathlib.Path.home", "os.path.expanduser") and not args:
                return "~"
            if name == "pathlib.Path.expanduser" or name == "pathlib.Path.resolve":
                return self.value(node.func.value) if isinstance(node.func, ast.Attribute) else "~"
            if name == "os.path.join" and args:
                return "/".join(str(self.value(a)).rstrip("/") for a in args)
            if name in ("os.getenv", "os.environ.get") and args:
                return f"${{{self.value(args[0])}}}"
            if name in ("os.getcwd", "pathlib.Path.cwd"):
                return "."
            if name == "os.path.dirname" and len(args) == 1:
                return str(self.value(args[0])).rstrip("/").rsplit("/", 1)[0] or "/"
        raise _Unknown

    def known(self, node: ast.AST | None) -> object | None:
        if node is None:
            return None
        try:
            return self.value(node)
        except (_Unknown, RecursionError, TypeError, ValueError):
            return None

    # -- walking -----------------------------------------------------------------------------

    def walk(self, tree: ast.AST) -> None:

        for count, node in enumerate(ast.walk(tree), start=1):
            if count > MAX_NODES:
                raise _TooLarge
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.names[(a.asname or a.name).split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.names[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Call):
                self._note_walk(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = self.known(node.value)
                if v is not None:
                    self.values[node.targets[0].id] = v
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self.call(node)

    def _note_walk(self, node: ast.Call) -> None:
        """``os.walk(root)``, ``glob.glob(root + '/**')``, ``Path(root).rglob('*')``: remember ``root``."""
        func = node.func
        name = self.dotted(func) or ""
        root: object | None = None
        if name in _LISTERS and node.args:
            root = self.known(node.args[0])
            if isinstance(root, str) and name.startswith("glob."):
                root = _every_file_root(root)
        elif isinstance(func, ast.Attribute) and func.attr in _PATH_LISTERS:
            pattern = self.known(node.args[0]) if node.args else "*"
            root = self.known(func.value) if isinstance(pattern, str) and _every_file_root(pattern) else None
        if isinstance(root, str) and len(self.walked) < 8:
            self.walked.append(root)

    def call(self, node: ast.Call) -> None:
        from .indirect import Derived

        via = self.via
        func = node.func
        name = self.dotted(func) or ""
        if isinstance(func, ast.Attribute) and func.attr in _PATH_METHODS and (not name or (
                isinstance(func.value, ast.Name) and func.value.id in self.values)):
            # (Path.home() / '.ssh' / 'id_rsa').read_text(); p = Path(x); p.unlink(): a str has no such method
            name = f"pathlib.Path.{func.attr}"
        first = node.args[0] if node.args else None
        if name == "getattr" and len(node.args) >= 2 and self.known(node.args[1]) is None:
            self.out.append(Derived("dynamic", text=f"{via} calls a function whose name is computed (getattr)",
                                    via=via))
            return
        if name in _IMPORTERS and (first is None or self.known(first) is None):
            self.out.append(Derived("dynamic", text=f"{via} imports a module whose name is computed", via=via))
            return
        if not name and isinstance(func, ast.Call) and (self.dotted(func.func) or "") in ("getattr", *_IMPORTERS):
            return  # getattr(x, y)(...) whose name is hidden: judged where getattr is called
        if name in _EVAL:
            code = self.known(first)
            if isinstance(code, str):
                nested = python_calls(code, via, depth=1)
                self.out.extend(nested or [])
            else:
                self.out.append(Derived("dynamic", text=f"{via} evaluates code built at run time ({name}(...))",
                                        via=via))
            return
        if name in _SHELL:
            cmd = self.known(first)
            if name.startswith(("os.exec", "os.spawn", "os.posix_spawn")) and len(node.args) > 1:
                rest = self.known(node.args[1]) if name[-1] in "ve" or "spawn" in name else self.known(
                    ast.List(elts=list(node.args[1:]), ctx=ast.Load()))
                cmd = rest if isinstance(rest, list) else cmd
            if isinstance(cmd, str):
                self.out.append(Derived("shell", text=cmd, via=via))
            elif isinstance(cmd, list):
                self.out.append(Derived("argv", argv=tuple(cmd), via=via))
            else:
                self.out.append(Derived("dynamic", text=f"{via} runs a command built at run time ({name}(...))",
                                        via=via))
            return
        target = self._path_arg(node, func)
        if target is None and self.walked and (name in _DELETE or name.endswith((".unlink", ".write_text", ".write_bytes"))
                                               or (name in ("open", "builtins.open", "io.open") and any(
                c in str(self.known(node.args[1]) if len(node.args) > 1 else "") for c in "wa"))):
            # a delete or truncation of each file a walk listed: every file under the walk's root
            for root in self.walked:
                self.out.append(Derived("argv", argv=("rm", "-rf", root), via=f"{via} (each file under {root})"))
            return
        if name in _DELETE_TREE:
            if isinstance(target, str):
                self.out.append(Derived("argv", argv=("rm", "-rf", target), via=via))
            else:
                self.out.append(Derived("dynamic", text=f"{via} deletes recursively a path computed at run time",
                                        via=via))
        elif name in _RMDIR or (name.endswith(".rmdir") and name.startswith("pathlib.Path")):
            if isinstance(target, str):
                self.out.append(Derived("argv", argv=("rmdir", target), via=via))
        elif name in _DELETE or (name.endswith(".unlink") and name.startswith("pathlib.Path")):
            if isinstance(target, str):
                self.out.append(Derived("argv", argv=("rm", target), via=via))
        elif name in _LINK or (name.startswith("pathlib.Path") and name.endswith((".symlink_to", ".hardlink_to"))):
            src = self.known(first)
            dst = (self.known(node.args[1]) if len(node.args) > 1 else None) if name in _LINK else target
            if isinstance(src, str) and isinstance(dst, str):
                soft = name == "os.symlink" or name.endswith(".symlink_to")
                self.out.append(Derived("argv", argv=("ln", *(("-s",) if soft else ()), src, dst), via=via))
        elif name in _MOVE or name in _COPY:
            src, dst = self.known(first), self.known(node.args[1]) if len(node.args) > 1 else None
            if isinstance(src, str) and isinstance(dst, str):
                prog = ("mv",) if name in _MOVE else ("cp", "-r") if name.endswith("tree") else ("cp",)
                self.out.append(Derived("argv", argv=(*prog, src, dst), via=via))
        elif name in _MODE:
            if isinstance(target, str):
                k = 0 if name.startswith("pathlib") else 1  # Path(p).chmod(mode), os.chmod(p, mode)
                given = node.args[k] if len(node.args) > k else None
                value = given.value if isinstance(given, ast.Constant) else None
                word = format(value, "o") if isinstance(value, int) and name.endswith("chmod") else "0"
                self.out.append(Derived("argv", argv=(_MODE[name], word, target), via=via))
        elif name in ("open", "builtins.open", "io.open", "os.open"):
            mode = self.known(node.args[1]) if len(node.args) > 1 else next(
                (self.known(k.value) for k in node.keywords if k.arg == "mode"), "r")
            if isinstance(target, str):
                writes = isinstance(mode, str) and any(c in mode for c in "wax+")
                self.out.append(Derived("argv", argv=("tee" if writes else "cat", target), via=via))
        elif name.startswith("pathlib.Path.") and name.rsplit(".", 1)[1] in ("write_text", "write_bytes",
                                                                             "read_text", "read_bytes", "touch"):
            if isinstance(target, str):
                writes = not name.endswith(("read_text", "read_bytes"))
                self.out.append(Derived("argv", argv=("tee" if writes else "cat", target), via=via))
        elif name in _SEND:
            url = self.known(first)
            url_word = url if isinstance(url, str) and "://" in url else "https://unknown.invalid"
            if self._mentions_environment(node):
                self.out.append(Derived("shell", text=f"env | curl -d @- {url_word}", via=via))
            elif isinstance(url, str) and "://" in url:
                self.out.append(Derived("argv", argv=("curl", url), via=via))

    def _path_arg(self, node: ast.Call, func: ast.AST) -> object | None:
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.BinOp):
            return self.known(func.value)
        # Path('x').unlink(): the path is the object the method is called on
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and \
                self.dotted(func.value.func) in ("pathlib.Path", "Path"):
            inner = func.value
            return self.known(inner.args[0]) if inner.args else "."
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.values:
            return self.values[func.value.id]
        return self.known(node.args[0]) if node.args else None

    def _mentions_environment(self, node: ast.Call) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Attribute, ast.Name)) and self.dotted(sub) in ("os.environ", "os.environb"):
                return True
            if isinstance(sub, ast.Call) and self.dotted(sub.func) in ("open", "builtins.open"):
                return True  # a file's content sent: the read rule judges which file (cat above)
        return False


def python_calls(code: str, via: str, depth: int = 0) -> list[Derived] | None:
    """What ``code`` runs, deletes, writes, reads and sends; None when it is not Python 3."""
    if depth > 4:
        return []
    if len(code) > AST_LIMIT:
        return None
    got = _read(code, via, depth)
    return None if got is None else list(got)


@functools.lru_cache(maxsize=256)
def _read(code: str, via: str, depth: int) -> tuple[Derived, ...] | None:
    # a command line repeats its one-liners (python3 -c '...' in a loop body, a; a; a): each is parsed
    # once; Derived is frozen, so the same items can be handed out again
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    reader = _Reader(via)
    try:
        reader.walk(tree)
    except (RecursionError, _TooLarge):
        return None
    return tuple(reader.out)


def derived(code: str, via: str) -> Iterator[Derived]:
    got = python_calls(code, via)
    if got:
        yield from got
