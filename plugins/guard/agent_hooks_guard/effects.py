"""What a simple command does to files: the effects the path rules are written over.

:func:`file_effects` turns one parsed :class:`~agent_hooks_guard.shell.Command` into
:class:`Effect` items: which paths it deletes, truncates, overwrites, writes, moves away,
``chmod``s or ``chown``s. Rules then judge effects, not spellings: ``rm -rf ~``, ``mv ~ /tmp/x``,
``rsync --delete /tmp/empty/ ~/``, ``tar --remove-files``, ``zip -m`` and ``find ~ -delete`` all
produce a recursive delete (or move-away) of the home directory, and one rule decides them.
Interpreter code (``shutil.rmtree``, ``open(p, 'w')``) reaches here as the equivalent commands
``indirect`` derives from it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Command

#: effects that change or remove what is at a path
CHANGES = frozenset({"delete", "truncate", "overwrite", "write", "move-away", "chmod", "chown"})
#: programs whose change of a name reaches what is below it even without ``-r``: a link or a moved
#: directory takes its place (``ln -s /tmp/x .claude``), and removing a link takes away what was
#: reached through it. Not ``rmdir``: it removes only an empty directory, nothing below it changes
REPLACES_BELOW = frozenset({"ln", "mv", "rm", "unlink"})
_WRITE_REDIRECTS = {">": "overwrite", ">|": "overwrite", "&>": "overwrite", ">>": "write", "&>>": "write"}
#: options that take a value, per program (so the value is not taken for a path)
_VALUED = {
    "rm": frozenset(),
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "tee": frozenset(),
    "cp": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "mv": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "install": frozenset({"-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S"}),
    "ln": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "rsync": frozenset({"-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--exclude-from",
                        "--include-from", "--files-from", "--backup-dir", "--chmod", "--chown", "--rsync-path",
                        "--log-file", "--partial-dir", "-T", "--temp-dir", "--compare-dest", "--link-dest",
                        "--copy-dest", "-B", "--block-size", "--timeout", "--port", "--bwlimit"}),
    "tar": frozenset({"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b",
                      "-H", "--format", "-I", "--use-compress-program", "--exclude", "--transform", "--owner",
                      "--group", "--mode", "-N", "--newer", "--checkpoint-action", "--to-command"}),
    "zip": frozenset({"-x", "-i", "-b", "-n", "-t", "-tt", "-O", "--out", "-P", "--password", "-Z", "-s"}),
    "unzip": frozenset({"-d", "-x", "-P"}),
    "sed": frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"}),
    "chmod": frozenset({"--reference"}),
    "chown": frozenset({"--reference", "--from"}),
    "chgrp": frozenset({"--reference"}),
    "shred": frozenset({"-n", "--iterations", "-s", "--size", "--random-source"}),
    "dd": frozenset(),
    "sponge": frozenset(),
    "mkdir": frozenset({"-m", "--mode"}),
    "touch": frozenset({"-d", "--date", "-r", "--reference", "-t"}),
    "patch": frozenset({"-p", "-i", "--input", "-o", "--output", "-d", "--directory", "-r", "-B", "-F", "-z"}),
}
_EDITORS = frozenset({"vim", "vi", "nvim", "ex", "ed", "red", "emacs", "nano", "pico", "joe", "micro", "kak"})
_TIGHTENING = re.compile(r"^(?:[0-7]?[0-7]00|[ugoa]*-[rwxXst]+(?:,[ugoa]*-[rwxXst]+)*|go?-[rwx]+|u\+[rwx]+,go?-[rwx]+)$")


@dataclass(frozen=True)
class Effect:
    kind: str
    """delete, truncate, overwrite, write, move-away, chmod or chown"""
    target: str
    """the path word as the command names it (resolve it with Policy.expand)"""
    recursive: bool = False
    how: str = ""
    """the program (and option) that does it, for the reason: ``rsync --delete``"""


def split_args(name: str, args: list[str]) -> tuple[list[str], list[str]]:
    """``(options, operands)`` of ``args``; values of options that take one are left out of both
    (``truncate -s 0 f``: the operand is ``f``)."""
    valued = _VALUED.get(name, frozenset())
    flags: list[str] = []
    operands: list[str] = []
    j = 0
    while j < len(args):
        a = args[j]
        if a == "--":
            operands.extend(args[j + 1:])
            break
        if a.startswith("-") and len(a) > 1:
            flags.append(a)
            if a in valued and j + 1 < len(args):
                flags.append(args[j + 1])
                j += 2
                continue
        else:
            operands.append(a)
        j += 1
    return flags, operands


def _short(flags: list[str], letters: str) -> bool:
    return any(f.startswith("-") and not f.startswith("--") and any(c in f[1:] for c in letters) for f in flags)


def _value(flags: list[str], *names: str) -> str | None:
    for k, f in enumerate(flags):
        if f in names and k + 1 < len(flags):
            return flags[k + 1]
        for n in names:
            if n.startswith("--") and f.startswith(n + "="):
                return f.split("=", 1)[1]
    return None


def file_effects(cmd: Command) -> list[Effect]:
    """Every file effect of ``cmd`` (remembered on the command: several rules ask)."""
    got = cmd.memo.get("effects")
    if got is None:
        got = cmd.memo["effects"] = _effects(cmd)
    return got


def _effects(cmd: Command) -> list[Effect]:
    out = [Effect(_WRITE_REDIRECTS[op], t, how=op) for op, t in cmd.redirects
           if op in _WRITE_REDIRECTS and t and not t.isdigit()]
    name, args = cmd.name, cmd.args
    if not name:
        return out
    flags, ops = split_args(name, args)
    add = out.append
    if name in ("rm", "rmdir", "unlink"):
        rec = name == "rm" and (_short(flags, "rR") or "--recursive" in flags)
        out += [Effect("delete", t, rec, name) for t in ops]
    elif name == "shred":
        kind = "delete" if _short(flags, "u") or "--remove" in flags else "overwrite"
        out += [Effect(kind, t, False, name) for t in ops]
    elif name == "truncate":
        out += [Effect("truncate", t, False, name) for t in ops]
    elif name in ("tee", "sponge"):
        kind = "write" if _short(flags, "a") or "--append" in flags else "overwrite"
        out += [Effect(kind, t, False, name) for t in ops]
    elif name in ("cp", "install", "ln", "mv", "rsync"):
        target = _value(flags, "-t", "--target-directory")
        dest = target or (ops[-1] if len(ops) > 1 else None)
        sources = ops if target else ops[:-1]
        if name == "install" and _short(flags, "d"):
            out += [Effect("write", t, False, "install -d") for t in ops]
        elif dest is not None:
            add(Effect("overwrite", dest, name in ("cp", "rsync") and (_short(flags, "rRa")), name))
        if name == "mv":
            out += [Effect("move-away", s, True, "mv") for s in sources]
        if name == "rsync":
            if any(f.startswith("--delete") or f in ("--del", "--remove-sent-files") for f in flags) and dest:
                add(Effect("delete", dest, True, "rsync --delete"))
            if "--remove-source-files" in flags:
                out += [Effect("delete", s, True, "rsync --remove-source-files") for s in sources]
    elif name == "sed" and any(f == "-i" or f.startswith(("-i", "--in-place")) or
                               (f.startswith("-") and not f.startswith("--") and "i" in f[1:]) for f in flags):
        files = ops if _value(flags, "-e", "--expression", "-f", "--file") is not None else ops[1:]
        out += [Effect("overwrite", t, False, "sed -i") for t in files]
    elif name in ("perl", "ruby") and any(f.startswith("-") and not f.startswith("--") and "i" in f[1:]
                                          and f[1] not in "IMm" for f in flags):
        code_flags = [k for k, a in enumerate(args) if a.startswith("-") and a[-1:] in "eE" and a[1:2] not in "IMm"]
        rest = args[code_flags[-1] + 2:] if code_flags else args[1:]
        out += [Effect("overwrite", t, False, f"{name} -i") for t in rest if not t.startswith("-")]
    elif name in _EDITORS:
        out += [Effect("overwrite", t, False, name) for t in ops if not t.startswith("+")]
    elif name == "dd":
        out += [Effect("overwrite", a[3:], False, "dd") for a in args if a.startswith("of=") and len(a) > 3]
    elif name in ("chmod", "chown", "chgrp"):
        rec = _short(flags, "R") or "--recursive" in flags
        kind = "chmod" if name == "chmod" else "chown"
        if _value(flags, "--reference") is not None:
            targets = ops
        elif ops and name == "chmod" and _TIGHTENING.match(ops[0]) and not rec:
            targets = []  # only takes permissions away (chmod 600 ~/.ssh/config)
        else:
            targets = ops[1:]
        out += [Effect(kind, t, rec, name) for t in targets]
    elif name == "tar":
        letters = args[0] if args and not args[0].startswith("-") else ""
        letters += "".join(f[1:] for f in flags if f.startswith("-") and not f.startswith("--"))
        if "x" in letters or "--extract" in flags or "--get" in flags:
            add(Effect("overwrite", _value(flags, "-C", "--directory") or ".", True, "tar -x"))
        if "--remove-files" in flags:
            from .rules import _tar_inputs

            out += [Effect("delete", t, True, "tar --remove-files") for t in _tar_inputs(args)]
    elif name == "unzip":
        add(Effect("overwrite", _value(flags, "-d") or ".", True, "unzip"))
    elif name == "zip" and (_short(flags, "m") or "--move" in flags):
        out += [Effect("delete", t, _short(flags, "r"), "zip -m") for t in ops[1:]]
    elif name in ("mkdir", "touch"):
        out += [Effect("write", t, False, name) for t in ops]
    elif name == "find" and "-delete" in args:
        starts = []
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            starts.append(a)
        out += [Effect("delete", s, True, "find -delete") for s in starts or ["."]]
    elif name == "patch":
        out += [Effect("overwrite", t, False, "patch") for t in ops[:1]]
    return out


def replaces_below(e: Effect, cmd: Command) -> bool:
    """Whether ``e`` changes what is below its target too (see :data:`REPLACES_BELOW`): what is
    reached through the name is another tree afterwards. A destination that must be a directory
    (``ln -t D``, ``ln F D/``, ``mv -t D``) is not replaced: what lands in it is (:func:`placements`)."""
    if e.recursive:
        return True
    if e.how in ("rm", "unlink"):
        return e.kind == "delete"
    if e.how not in ("ln", "mv") or e.kind != "overwrite":
        return False
    flags, _ = split_args(cmd.name, cmd.args)
    if _value(flags, "-t", "--target-directory") is not None:
        return False
    return not (e.how == "ln" and e.target.endswith("/"))


def placements(cmd: Command) -> list[Effect]:
    """Where a copy, a move or a link lands when its destination is a directory: ``DEST/NAME`` for
    each source (``cp /tmp/settings.json .claude``, ``mv -t .claude F``), and ``./NAME`` for ``ln -s
    SRC`` alone. Whether the destination is a directory is only known when the command runs (it may
    be made or removed earlier in the line, or meanwhile), so these are judged whatever it is now;
    a link or a moved directory landing there replaces what is below it too."""
    name = cmd.name
    if name not in ("cp", "install", "ln", "mv", "rsync"):
        return []
    flags, ops = split_args(name, cmd.args)
    if (name == "install" and _short(flags, "d")) or "-T" in flags or "--no-target-directory" in flags:
        return []
    target = _value(flags, "-t", "--target-directory")
    if target is not None:
        dest, sources = target, ops
    elif len(ops) > 1:
        dest, sources = ops[-1], ops[:-1]
    elif name == "ln" and ops:
        dest, sources = ".", ops
    else:
        return []
    deep = name in ("ln", "mv") or (name in ("cp", "rsync") and _short(flags, "rRa"))
    out = []
    for source in sources:
        # `rsync -a src/ D`, `cp -r src/. D`: the contents land in D itself, which is judged already
        base = "" if name == "rsync" and source.endswith("/") else os.path.basename(source.rstrip("/"))
        if base and base not in (".", ".."):
            out.append(Effect("overwrite", os.path.join(dest, base), deep, name))
    return out


def describe(cmd: Command) -> list[str]:
    """What ``cmd`` does, in words (``guard explain``): its file effects, the network it reaches,
    and where it came from when another command runs it."""
    from .rules import NET_SENDERS

    out = []
    for e in file_effects(cmd):
        out.append(f"{e.kind}{' (recursive)' if e.recursive else ''} {e.target}" + (f" by {e.how}" if e.how else ""))
    if cmd.name in NET_SENDERS:
        out.append(f"network: {cmd.name}")
    return out
