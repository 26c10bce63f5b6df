"""Write, then run: a command line that writes a file and runs it is judged on what it runs.

``echo 'rm -rf ~' > /tmp/z.sh; sh /tmp/z.sh``, ``cat > x.py <<EOF ... EOF; python3 x.py`` and
``... | tee run.sh && . ./run.sh``: the text written (when it is known before running: echo,
printf, a here-document, a here-string) is parsed as the script the later command runs, shell or
interpreter code alike, and its commands are judged with the others.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from .indirect import language, static_output
from .shell import MAX_COMMANDS, SHELLS, Command, parse_bounded

if TYPE_CHECKING:
    from .policy import Policy

_WRITES = {">": False, ">|": False, "&>": False, ">>": True, "&>>": True}
#: scripts run from one command line that are looked into (each is parsed with its own budget)
MAX_SCRIPTS = 8
#: of at most this many commands each
SCRIPT_COMMANDS = 250
_CODE_FLAG = {"python": "-c", "node": "-e", "perl": "-e", "ruby": "-e", "php": "-r"}


def _content(cmd: Command) -> str | None:
    if cmd.name == "tee" or _copies_stdin(cmd):
        here = [t for op, t in cmd.redirects if op == "<<<"]
        if here:
            return here[0]
        return static_output(cmd.feeders[-1:]) if cmd.feeders else None
    return static_output([Command(cmd.argv, [r for r in cmd.redirects if r[0] == "<<<"])])


def _copies_stdin(cmd: Command) -> str | None:
    """``cp /dev/stdin FILE``, ``install /dev/stdin FILE``, ``dd of=FILE``: the file stdin is written to."""
    if cmd.name in ("cp", "install"):
        ops = [a for a in cmd.args if not a.startswith("-")]
        if len(ops) == 2 and ops[0] in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "-"):
            return ops[1]
    if cmd.name == "dd" and not any(a.startswith("if=") for a in cmd.args):
        return next((a[3:] for a in cmd.args if a.startswith("of=") and len(a) > 3), None)
    return None


def _runs(cmd: Command) -> tuple[str, str] | None:
    """``(file, how)``: the file ``cmd`` runs as a script and the language that reads it (``shell``,
    ``python`` ..., or ``""`` for ``./file``, decided by its first line)."""
    raw0 = cmd.raw[0] if cmd.raw else ""
    name = cmd.name
    if "/" in raw0 and not raw0.startswith(("/usr/", "/bin/", "/sbin/")):
        return raw0, ""
    if name in SHELLS or name in ("source", "."):
        how = "shell"
    else:
        how = language(name) or "awk"
        if how == "awk":
            return None
    positional = [a for a in cmd.args if not a.startswith("-")]
    if not positional or any(a in ("-c", "-e", "-r", "-m") for a in cmd.args):
        return None
    return positional[0], how


def written_then_run(commands: list[Command], pol: Policy) -> list[Command]:
    """The commands of scripts written earlier in ``commands`` and run later in them."""
    # the pieces each file was given (appended to in place: joined only when a file is read)
    written: dict[str, list[str] | None] = {}
    out: list[Command] = []
    scripts = 0
    left = MAX_COMMANDS - len(commands)  # scripts share the command line's budget of simple commands
    for cmd in commands:
        targets = [(op, t) for op, t in cmd.redirects if op in _WRITES and t]
        if cmd.name == "tee":
            append = any(a in ("-a", "--append") for a in cmd.args)
            targets += [(">>" if append else ">", a) for a in cmd.args if not a.startswith("-")]
        copied = _copies_stdin(cmd)
        if copied:
            targets.append((">", copied))
        if targets:
            text = _content(cmd)
            for op, t in targets:
                path = pol.expand(t, pol.cwd_of(cmd))
                if path is None:
                    continue
                before = written.get(path)
                if _WRITES[op] and before is not None and text is not None:
                    before.append(text)
                else:
                    written[path] = None if text is None else [text]
        if not written or scripts >= MAX_SCRIPTS or left <= 0:
            continue
        read = _reads_written(cmd, written, pol)
        if read is not None:
            name, fed = read
            # mysql < q.sql, redis-cli < cmds.txt: judged as if the text written were given inline
            # (an interpreter reading its script from it is parsed as one, its code analysed too)
            text = fed if cmd.name in SHELLS else f"{shlex.join(cmd.argv)} <<< {shlex.quote(fed)}"
            found, _ = parse_bounded(text, min(SCRIPT_COMMANDS, left), pol.work)
            scripts += 1
            left -= len(found) + 1
            for c in found:
                c.via = c.via or f"{cmd.name} < {name}, written earlier in the same command"
                c.wrappers = [*cmd.wrappers, *c.wrappers]
            out += found
            continue
        run = _runs(cmd)
        if run is None:
            continue
        path = pol.expand(run[0], pol.cwd_of(cmd))
        pieces = written.get(path) if path is not None else None
        if pieces is None:
            continue
        text = "\n".join(pieces)
        how = run[1] or _by_first_line(text)
        scripts += 1
        via = f"{run[0]}, written earlier in the same command"
        limit = min(SCRIPT_COMMANDS, left)
        if how == "shell":
            found, _ = parse_bounded(text, limit, pol.work)
        else:
            found, _ = parse_bounded(f"{how} {_CODE_FLAG.get(how, '-e')} {shlex.quote(text)}", limit, pol.work)
            found = found[1:]  # the interpreter itself is the command already judged
        left -= len(found) + 1
        for c in found:
            c.via = c.via or via
            c.wrappers = [*cmd.wrappers, *c.wrappers]
        out += found
    return out


def _reads_written(cmd: Command, written: dict[str, list[str] | None], pol: Policy) -> tuple[str, str] | None:
    """``(file, text)`` of a file written earlier that ``cmd`` reads on stdin (``< FILE``)."""
    for op, t in cmd.redirects:
        if op == "<" and t:
            path = pol.expand(t, pol.cwd_of(cmd))
            pieces = written.get(path) if path is not None else None
            if pieces is not None:
                return t, "\n".join(pieces)
    return None


def _by_first_line(text: str) -> str:
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].split()
        prog = words[-1] if words and words[0].endswith("/env") else (words[0] if words else "sh")
        prog = prog.rsplit("/", 1)[-1]
        lang = language(prog)
        if lang and lang != "awk":
            return lang
    return "shell"
