"""The shell rules: each looks at one :class:`~agent_hooks_guard.shell.Command` and says what is wrong."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from .paths import broadness, expand
from .shell import MAX_DEPTH, PRIVILEGED, TOO_DEEP, Command, reads_stdin_as_script

if TYPE_CHECKING:
    from .policy import Policy


class Finding(NamedTuple):
    rule: str
    reason: str


DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "httpie", "lwp-request",
                         "GET", "invoke-webrequest", "iwr"})
_SAFE_DEVICES = re.compile(r"^/dev/(null|zero|stdout|stderr|stdin|tty|u?random|full|fd/\d+|pts/\d+|shm/.*)$")
_WRITE_REDIRECTS = (">", ">>", ">|", "&>", "&>>")
_DISPLAY = frozenset({"cat", "less", "more", "head", "tail", "bat", "batcat", "nl", "tac", "xxd", "od",
                      "hexdump", "strings", "base64", "grep", "egrep", "fgrep", "rg", "awk", "sed", "sort",
                      "uniq", "cut", "diff", "vim", "vi", "nano", "view", "jq", "yq", "cp", "scp", "rsync"})
_FIND_FILTERS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
                           "-iregex", "-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
                           "-size", "-empty", "-user", "-group", "-perm", "-inum", "-samefile", "-links"})
_PERL_FORK = re.compile(r"\bfork\s+while\s+fork\b")
_BLANKS = re.compile(r"\s+")
_NAME_TAIL = re.compile(r"[^\s(){}|&;]{1,64}$")
_FUNCTION_KW = re.compile(r"\bfunction\s+([^\s(){}|&;]{1,64})\s*(?:\(\s*\)\s*)?\{")


def _calls_itself_twice(body: str, name: str) -> bool:
    """``name|name`` or ``name&name`` in a function body (blanks already removed)."""
    return f"{name}|{name}" in body or f"{name}&{name}" in body


def fork_bomb(text: str) -> Finding | None:
    """A function that pipes or backgrounds itself into itself: ``:(){ :|:& };:``, ``function f { f|f& }``.

    Found by plain string search from each ``(){`` / ``function`` (the body ends at the next
    ``}``), never by a back-referencing regex, so the cost is linear in the text whatever it holds.
    """
    squashed = _BLANKS.sub("", text) if "(" in text or "function" in text else ""
    pos = squashed.find("(){")
    while pos >= 0:
        m = _NAME_TAIL.search(squashed, max(0, pos - 64), pos)
        close = squashed.find("}", pos + 3)
        body = squashed[pos + 3:close if close >= 0 else pos + 3 + 4096]
        if m and _calls_itself_twice(body, m.group()):
            return Finding("fork-bomb", "fork bomb")
        pos = squashed.find("(){", pos + 3)
    if "function" in text:
        for m in _FUNCTION_KW.finditer(text):
            close = text.find("}", m.end())
            body = _BLANKS.sub("", text[m.end():close if close >= 0 else m.end() + 4096])
            if _calls_itself_twice(body, m.group(1)):
                return Finding("fork-bomb", "fork bomb")
    if "fork" in text and _PERL_FORK.search(text):
        return Finding("fork-bomb", "fork bomb")
    return None


def _flags_and_operands(args: list[str]) -> tuple[list[str], list[str]]:
    flags: list[str] = []
    operands: list[str] = []
    it = iter(args)
    for a in it:
        if a == "--":
            operands.extend(it)
            break
        (flags if a.startswith("-") and len(a) > 1 else operands).append(a)
    return flags, operands


def _short(flags: list[str], *letters: str) -> bool:
    return any(not f.startswith("--") and any(ch in f[1:] for ch in letters) for f in flags)


def rm_broad(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name != "rm":
        return
    flags, targets = _flags_and_operands(cmd.args)
    if "--no-preserve-root" in flags:
        yield Finding("rm-broad", "rm --no-preserve-root")
    if not (_short(flags, "r", "R") or "--recursive" in flags):
        return
    for t in targets:
        level = broadness(t, pol.cwd, pol.home)
        if level == "variable":
            yield Finding("rm-broad", f"recursive delete of {t} (an empty variable makes it /)")
        elif level == "project":
            yield Finding("rm-broad", f"recursive delete of the project directory or above it ({t})")
        elif level:
            yield Finding("rm-broad", f"recursive delete of a broad path ({t})")


def find_delete(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name != "find":
        return
    args = cmd.args
    starts = []
    for a in args:
        if a.startswith(("-", "(", "!")):
            break
        starts.append(a)
    deleting = "-delete" in args or any(
        a in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(args) and args[i + 1].rsplit("/", 1)[-1]
        in ("rm", "shred") for i, a in enumerate(args))
    if not deleting:
        return
    filtered = any(a in _FIND_FILTERS for a in args)
    for s in starts or ["."]:
        level = broadness(s, pol.cwd, pol.home)
        if level in ("root", "variable") or (level == "project" and not filtered):
            yield Finding("find-delete", f"find deleting everything under {s}")


def sudo(cmd: Command, pol: Policy) -> Iterator[Finding]:
    used = [w for w in cmd.wrappers if w in PRIVILEGED] or ([cmd.name] if cmd.name in PRIVILEGED else [])
    if used:
        yield Finding("sudo", f"privilege escalation ({used[0]})")


def chmod_777(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name != "chmod":
        return
    flags, operands = _flags_and_operands(cmd.args)
    if not operands or any(f.startswith("--reference") for f in flags):
        return
    mode = operands[0]
    if re.fullmatch(r"[0-7]{3,4}", mode):
        if int(mode[-1]) & 2:
            yield Finding("chmod-777", f"chmod {mode} makes files world-writable")
        return
    for clause in mode.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*)", clause)
        if m and set(m.group(1)) & {"o", "a"} and m.group(2) in "+=" and "w" in m.group(3):
            yield Finding("chmod-777", f"chmod {mode} makes files world-writable")
            return


def _produces_script(cmd: Command) -> str | None:
    name, args = cmd.name, cmd.args
    if name in DOWNLOADERS:
        return name
    if name == "base64" and any(a in ("-d", "--decode", "-D") for a in args):
        return "base64 -d"
    if name == "xxd" and "-r" in args:
        return "xxd -r"
    if name == "openssl" and "-d" in args:
        return "openssl -d"
    return None


def pipe_to_shell(cmd: Command, pol: Policy) -> Iterator[Finding]:
    sources = list(cmd.script_from)
    if reads_stdin_as_script(cmd):
        sources += cmd.upstream()
    for src in sources:
        what = _produces_script(src)
        if what:
            yield Finding("pipe-to-shell", f"{what} output run by {cmd.name}")
            return


def mkfs(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name.startswith("mkfs") or cmd.name in ("mke2fs", "mkswap", "wipefs", "mkdosfs", "mkntfs"):
        yield Finding("mkfs", f"formats a filesystem ({cmd.name})")


def write_targets(cmd: Command) -> list[str]:
    """Paths a command writes, moves or deletes."""
    out = [t for op, t in cmd.redirects if op in _WRITE_REDIRECTS and t and not t.isdigit()]
    name, args = cmd.name, cmd.args
    flags, operands = _flags_and_operands(args)
    if name in ("rm", "unlink", "shred", "truncate", "tee", "rmdir"):
        out += operands
    elif name in ("cp", "install", "ln"):
        target = next((f.split("=", 1)[1] for f in flags if f.startswith("--target-directory=")), None)
        out += [target] if target else operands[-1:] if len(operands) > 1 else []
    elif name == "mv":
        out += operands
    elif name == "sed" and any(f == "-i" or f.startswith(("-i", "--in-place")) for f in flags):
        out += operands[1:] if not any(f in ("-e", "-f") for f in flags) else operands
    elif name == "dd":
        out += [a[3:] for a in args if a.startswith("of=")]
    elif name in ("chmod", "chown", "chgrp"):
        out += operands[1:]
    return out


def read_targets(cmd: Command) -> list[str]:
    out = [t for op, t in cmd.redirects if op == "<" and t]
    if cmd.name in _DISPLAY:
        _, operands = _flags_and_operands(cmd.args)
        out += operands
    elif cmd.name == "dd":
        out += [a[3:] for a in cmd.args if a.startswith("if=")]
    return out


def device_write(cmd: Command, pol: Policy) -> Iterator[Finding]:
    for t in write_targets(cmd):
        if t.startswith("/dev/") and not _SAFE_DEVICES.match(t):
            yield Finding("device-write", f"writes to the device {t}")
            return


def protected_write(cmd: Command, pol: Policy) -> Iterator[Finding]:
    for t in write_targets(cmd):
        path = expand(t, pol.cwd, pol.home)
        pattern = pol.write_paths.match(path) if path else None
        if pattern:
            yield Finding("protected-write", f"{t} is protected ({pattern})")
            return


def protected_read(cmd: Command, pol: Policy) -> Iterator[Finding]:
    for t in read_targets(cmd):
        path = expand(t, pol.cwd, pol.home)
        pattern = pol.read_paths.match(path) if path else None
        if pattern:
            yield Finding("protected-read", f"{t} holds secrets ({pattern})")
            return


_GIT_OPTS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                  "--config-env"})
_PUSH_OPTS_WITH_VALUE = frozenset({"--repo", "--receive-pack", "--exec", "-o", "--push-option",
                                   "--signed"})


def force_push(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name != "git":
        return
    args = cmd.args
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_OPTS_WITH_VALUE else 1
    if i >= len(args) or args[i] != "push":
        return
    rest = args[i + 1:]
    flags, positional = [], []
    j = 0
    while j < len(rest):
        a = rest[j]
        if a.startswith("-") and len(a) > 1:
            flags.append(a)
            j += 2 if a in _PUSH_OPTS_WITH_VALUE else 1
            continue
        positional.append(a)
        j += 1
    force = any(f in ("--force", "--mirror") or f.startswith("--force-with-lease") for f in flags) or _short(
        flags, "f")
    delete = "--delete" in flags or _short(flags, "d")
    refspecs = positional[1:]
    targets: list[tuple[str, str]] = []
    if ("--all" in flags or "--mirror" in flags) and force:
        targets = [(b, "force-push") for b in pol.protected_branches]
    for spec in refspecs:
        plus = spec.startswith("+")
        src, colon, dst = spec.lstrip("+").partition(":")
        branch = dst if colon else src
        if branch == "HEAD":
            branch = pol.current_branch() or "HEAD"
        branch = branch.removeprefix("refs/heads/")
        if delete or (colon and not src):
            targets.append((branch, "delete"))
        elif plus or force:
            targets.append((branch, "force-push"))
    if not refspecs and (force or delete):
        current = pol.current_branch()
        targets.append((current or "", "force-push" if force else "delete"))
    for branch, what in targets:
        if not branch:
            yield Finding("force-push", f"{what} of the current branch, which could not be determined")
            return
        if branch in pol.protected_branches:
            yield Finding("force-push", f"{what} to {branch}")
            return


def url(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name not in DOWNLOADERS:
        return
    for u in (w for w in cmd.args if "://" in w or w.lower().startswith(("www.", "file:"))):
        problem = pol.urls.check(u)
        if problem:
            yield Finding("url", problem)
            return


def nesting(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name == TOO_DEEP:
        yield Finding("nesting", f"commands nested more than {MAX_DEPTH} levels deep are not analysed")


def deny_commands(cmd: Command, pol: Policy) -> Iterator[Finding]:
    text = " ".join(cmd.argv)
    for pattern, rx in pol.deny_commands:
        if rx.search(text):
            yield Finding("deny-commands", f"matches deny_commands pattern {pattern!r}")
            return


RULES: dict[str, Callable[[Command, Policy], Iterator[Finding]]] = {
    "rm-broad": rm_broad,
    "find-delete": find_delete,
    "sudo": sudo,
    "chmod-777": chmod_777,
    "pipe-to-shell": pipe_to_shell,
    "mkfs": mkfs,
    "device-write": device_write,
    "force-push": force_push,
    "protected-write": protected_write,
    "protected-read": protected_read,
    "url": url,
    "nesting": nesting,
    "deny-commands": deny_commands,
}
