"""The shell rules: each looks at one :class:`~agent_hooks_guard.shell.Command` and says what is wrong."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from . import plane, work
from .effects import CHANGES, file_effects, placements, replaces_below
from .paths import UNKNOWN_OUTPUT, broadness, is_relative, is_temporary
from .shell import (
    DYNAMIC,
    INTERPRETERS,
    MAX_DEPTH,
    PRIVILEGED,
    SHELLS,
    TOO_DEEP,
    Command,
    reads_stdin_as_script,
    shell_script_flag,
)

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
#: readers whose first operand is a pattern or a program (unless an option gives it)
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "nawk", "sed", "jq",
                            "yq", "zgrep", "git-grep"})
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
    # a bomb needs a body in braces: without one, no pass over the text
    squashed = _BLANKS.sub("", text) if "{" in text and ("(" in text or "function" in text) else ""
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
    """A recursive delete or a move-away of a broad path, whatever does it (rm -rf, mv, rsync --delete,
    tar --remove-files, zip -m, find -delete, shutil.rmtree ...): judged on the effect."""
    if cmd.name == "rm" and "--no-preserve-root" in cmd.args:
        yield Finding("rm-broad", "rm --no-preserve-root")
    for e in file_effects(cmd):
        if not ((e.kind == "delete" and e.recursive) or e.kind == "move-away") or e.how == "find -delete":
            continue
        what = "recursive delete" if e.kind == "delete" else "moving away"
        by = "" if e.how == "rm" else f" by {e.how}"
        for cwd in pol.cwds(cmd):
            level = broadness(e.target, cwd, pol.home)
            if level == "variable":
                shown = UNKNOWN_OUTPUT.sub("$(...)", e.target)
                empty = "variable" if shown == e.target else "output"
                yield Finding("rm-broad", f"{what} of {shown}{by} (an empty {empty} makes it /)")
            elif level == "project":
                yield Finding("rm-broad", f"{what} of the project directory or above it ({e.target}){by}")
            elif level:
                yield Finding("rm-broad", f"{what} of a broad path ({e.target}){by}")
            else:
                continue
            break


def chmod_broad(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """A recursive permission or ownership change of /, the home directory or a top-level directory."""
    for e in file_effects(cmd):
        if e.kind in ("chmod", "chown") and e.recursive:
            for cwd in pol.cwds(cmd):
                if broadness(e.target, cwd, pol.home) in ("root", "variable"):
                    yield Finding("chmod-broad", f"recursive {e.how} of a broad path ({e.target})")
                    return


def control_plane(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """Writes to what decides agent-hooks' policy (settings, trust, hooks, its environment, the host
    configurations it installed), and runs of our own CLI that weaken it, in any spelling."""
    why = our_cli_weakening(cmd)
    if why:
        yield Finding("control-plane", f"runs agent-hooks with a command that weakens its policy "
                                       f"({' '.join(a for a in cmd.args[:3] if not a.startswith('-'))})")
        return
    why = (our_env_change(cmd) or nested_agent_change(cmd, pol) or installs_into_our_environment(cmd, pol)
           or find_reaching_the_plane(cmd, pol))
    if why:
        yield Finding("control-plane", why)
        return
    placed = placements(cmd)
    if not write_targets(cmd) and not placed:
        why = works_in_the_plane(cmd, pol)
        if why:
            yield Finding("control-plane", why)
        return
    # a recursive change reaches what is below its target too, and so does a link, a move or a
    # removal of a name (replaces_below); a broad target is rm-broad's to judge, and find -delete's
    # filters decide what it reaches (find_reaching_the_plane)
    changes = [(e.target, replaces_below(e, cmd) and e.how != "find -delete", e.how in _LANDS_INSIDE and not e.recursive)
               for e in [*file_effects(cmd), *placed] if e.kind in CHANGES]
    named = {c for c, _, _ in changes}
    changes += [(t, False, False) for t in write_targets(cmd) if t not in named]
    for t, recursive, onto in changes:
        for cwd in pol.cwds(cmd):
            deep = recursive and _may_reach_the_plane(t, cwd, pol) and not broadness(t, cwd, pol.home)
            if deep and onto and _stays_a_directory(t, cwd, pol):
                deep = False  # what lands in it is judged (placements)
            paths = pol.candidates(t, cwd)
            if cmd.name != "ln":  # making the link is no write to what it points at; writing through it is
                paths += pol.through_links(paths)
            for k, path in enumerate(paths):
                # a glob's first candidate is the directory it expands in: what is below it is not all hit
                hit = pol.covering(path, cwd, recursive=deep and (k > 0 or path == pol.expand(t, cwd)))
                if hit is not None:
                    verb = "holds" if hit.path.startswith(path.rstrip("/") + "/") else "is"
                    yield Finding("control-plane", f"{t} {verb} agent-hooks' control plane ({hit.kind}): "
                                                   f"changing it could switch the guard off")
                    return
    why = works_in_the_plane(cmd, pol)
    if why:
        yield Finding("control-plane", why)


#: a link or a move onto an existing directory lands inside it
_LANDS_INSIDE = frozenset({"ln", "mv"})


def _stays_a_directory(word: str, cwd: str, pol: Policy) -> bool:
    """``word`` is a real directory holding a protected path that exists: nothing can remove or
    replace it without removing that first (itself a change of the control plane), so a link or a
    move onto it lands inside it (``mv notes.md .claude/`` next to ``.claude/settings.json``)."""
    path = pol.expand(word, cwd)
    if path is None or any(ch in path for ch in "*?[") or os.path.islink(path.rstrip("/") or "/") \
            or not os.path.isdir(path):
        return False
    pol.work.spend(work.DIRECTORY)
    return any(os.path.lexists(p) for p, _, _ in plane.below(path, cwd))


_OUR_ENV = re.compile(r"^AGENT_HOOKS_[A-Za-z0-9_]*=")
_DECLARES = frozenset({"export", "declare", "typeset", "readonly", "local"})


def our_env_change(cmd: Command) -> str | None:
    """Setting or clearing an ``AGENT_HOOKS_*`` variable: it changes which settings and plugins the
    hooks of everything started from that shell load (a nested ``claude -p`` would run without the
    guard), whatever the command it prefixes."""
    raw = cmd.raw or cmd.argv
    words = list(raw[:max(len(raw) - len(cmd.argv), 0)])  # assignments and wrappers before the program
    if cmd.name in _DECLARES:
        words += cmd.args
    for w in words:
        if _OUR_ENV.match(w):
            return f"sets {w.split('=', 1)[0]}, which changes what agent-hooks loads for the commands it starts"
    cleared = [a for k, a in enumerate(raw) if a.startswith("AGENT_HOOKS_") and (
        cmd.name == "unset" or (k and raw[k - 1] in ("-u", "--unset")))]
    cleared += [a.split("=", 1)[1] for a in raw if a.startswith("--unset=AGENT_HOOKS_")]
    if cleared:
        return f"clears {cleared[0]}, which changes what agent-hooks loads for the commands it starts"
    if "env" in (cmd.wrappers or []) and any(a in ("-i", "--ignore-environment", "-") for a in raw) and any(
            k.startswith("AGENT_HOOKS_") for k in os.environ):
        return "starts a command without agent-hooks' environment (env -i), which changes what it loads"
    return None


_ASSIGNS = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")
#: what separates the words of a script (for naming the programs it may start, without parsing it)
_WORDS = re.compile(r"[\s;&|()<>`$'\"]+")


def nested_agent_change(cmd: Command, pol: Policy) -> str | None:
    """A nested agent (or our own CLI) started so that agent-hooks' hooks there are dropped or
    replaced: flags that leave out or replace the settings that hold them, variables that move
    where its configuration is read from or what code its processes load first, an emptied
    environment; and ``export`` of such a variable, which lasts for what the shell starts next."""
    raw = cmd.raw or cmd.argv
    if cmd.name in _DECLARES or not cmd.argv:
        # `export X=...`, `export X` after `X=...`, or a bare `X=...` (`set -a` exports it)
        for a in (cmd.args if cmd.argv else raw):
            name = a.split("=", 1)[0]
            if _ASSIGNS.match(name + "=") and plane.never_exported(name):
                return f"sets {name} for what the shell starts next, which moves where agent-hooks and " \
                       f"the agents started later read their configuration from"
        return None
    host = plane.agent_program(cmd.name)
    ours = cmd.name in ("agenthooks", "agent-hooks") or cmd.name.startswith("agent_hooks_core")
    if host is None and not ours:
        k = shell_script_flag(cmd.argv)
        if k is None or k >= len(cmd.argv):
            return None
        # `HOME=... bash -c 'claude -p ...'`: the variables reach every program the script starts
        words = dict.fromkeys(_WORDS.split(cmd.argv[k]))
        pol.work.spend(len(words))
        host = next((h for h in map(plane.agent_program, words) if h), None)
        if host is None:
            return None
    what = f"a nested {host}" if host else "agent-hooks"
    why = plane.nested_agent_weakening(cmd.name, cmd.args) if host else None
    if why:
        return f"starts {why}: agent-hooks' hooks would not run there"
    before = list(raw[:max(len(raw) - len(cmd.argv), 0)])  # assignments and wrappers before the program
    for w in before:
        m = _ASSIGNS.match(w)
        if m and plane.relocates_nested_agent(m.group(1)):
            return (f"starts {what} with {m.group(1)} changed, which can move or replace the hooks "
                    f"agent-hooks installed there")
        if "env" in (cmd.wrappers or []) and (w in ("-i", "--ignore-environment", "-", "-u", "--unset")
                                              or w.startswith("--unset=")):
            return f"starts {what} without part of its environment (env {w}), which can drop agent-hooks' hooks"
    return None


#: readers that write a file when given one of these options
_READER_OUTPUTS = {"sort": ("-o", "--output"), "base64": ("-o", "--output"), "shuf": ("-o", "--output"),
                   "yq": ("-i", "--inplace"), "diff": ("--output",)}
#: git subcommands that change nothing in the work tree
_GIT_READS = frozenset({"status", "diff", "log", "show", "blame", "ls-files", "ls-tree", "rev-parse", "grep",
                        "cat-file", "describe", "shortlog", "branch", "tag", "remote", "reflog", "help", "version"})
#: git options that take a value before the subcommand
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})
#: programs that change files and whose effects are modelled (their protected *sources* are read)
_MODELLED = frozenset({"cp", "mv", "rsync", "scp", "install", "ln", "tar", "zip", "unzip", "sed", "perl", "tee",
                       "dd", "sponge", "rm", "truncate", "shred", "mkdir", "touch", "find", "vim", "vi", "nvim",
                       "ex", "ed", "nano", "emacs"})


def _only_reads(cmd: Command) -> bool:
    name = cmd.name
    if name == "git":
        k, args = 0, cmd.args
        while k < len(args) and args[k].startswith("-"):
            k += 2 if args[k] in _GIT_VALUED else 1
        return k < len(args) and args[k] in _GIT_READS
    if name in ("awk", "gawk") and any(a in ("inplace", "-iinplace", "--inplace") for a in cmd.args):
        return False
    outputs = _READER_OUTPUTS.get(name)
    if outputs and any(a.startswith(outputs) for a in cmd.args):
        return False
    if name == "uniq" and len([a for a in cmd.args if not a.startswith("-")]) > 1:
        return False  # uniq IN OUT writes OUT
    return name in _READERS


_BWRAP_WRITABLE = frozenset({"--bind", "--bind-try", "--dev-bind", "--dev-bind-try"})
_BWRAP_PAIRS = frozenset({"--ro-bind", "--ro-bind-try", "--symlink", "--bind-data", "--ro-bind-data", "--file",
                          "--chmod", "--setenv", "--uid-map", "--gid-map"}) | _BWRAP_WRITABLE


def _bwrap_writable_sources(cmd: Command) -> list[str]:
    """What a ``bwrap`` command line makes writable: the sources of its read-write binds. Hiding a
    path (``--tmpfs``), binding it read-only or naming it as a mount point changes nothing on the
    host (agent-hooks-sandbox does exactly that); a read-write bind hands it, under another name,
    to the command inside, so that is what is judged (the command itself is judged on its own)."""
    out: list[str] = []
    args, k = cmd.args, 0
    while k < len(args) and args[k].startswith("--") and args[k] != "--":
        opt = args[k]
        if opt in _BWRAP_WRITABLE and k + 1 < len(args):
            out.append(args[k + 1])
        k += 3 if opt in _BWRAP_PAIRS else 1 if opt.startswith("--unshare") or opt.startswith("--die") \
            or opt in ("--new-session", "--as-pid-1", "--clearenv", "--share-net", "--disable-userns", "--assert-userns-disabled") else 2
    return out


def works_in_the_plane(cmd: Command, pol: Policy) -> str | None:
    """A program that may change files, run inside agent-hooks' control plane (``cd <dir> && git
    apply``, ``patch -p0``) or naming a protected path anywhere in its arguments, options' values
    included (``git -C <dir> checkout``, ``patch -d``, ``sort -o``, ``curl -o``, ``chattr``,
    ``setfacl``, ``cpio -D``), or writing to a path built by a substitution that can only be a
    protected one (``> "$(echo ~/.config/agent-hooks)/settings.toml"``). Programs that only read,
    and those whose writes are modelled precisely, are judged by what they write."""
    if _only_reads(cmd) or cmd.name in ("agenthooks", "agent-hooks") or cmd.name.startswith("agent_hooks_core"):
        return _hard_link_to_the_plane(cmd, pol) or _substituted_target(cmd, pol)
    why = _hard_link_to_the_plane(cmd, pol)
    if why:
        return why
    here = pol.cwd_of(cmd)
    if here != pol.cwd:
        hit = pol.covering(here, here)
        if hit is not None:
            return (f"runs {cmd.name} inside agent-hooks' control plane ({hit.kind}), where it can change "
                    f"what switches the guard off")
    if cmd.name not in _MODELLED or cmd.name in ("chmod", "chown", "chgrp"):
        for word in _bwrap_writable_sources(cmd) if cmd.name == "bwrap" else cmd.args:
            if "://" in word:
                continue
            for value in _path_pieces(word):
                for cwd in pol.cwds(cmd):
                    if not _may_reach_the_plane(value, cwd, pol):
                        continue
                    for path in pol.candidates(value, cwd):
                        hit = pol.covering(path, cwd)
                        if hit is not None:
                            return (f"{cmd.name} is given {value}, part of agent-hooks' control plane "
                                    f"({hit.kind}): it may change it and switch the guard off")
    return _substituted_target(cmd, pol)


def _hard_link_to_the_plane(cmd: Command, pol: Policy) -> str | None:
    """``ln``/``cp -l`` of a protected file: the link shares its contents, a write through it is a
    write to it (and the guard cannot know the link later)."""
    if cmd.name not in ("ln", "cp", "link") or not _hard_links(cmd):
        return None
    for source in [a for a in cmd.args if not a.startswith("-")][:-1]:
        for cwd in pol.cwds(cmd):
            for path in pol.candidates(source, cwd):
                hit = pol.covering(path, cwd)
                if hit is not None:
                    return (f"{cmd.name} makes a hard link to {source}, part of agent-hooks' control plane "
                            f"({hit.kind}): a write through the link changes it")
    return None


def _hard_links(cmd: Command) -> bool:
    flags = [a for a in cmd.args if a.startswith("-")]
    if cmd.name in ("ln", "link"):
        return not any(a in ("-s", "--symbolic") or (not a.startswith("--") and "s" in a) for a in flags)
    return any(a in ("-l", "--link") or (not a.startswith("--") and "l" in a[1:]) for a in flags)


_PIECES = re.compile(r"[:,=]")


def _path_pieces(word: str) -> list[str]:
    """The paths an argument may name: itself, an option's value (``--out=P``, ``-oP``), and the
    parts of a compound value (``-v P:/x``, ``type=bind,src=P``)."""
    if word.startswith("-"):
        if "=" in word:
            word = word.split("=", 1)[1]
        elif not word.startswith("--") and len(word) > 2 and word[2] in "/~.$":
            word = word[2:]
        else:
            return []
    out = [word] if word else []
    if _PIECES.search(word):
        out += [p for p in _PIECES.split(word) if p[:1] in ("/", "~", "$")]
    return out


def _may_reach_the_plane(word: str, cwd: str, pol: Policy) -> bool:
    """A cheap first look at an argument: False when ``word``, a path relative to ``cwd``, can name
    nothing of the control plane. Its first component must then be no ``..``, no symlink and no
    directory that holds a protected path (``.agent-hooks``, ``.claude``, …): one set look-up and
    at most one ``lstat`` instead of a protected-set look-up per argument of every command."""
    if word[:1] in ("/", "~", "$") or any(c in word for c in "*?[{`"):
        return True
    first = word.split("/", 1)[0]
    if first in ("..", ".", ""):
        return True
    heads = pol.plane_heads(cwd)
    if heads is None:
        return True  # an older core: no set to narrow by
    return first in heads or pol.is_link(os.path.join(cwd, first))


_SUBSTITUTION = re.compile(r"\$\([^()]*\)|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")


def _substituted_target(cmd: Command, pol: Policy) -> str | None:
    """A write target built by a substitution (``"$(echo X)/settings.toml"``): what it expands to is
    unknown, so it is matched as a pattern against the protected paths. Only the literal path after
    the substitution narrows it: ``$(pwd)/out.txt`` matches no protected path, ``$(...)/settings.toml``
    matches the settings files, ``$(...)/hooks/zz.py`` a file in a hooks directory."""
    import fnmatch

    for target in write_targets(cmd):
        if "$" not in target:
            continue
        pattern = _SUBSTITUTION.sub("*", target)
        tail = pattern.rsplit("*", 1)[-1]
        parts = [p for p in tail.split("/") if p]
        if "*" not in pattern or not tail.startswith("/") or not parts or any(c in tail for c in "?["):
            continue
        pol.work.spend(work.DIRECTORY)
        exact = plane.exact_paths(pol.cwd_of(cmd))
        for path in sorted(exact or ()):  # the same example every time
            if fnmatch.fnmatchcase(path, pattern) or (
                    len(parts) > 1 and os.path.basename(path) == parts[0]
                    and fnmatch.fnmatchcase(os.path.join(path, *parts[1:]), pattern)):
                return (f"writes to {target}, which can be agent-hooks' control plane ({path}): "
                        f"changing it could switch the guard off")
    return None


def activated_environment(cmd: Command, pol: Policy, cwd: str, venv: str | None) -> str | None:
    """The virtual environment a bare ``pip``/``python`` of ``cmd`` uses, from what the command line
    did before it (``venv``: in force so far): ``source <env>/bin/activate``, ``export
    VIRTUAL_ENV=<env>``, ``export PATH=<env>/bin:...``, ``deactivate``, or a ``VIRTUAL_ENV=``/``PATH=``
    prefix of ``cmd`` alone. Kept in ``cmd.memo["venv"]``; returns what is in force afterwards."""
    def from_assignment(word: str) -> str | None:
        name, _, value = word.partition("=")
        if name == "VIRTUAL_ENV" and value:
            return pol.expand(value, cwd)
        if name == "PATH" and value:
            first = pol.expand(value.split(":", 1)[0], cwd) or ""
            return os.path.dirname(first) if first.rstrip("/").endswith("/bin") else None
        return None

    if cmd.name in ("source", ".") and cmd.args and os.path.basename(cmd.args[0]).startswith("activate"):
        script = pol.expand(cmd.args[0], cwd)
        venv = os.path.dirname(os.path.dirname(script)) if script else venv
    elif cmd.name == "deactivate":
        venv = None
    elif cmd.name in _DECLARES:
        for a in cmd.args:
            venv = from_assignment(a) or venv
    raw = cmd.raw or cmd.argv
    here = venv
    for w in raw[:max(len(raw) - len(cmd.argv), 0)]:  # a prefix: for this command only
        here = from_assignment(w) or here
    if here:
        cmd.memo["venv"] = here
    return venv


#: package installers and the subcommands that change an environment
_PIP_CHANGES = frozenset({"install", "uninstall"})


def installs_into_our_environment(cmd: Command, pol: Policy) -> str | None:
    """``pip``/``python -m pip``/``uv pip`` installing into or uninstalling from the Python environment
    agent-hooks runs from (a new distribution there is a new plugin, a ``.pth`` runs at every start),
    its user site, or a target directory the control plane covers."""
    name, args = cmd.name, cmd.args
    raw = cmd.raw or cmd.argv
    program = raw[len(raw) - len(cmd.argv)] if cmd.argv and len(raw) >= len(cmd.argv) else name
    rest: list[str]
    if re.fullmatch(r"pip[0-9.]*", name):
        rest = args
    elif re.fullmatch(r"python[0-9.]*|pypy[0-9.]*", name) and "-m" in args[:3] and \
            args[args.index("-m") + 1:args.index("-m") + 2] == ["pip"]:
        rest = args[args.index("-m") + 2:]
    elif name == "uv" and args[:1] == ["pip"]:
        rest = args[1:]
        target_python = next((args[k + 1] for k, a in enumerate(args[:-1]) if a in ("--python", "-p")), None)
        if target_python is None:
            target_python = next((a.split("=", 1)[1] for a in args if a.startswith("--python=")), None)
        active = cmd.memo.get("venv") or os.environ.get("VIRTUAL_ENV")
        program = target_python or (os.path.join(active, "bin", "python") if active else "")
    else:
        return None
    if "/" not in program and cmd.memo.get("venv"):
        # a bare pip or python after the command line activated an environment: that one's
        program = os.path.join(cmd.memo["venv"], "bin", program)
    verb = next((a for a in rest if not a.startswith("-")), "")
    label = {"uv": "uv pip"}.get(name, name if name.startswith("pip") else f"{name} -m pip")
    if verb not in _PIP_CHANGES:
        return None
    for k, a in enumerate(rest):
        value = rest[k + 1] if a in ("-t", "--target", "--prefix", "--root") and k + 1 < len(rest) else (
            a.split("=", 1)[1] if a.startswith(("--target=", "--prefix=", "--root=")) else None)
        if value:
            for cwd in pol.cwds(cmd):
                for path in pol.candidates(value, cwd):
                    if pol.covering(path, cwd, recursive=True) is not None:
                        return f"{label} {verb} into {value}, part of agent-hooks' control plane (environment)"
    if "--user" in rest:
        import site

        if site.ENABLE_USER_SITE:  # our interpreter imports from the user site (no virtual environment)
            return f"{label} {verb} --user changes the user site agent-hooks loads from"
    if program and _is_our_environment(program):
        return f"{label} {verb} changes the Python environment agent-hooks runs from (its plugins)"
    return None


def _is_our_environment(program: str) -> bool:
    """Whether ``program``, named by its path, belongs to an environment whose ``site-packages`` this
    process imports from (ours, or a base one it shares). A bare ``pip`` is not looked up: the hook's
    PATH is not the agent shell's, and a project whose own environment holds agent-hooks installs
    into it as ordinary work."""
    import glob

    if "/" not in program:
        return False
    root = os.path.dirname(os.path.dirname(os.path.abspath(os.path.expanduser(program))))
    ours = {os.path.realpath(p) for p in sys.path if p}
    return any(os.path.realpath(sp) in ours
               for sp in glob.glob(os.path.join(glob.escape(root), "lib*", "python*", "site-packages")))


#: programs that only read what find hands them: anything else run by -exec may change it
_FIND_READERS = frozenset({"cat", "ls", "stat", "file", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg",
                           "md5sum", "sha1sum", "sha256sum", "sha512sum", "du", "echo", "printf", "test", "[",
                           "basename", "dirname", "realpath", "readlink", "jq", "less", "more", "od", "xxd",
                           "diff", "cmp", "awk", "true"})
_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir")
#: programs that only read the files they name (the protected paths among their arguments are read)
_READERS = _DISPLAY | _FIND_READERS | frozenset({
    "ls", "stat", "file", "tree", "du", "wc", "readlink", "realpath", "cmp", "diff3", "sdiff", "md5", "shasum",
    "b2sum", "cksum", "sum", "zcat", "zless", "bzcat", "xzcat", "lsattr", "getfacl", "namei", "test", "[", "[[",
    "echo", "printf", "cd", "pushd", "popd", "which", "type", "command", "true", "false", ":", "man"})
#: find tests that only narrow by name; any other test (or -o, !, a parenthesis) is taken to match
_FIND_NARROWING = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
_FIND_HARMLESS = frozenset({"-type", "-xtype", "-maxdepth", "-mindepth", "-print", "-print0", "-ls", "-depth", "-prune",
                            "-mount", "-xdev", "-follow", "-L", "-P", "-H", "-newer", "-mtime", "-mmin",
                            "-size", "-empty", "-user", "-group", "-perm", "-delete"})


def find_reaching_the_plane(cmd: Command, pol: Policy) -> str | None:
    """``find DIR ... -delete`` or ``-exec CMD`` that could reach a protected path below DIR: its name
    tests are matched against the protected paths that exist there (a tree counts as matched:
    what is inside it is not listed), any other test is taken to match."""
    if cmd.name != "find":
        return None
    args = cmd.args
    changing = "-delete" in args or any(
        a in _FIND_ACTIONS and k + 1 < len(args) and args[k + 1].rsplit("/", 1)[-1] not in _FIND_READERS
        for k, a in enumerate(args))
    if not changing:
        return None
    starts = []
    for a in args:
        if a.startswith(("-", "(", "!")):
            break
        starts.append(a)
    tests = _find_name_tests(args[len(starts):])
    if tests and any(op in ("-name", "-iname") and (pat.endswith((".pyc", ".pyo")) or pat == "__pycache__")
                     for op, pat in tests):
        return None  # bytecode is derived: Python writes it again from the sources, nothing else changes

    deepest = _find_maxdepth(args[len(starts):])
    executes = any(a in _FIND_ACTIONS and k + 1 < len(args) and args[k + 1].rsplit("/", 1)[-1] not in _FIND_READERS
                   for k, a in enumerate(args))
    for s in starts or ["."]:
        for cwd in pol.cwds(cmd):
            for start in pol.candidates(s, cwd):
                hit = pol.covering(start, cwd)
                if hit is not None:
                    return f"find {s} changes agent-hooks' control plane ({hit.kind})"

                def within(path: str, start: str = start) -> bool:
                    # -maxdepth N: find never looks deeper than N levels below its start
                    return deepest is None or os.path.relpath(path, start).count(os.sep) + 1 <= deepest

                pol.work.spend(work.DIRECTORY)
                for item_path, tree, kind in plane.below(start, cwd):
                    if not os.path.lexists(item_path) or not within(item_path):
                        continue
                    reached = _find_matches(item_path, tests) if not tree else any(
                        within(p) and _find_matches(p, tests) for p in _tree_paths(item_path))
                    if not reached and executes:
                        # -exec rm -rf {} / mv {} on a directory that holds it takes it along
                        reached = any(within(p) and _find_matches(p, tests) for p in _between(start, item_path))
                    if reached:
                        return (f"find {s} can reach agent-hooks' control plane ({kind}): "
                                f"changing it could switch the guard off")
    return None


def _between(start: str, path: str) -> list[str]:
    """The directories strictly between ``start`` and ``path`` (both absolute, path below start)."""
    rel = os.path.relpath(path, start)
    if rel.startswith(".."):
        return []
    parts = rel.split(os.sep)[:-1]
    return [os.path.join(start, *parts[:k]) for k in range(1, len(parts) + 1)]


def _find_maxdepth(expression: list[str]) -> int | None:
    """The smallest ``-maxdepth N`` of a find expression (None without one)."""
    import itertools

    depths = [int(v) for k, v in itertools.pairwise(expression) if k == "-maxdepth" and v.isdigit()]
    return min(depths) if depths else None


def _find_matches(path: str, tests: list[tuple[str, str]] | None) -> bool:
    import fnmatch

    if tests is None:
        return True
    base = os.path.basename(path)
    return all(fnmatch.fnmatchcase(base, pat) if op == "-name" else
               fnmatch.fnmatch(base.lower(), pat.lower()) if op == "-iname" else
               fnmatch.fnmatchcase(path, pat) for op, pat in tests)


#: in a tree too large to list, the kinds of file that decide what runs stand for its contents:
#: Python sources and native extensions, .pth files, distribution metadata, settings, scripts
_DECIDING = ("x.py", "x.pth", "x.so", "settings.toml", "hooks.json", "x.dist-info/RECORD",
             "x.dist-info/METADATA", "x.dist-info/entry_points.txt", "x.sh", "x.js")


def _tree_paths(root: str, limit: int = 256) -> Iterator[str]:
    """``root`` and what is below it, at most ``limit`` entries; past that, the deciding kinds."""
    yield root
    n = 0
    for here, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            n += 1
            if n > limit:
                yield from (os.path.join(root, "x", d) for d in _DECIDING)
                return
            yield os.path.join(here, name)


def _find_name_tests(expr: list[str]) -> list[tuple[str, str]] | None:
    """The name tests of a find expression that is a plain conjunction, or None (match anything)."""
    out: list[tuple[str, str]] = []
    k = 0
    while k < len(expr):
        a = expr[k]
        if a in _FIND_ACTIONS:
            return out  # what follows is the command
        if a in _FIND_NARROWING and k + 1 < len(expr):
            out.append(("-name" if a == "-name" else ("-iname" if a == "-iname" else "-path"), expr[k + 1]))
            k += 2
            continue
        if a in _FIND_HARMLESS:
            k += 2 if a in ("-type", "-xtype", "-maxdepth", "-mindepth", "-newer", "-mtime", "-mmin", "-size",
                             "-user", "-group", "-perm") else 1
            continue
        return None  # -o, !, (, -regex ...: anything may match
    return out


def our_cli_weakening(cmd: Command) -> str | None:
    name = cmd.name
    raw0 = cmd.raw[0] if cmd.raw else ""
    ours = name in ("agenthooks", "agent-hooks") or name.startswith("agent_hooks_core")
    if not ours and "/" in raw0:
        import os

        ours = os.path.realpath(raw0) in {os.path.realpath(p) for p in plane.our_programs()} and \
            not name.startswith(("python", "pypy"))
    if ours:
        return plane.weakening_subcommand(cmd.args)
    if _only_reads(cmd):
        return None
    # started by something else: a package runner (`uv tool run`, `pipx run --spec X`, `xargs`), an
    # interpreter given a path into our package, or Python code that calls our entry point
    raw = cmd.raw or cmd.argv
    if not any("agent" in w for w in raw):
        return None  # every spelling of our CLI holds the word
    for k, word in enumerate(raw[1:], 1):
        base = word.rstrip("/").rsplit("/", 1)[-1]
        if re.fullmatch(r"-[A-Za-z]*m", raw[k - 1]) and not any(w in ("-X", "-W") for w in raw[1:k - 1]):
            continue  # `python -m agent_hooks_core`: judged as the command it unwraps to
        if base in _OUR_NAMES or base.split(".", 1)[0] == "agent_hooks_core" or (
                base == "__main__.py" and "/agent_hooks_core/" in word):
            why = plane.weakening_subcommand(raw[k + 1:])
            if why:
                return why
    if cmd.name in INTERPRETERS or cmd.name.startswith(("python", "pypy")):
        code = next((cmd.args[k + 1] for k, a in enumerate(cmd.args[:-1]) if a in ("-c", "-e", "-E")), "")
        if _CALLS_OUR_CLI.search(code):
            return "runs agent-hooks' command line from code, where any subcommand can weaken its policy"
    return None


_OUR_NAMES = frozenset({"agenthooks", "agent-hooks", "agent-hooks-core", "agent_hooks_core"})
#: Python code that reaches our command line: its module, ``__main__``, or ``runpy`` on the package
_CALLS_OUR_CLI = re.compile(r"agent_hooks_core(?:\.cli\b|\.__main__|\s+import\s+[^\n;]*\bcli\b)|"
                            r"run_(?:module|path)\([^)]*agent_hooks_core")


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
        for cwd in pol.cwds(cmd):
            level = broadness(s, cwd, pol.home)
            if filtered and level == "root" and (is_relative(s) or is_temporary(pol.expand(s, cwd) or "")):
                level = "project"  # a filtered find in the working directory or a temporary one
            if level in ("root", "variable") or (level == "project" and not filtered):
                yield Finding("find-delete", f"find deleting everything under {s}")
                return


def sudo(cmd: Command, pol: Policy) -> Iterator[Finding]:
    # privileges on another machine (ssh host sudo ...) are that machine's policy: the guard keeps
    # this one; what the remote command does is still judged by the other rules
    local = cmd.wrappers[:cmd.wrappers.index("ssh")] if "ssh" in cmd.wrappers else cmd.wrappers
    remote = "ssh" in cmd.wrappers
    used = [w for w in local if w in PRIVILEGED] or ([cmd.name] if cmd.name in PRIVILEGED and not remote else [])
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
        _, operands = _flags_and_operands(cmd.args)
        files = [o for o in operands if not o.isdigit() and not re.fullmatch(r"\d+[KMGTkmgt]?", o)]
        if files and all(_image_file(f, pol.cwd_of(cmd)) for f in files):
            return  # formatting an image file is making a disk image, not wiping a disk
        yield Finding("mkfs", f"formats a filesystem ({cmd.name})")


def _image_file(word: str, cwd: str) -> bool:
    """A path that names a regular file (or none yet), never a device: ``disk.img``, ``/tmp/x.img``."""
    import os

    if word.startswith("/dev/") or "$" in word:
        return False
    path = os.path.realpath(os.path.join(cwd, os.path.expanduser(word)))
    if path.startswith("/dev/"):
        return False
    try:
        import stat

        mode = os.stat(path).st_mode
    except OSError:
        return True  # nothing there yet: mkfs.ext4 -F new.img creates a file
    return stat.S_ISREG(mode)


def scheduled(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """A command handed to a systemd timer (``systemd-run --on-calendar=... cmd``): it runs later,
    unattended (crontab and at are the system pack's declarative rules)."""
    if "systemd-run" in cmd.wrappers and any(w.startswith(("--on-", "--timer-property")) for w in cmd.raw):
        yield Finding("schedule", "schedules a command with a systemd timer")


_SETUID_NUMERIC = re.compile(r"^[0-7]?([2-7])[0-7]{3}$")


def setuid(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """chmod u+s / g+s / 4755: a program that runs with its owner's privileges."""
    if cmd.name != "chmod":
        return
    _, operands = _flags_and_operands(cmd.args)
    if not operands:
        return
    mode = operands[0]
    m = _SETUID_NUMERIC.match(mode)
    if (m and int(m.group(1)) & 6) or re.search(r"(?:^|,)[ugoa]*[+=][rwxXt]*s", mode):
        yield Finding("setuid", f"chmod {mode} makes a program run with its owner's privileges (set-uid/gid)")


def write_targets(cmd: Command) -> list[str]:
    """Paths a command writes, moves or deletes."""
    got = cmd.memo.get("writes")
    if got is None:
        got = cmd.memo["writes"] = _write_targets(cmd)
    return got


def _write_targets(cmd: Command) -> list[str]:
    out = [e.target for e in file_effects(cmd) if e.kind in CHANGES]
    if cmd.name == "apply_patch":
        from .policy import patch_paths

        for text in [*cmd.args, *(t for op, t in cmd.redirects if op == "<<<")]:
            out += patch_paths(text)
    return list(dict.fromkeys(out))


_UPLOAD_FLAGS = frozenset({"-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "-F", "--form",
                           "--form-string", "-T", "--upload-file", "--json"})
_ARCHIVERS = frozenset({"zip", "7z", "7za", "rar", "gpg", "age", "openssl"})


def _uploads(args: list[str]) -> list[str]:
    """Files curl/wget/httpie send: ``-d @f``, ``-F x=@f``, ``-T f``, ``--post-file=f``, ``x@f``."""
    out: list[str] = []
    for j, a in enumerate(args):
        value = None
        if a in _UPLOAD_FLAGS and j + 1 < len(args):
            value = args[j + 1]
            if a in ("-T", "--upload-file"):
                out.append(value)
                continue
        elif a.startswith(("-d@", "--data=@", "--data-binary=@")):
            value = a.split("@", 1)[1]
            out.append(value)
            continue
        elif a.startswith(("--post-file=", "--body-file=")):
            out.append(a.split("=", 1)[1])
            continue
        elif "=@" in a and not a.startswith("-"):
            out.append(a.split("=@", 1)[1])  # httpie field=@file
            continue
        if value is None:
            continue
        for marker in ("=@", "=<", "@"):
            if marker in value:
                target = value.split(marker, 1)[1].split(";", 1)[0]
                if target and target != "-":
                    out.append(target)
                break
    return out


def _tar_inputs(args: list[str]) -> list[str]:
    """What ``tar c`` archives (not the archive it writes)."""
    if not args:
        return []
    first = args[0]
    old_style = not first.startswith("-")
    letters = first if old_style else "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    if "c" not in letters and "r" not in letters and "--create" not in args and "--append" not in args:
        return []
    out: list[str] = []
    j = 1 if old_style else 0
    skip_next = old_style and "f" in first
    while j < len(args):
        a = args[j]
        if skip_next:
            skip_next = False
        elif a in ("-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b", "-H",
                   "--format", "-I", "--use-compress-program") or (a.startswith("-") and not a.startswith("--") and a.endswith("f")):
            skip_next = True
        elif not a.startswith("-"):
            out.append(a)
        j += 1
    return out


def read_targets(cmd: Command) -> list[str]:
    """Paths a command reads (and shows or sends)."""
    got = cmd.memo.get("reads")
    if got is None:
        got = cmd.memo["reads"] = _read_targets(cmd)
    return got


def _pattern_reader_files(args: list[str]) -> list[str]:
    """Files grep/rg/awk/sed/jq read: the first operand is the pattern or program unless ``-e``/``-f``
    gives it; ``-e``'s value is a pattern, ``-f``'s a file."""
    files: list[str] = []
    operands: list[str] = []
    given = False
    j = 0
    while j < len(args):
        a = args[j]
        if a == "--":
            operands += args[j + 1:]
            break
        if a in ("-e", "--regexp", "--expression") and j + 1 < len(args):
            given, j = True, j + 2
            continue
        if a in ("-f", "--file", "--from-file") and j + 1 < len(args):
            files.append(args[j + 1])
            given, j = True, j + 2
            continue
        if a.startswith(("--regexp=", "--expression=")) or (a.startswith("-e") and len(a) > 2 and a[1] != "-"):
            given = True
        elif a.startswith(("--file=", "--from-file=")):
            files.append(a.split("=", 1)[1])
            given = True
        elif not (a.startswith("-") and len(a) > 1):
            operands.append(a)
        j += 1
    return files + (operands if given else operands[1:])


def _read_targets(cmd: Command) -> list[str]:
    out = [t for op, t in cmd.redirects if op == "<" and t]
    name = cmd.name
    if name in ("cp", "scp", "rsync", "install"):
        _, operands = _flags_and_operands(cmd.args)
        out += operands[:-1]  # the last one is where the copy goes, not what it reads
    elif name in _PATTERN_FIRST:
        out += _pattern_reader_files(cmd.args)
    elif name in _DISPLAY or name in ("sqlite3", "strings"):
        _, operands = _flags_and_operands(cmd.args)
        out += operands[:1] if name == "sqlite3" else operands
    elif name == "dd":
        out += [a[3:] for a in cmd.args if a.startswith("if=")]
    elif name in ("source", "."):
        out += cmd.args[:1]
    elif name == "tar":
        out += _tar_inputs(cmd.args)
    elif name in _ARCHIVERS:
        _, operands = _flags_and_operands(cmd.args)
        out += operands[1:] if name in ("zip", "7z", "7za", "rar") else operands
    elif name == "sftp":
        _, operands = _flags_and_operands(cmd.args)
        out += operands[:-1]
    elif name in DOWNLOADERS or name in ("wget", "http", "https", "xh"):
        out += _uploads(cmd.args)
    return out


def device_write(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name == "dd" and any(a == "of=" or (a.startswith("of=") and "$(" in a) for a in cmd.args) and any(
            s.name in ("lsblk", "ls", "fdisk", "blkid", "find", "sfdisk", "parted", "df") for s in
            [*cmd.subs, *(u for sub in cmd.subs for u in sub.upstream())]):
        yield Finding("device-write", "writes to a disk named by a command at run time (dd of=$(...))")
        return
    for t in write_targets(cmd):
        if t.startswith("/dev/") and not _SAFE_DEVICES.match(t):
            yield Finding("device-write", f"writes to the device {t}")
            return


def protected_write(cmd: Command, pol: Policy) -> Iterator[Finding]:
    created = _created_from_template(cmd, pol)
    for t in write_targets(cmd):
        if t == created:
            continue
        path = pol.expand(t, pol.cwd_of(cmd))
        pattern = pol.write_paths.match(path) if path else None
        if pattern:
            yield Finding("protected-write", f"{t} is protected ({pattern})")
            return


_INSTALL_VALUED = frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"})


def _created_from_template(cmd: Command, pol: Policy) -> str | None:
    """``cp .env.example .env`` (or ``install``) where ``.env`` does not exist yet: the destination, else None.
    Creating a secret file from its template loses nothing; overwriting an existing one would."""
    import os

    if cmd.name not in ("cp", "install") or cmd.redirects:
        return None
    args = cmd.args
    if cmd.name == "install":  # install -m600 .env.sample .env: the values of -m/-o/-g are no operands
        if any(a in ("-d", "--directory", "-t") or a.startswith("--target-directory") for a in args):
            return None
        args = [a for k, a in enumerate(args) if a not in _INSTALL_VALUED and (k == 0 or args[k - 1] not in _INSTALL_VALUED)]
    _, operands = _flags_and_operands(args)
    if len(operands) != 2:
        return None
    src, dest = (pol.expand(o, pol.cwd_of(cmd)) for o in operands)
    if not src or not dest or os.path.lexists(dest) or not pol.write_paths.allowed(src):
        return None
    return operands[1]


def _secret_read(cmd: Command, pol: Policy) -> tuple[str, str] | None:
    """``(target, pattern)`` of the first secret file ``cmd`` reads (globs such as ``.e*`` included)."""
    for t in read_targets(cmd):
        path = pol.expand(t, pol.cwd_of(cmd))
        if not path:
            continue
        pattern = pol.read_paths.match_glob(path) if any(ch in t for ch in "*?[") else pol.read_paths.match(path)
        if pattern:
            return t, pattern
    return None


def protected_read(cmd: Command, pol: Policy) -> Iterator[Finding]:
    hit = _secret_read(cmd, pol)
    if hit:
        yield Finding("protected-read", f"{hit[0]} holds secrets ({hit[1]})")


#: programs that send data somewhere else
NET_SENDERS = frozenset({"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "ftp",
                         "tftp", "http", "https", "xh", "httpie", "openssl", "rsync", "mail", "sendmail", "mutt",
                         "gh", "aws", "gsutil", "rclone", "s3cmd", "invoke-webrequest", "iwr", "irm",
                         "invoke-restmethod", "dig", "nslookup", "host", "drill", "delv", "ping"})
_ENV_DUMPERS = frozenset({"env", "printenv", "set", "export", "declare", "compgen", "get-childitem", "gci"})
_SECRET_NAME = re.compile(r"(?i)key|token|secret|pass|cred|auth|session|cookie")
#: a variable whose name says it holds a secret (``$AWS_SECRET_ACCESS_KEY``, ``${GITHUB_TOKEN}``)
_SECRET_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CRED|"
                         r"CREDENTIALS|AUTH|COOKIE|SESSION)[A-Za-z0-9_]*)\b", re.I)


def _secret_variable(cmd: Command) -> str | None:
    for w in cmd.argv[1:]:
        if "$" in w:
            m = _SECRET_VAR.search(w)
            if m:
                return m.group(1)
    return None


def _dumps_environment(cmd: Command) -> bool:
    if cmd.name not in _ENV_DUMPERS:
        return False
    args = [a for a in cmd.args if not a.startswith("-")]
    if cmd.name in ("get-childitem", "gci"):
        return any(a.lower().startswith("env:") for a in args)
    return not args or (cmd.name == "printenv" and any(_SECRET_NAME.search(a) for a in args)) or (cmd.name in (
        "export", "declare") and not [a for a in args if "=" not in a])


def secret_exfiltration(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """Environment dumps or secret files reaching a program that sends data over the network."""
    if cmd.name not in NET_SENDERS:
        return
    sources = [*cmd.upstream(), *cmd.subs]
    for sub in cmd.subs:
        sources += sub.upstream()
    for c in (cmd, *sources):
        var = _secret_variable(c)
        if var:
            yield Finding("secret-exfiltration", f"sends ${var} over the network ({cmd.name})")
            return
    for src in sources:
        if _dumps_environment(src):
            yield Finding("secret-exfiltration", f"sends the environment ({src.name}) over the network ({cmd.name})")
            return
        hit = _secret_read(src, pol)
        if hit:
            yield Finding("secret-exfiltration", f"sends {hit[0]} over the network ({cmd.name})")
            return


def agent_config(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """Writes to agent-hooks' own settings and trust store, or to a host's hook configuration."""
    for t in write_targets(cmd):
        path = pol.expand(t, pol.cwd_of(cmd))
        pattern = pol.agent_config_paths.match(path) if path else None
        if pattern:
            yield Finding("agent-config", f"{t} configures agent-hooks or the agent's hooks ({pattern}): "
                                          f"writing it could switch the guard off")
            return


def dynamic_exec(cmd: Command, pol: Policy) -> Iterator[Finding]:
    if cmd.name == DYNAMIC:
        why = cmd.raw[0] if cmd.raw else "text built at run time is executed"
        yield Finding("dynamic-exec", f"{why}: what it runs cannot be known before it runs")


_SAVERS = {"-o": 1, "--output": 1, "-O": 1, "--output-document": 1}


def _saved_files(cmd: Command) -> list[str]:
    """Files a downloader writes: ``curl -o f``, ``curl -O url``, ``wget url``, ``wget -O f``, ``curl url > f``."""
    if cmd.name not in DOWNLOADERS:
        return []
    out = [t for op, t in cmd.redirects if op in _WRITE_REDIRECTS and t]
    args = cmd.args
    urls = [a for a in args if "://" in a]
    named = False
    for j, a in enumerate(args):
        if a in ("-o", "--output", "--output-document") or (a == "-O" and cmd.name == "wget"):
            if j + 1 < len(args):
                out.append(args[j + 1])
                named = True
        elif a.startswith(("--output=", "--output-document=")):
            out.append(a.split("=", 1)[1])
            named = True
        elif a in ("-O", "--remote-name", "-J") and cmd.name == "curl":
            out += [u.rstrip("/").rsplit("/", 1)[-1] for u in urls]
            named = True
        elif a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[1:].isalpha():
            # clusters: curl -sSo f, curl -sO, wget -qO f
            if (a.endswith("o") and cmd.name == "curl") or (a.endswith("O") and cmd.name == "wget"):
                if j + 1 < len(args):
                    out.append(args[j + 1])
                    named = True
            elif "O" in a and cmd.name == "curl":
                out += [u.rstrip("/").rsplit("/", 1)[-1] for u in urls]
                named = True
    if cmd.name == "wget" and not named and not any(a in ("-qO-", "-O-") for a in args):
        out += [u.rstrip("/").rsplit("/", 1)[-1] for u in urls]
    return [o for o in out if o and o != "-"]


def _script_run(cmd: Command) -> str | None:
    """The file a command runs as a script: ``bash f``, ``sh f``, ``python f``, ``source f``, ``./f``."""
    raw0 = cmd.raw[0] if cmd.raw else ""
    if "/" in raw0 and not raw0.startswith("/usr/") and not raw0.startswith("/bin/"):
        return raw0
    if cmd.name in SHELLS or cmd.name in ("source", ".") or cmd.name.startswith(("python", "perl", "ruby", "node")):
        positional = [a for a in cmd.args if not a.startswith("-")]
        if positional and "-c" not in cmd.args:
            return positional[0]
    return None


def download_then_run(commands: list[Command]) -> Finding | None:
    """``curl -o /tmp/i.sh URL && bash /tmp/i.sh``: a file downloaded earlier in the same line is run."""
    saved: dict[str, str] = {}  # file name -> how it was made
    for cmd in commands:
        files = _saved_files(cmd)
        if files:
            saved.update((f.rstrip("/").rsplit("/", 1)[-1], "downloaded") for f in files)
            continue
        # base64 -d > f, curl URL | base64 -d > f: a file made from a decoder's or downloader's output
        outputs = [t for op, t in cmd.redirects if op in (">", ">|", ">>", "&>") and t]
        if cmd.name == "tee":
            outputs += [a for a in cmd.args if not a.startswith("-")]
        # only a command that writes a file asks where its input came from (upstream() walks the pipeline)
        made = outputs and (_produces_script(cmd) or next((w for w in map(_produces_script, cmd.feeders) if w), None))
        if made:
            saved.update((t.rstrip("/").rsplit("/", 1)[-1], f"written from {made} output") for t in outputs)
        if not saved:
            continue
        target = _script_run(cmd)
        if target and target.rstrip("/").rsplit("/", 1)[-1] in saved:
            how = saved[target.rstrip("/").rsplit("/", 1)[-1]]
            return Finding("pipe-to-shell", f"runs {target}, {how} earlier in the same command")
    return None


_PS_REMOVE = frozenset({"remove-item", "ri", "del", "erase", "rd"})
_PS_BROAD = re.compile(r"(?i)^['\"]?(?:[a-z]:\\?|[a-z]:/|\\|/|~|\$home|\$env:(?:userprofile|homedrive|systemdrive|"
                       r"windir|systemroot)\\?|\$env:userprofile\\\*|c:\\\*|[a-z]:\\windows|[a-z]:\\users)['\"]?$")


def powershell(cmd: Command, pol: Policy) -> Iterator[Finding]:
    """PowerShell's destructive cmdlets (hosts with a PowerShell tool)."""
    name = cmd.name.lower()
    if name in _PS_REMOVE and any(a.lower() in ("-r", "-rec", "-recurse", "/s") for a in cmd.args):
        for a in cmd.args:
            if not a.startswith("-") and _PS_BROAD.match(a):
                yield Finding("powershell", f"{cmd.name} -Recurse of a broad path ({a})")
                return
    elif name in ("format-volume", "clear-disk", "initialize-disk", "remove-partition", "format"):
        yield Finding("powershell", f"formats or wipes a disk ({cmd.name})")
    elif name in ("stop-computer", "restart-computer"):
        yield Finding("powershell", f"shuts down or restarts the machine ({cmd.name})")
    elif name in ("invoke-expression", "iex"):
        sources = [*cmd.upstream(), *cmd.subs]
        if any(s.name.lower() in ("invoke-webrequest", "iwr", "invoke-restmethod", "irm", "curl", "wget")
               for s in sources) or any("downloadstring" in a.lower() for a in cmd.args):
            yield Finding("powershell", "runs downloaded text (iex (iwr ...))")
        elif sources or any(a.startswith(("$", "(")) for a in cmd.args):
            yield Finding("dynamic-exec", "Invoke-Expression of text built at run time: what it runs cannot be "
                                          "known before it runs")
    elif name == "set-mppreference" and any(a.lower().startswith("-disable") for a in cmd.args):
        yield Finding("powershell", "switches Windows Defender protection off")


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


#: the commands whose interpreters run a script (what pipe-to-shell looks at)
SCRIPT_RUNNERS = SHELLS | INTERPRETERS | {"source", ".", "eval"}
#: which commands each rule looks at: names, "writes"/"reads" (commands with such targets),
#: "scripts" (shells and interpreters), "wrapped" (run through a wrapper such as sudo or
#: systemd-run, or a privileged program itself) or "all". The policy calls a rule only for those, so the
#: cost per simple command stays flat however many rules and packs there are.
GATES: dict[str, frozenset[str] | str] = {
    "rm-broad": "writes",
    "chmod-broad": "writes",
    "control-plane": "all",
    "find-delete": frozenset({"find"}),
    "sudo": "wrapped",
    "chmod-777": frozenset({"chmod"}),
    "setuid": frozenset({"chmod"}),
    "schedule": "wrapped",
    "pipe-to-shell": "scripts",
    "mkfs": "all",
    "device-write": "all",
    "force-push": frozenset({"git"}),
    "protected-write": "writes",
    "protected-read": "reads",
    "url": DOWNLOADERS,
    "nesting": frozenset({TOO_DEEP}),
    "deny-commands": "all",
    "secret-exfiltration": NET_SENDERS,
    "agent-config": "writes",
    "dynamic-exec": frozenset({DYNAMIC}),
    "powershell": "all",
}

RULES: dict[str, Callable[[Command, Policy], Iterator[Finding]]] = {
    "rm-broad": rm_broad,
    "chmod-broad": chmod_broad,
    "control-plane": control_plane,
    "find-delete": find_delete,
    "sudo": sudo,
    "chmod-777": chmod_777,
    "setuid": setuid,
    "schedule": scheduled,
    "pipe-to-shell": pipe_to_shell,
    "mkfs": mkfs,
    "device-write": device_write,
    "force-push": force_push,
    "protected-write": protected_write,
    "protected-read": protected_read,
    "url": url,
    "nesting": nesting,
    "deny-commands": deny_commands,
    "secret-exfiltration": secret_exfiltration,
    "agent-config": agent_config,
    "dynamic-exec": dynamic_exec,
    "powershell": powershell,
}
