"""Shell command analysis: split a command line into the simple commands it would run.

A command string is tokenized with :mod:`shlex` (POSIX rules: quotes, escapes, operators), then
walked into :class:`Command` objects: one per simple command, with its redirections and the
commands whose output feeds it (``|``, ``<(...)``). Nested command text is analysed too:
``$(...)`` and backticks, ``bash -c "..."``/``sh -c``, ``eval``, ``su -c``, ``watch``.
Wrappers are peeled off (``sudo -u x``, ``env A=1``, ``nohup``, ``timeout 5``, ``xargs``,
``command``, ``/bin/rm`` -> ``rm``), so ``sudo -u root /bin/rm -r -f "$HOME"`` is seen as
``rm -r -f ~`` run through sudo.

The analysis errs on the side of seeing a command where bash might not (a ``#`` comment, a
backtick inside single quotes): a guard should rather ask once too often than miss one.
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from .indirect import Derived, code_of, derive, script_sources, static_output
from .work import PARSE_BUDGET, Work

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
INTERPRETERS = frozenset({"python", "python2", "python3", "perl", "ruby", "node", "php", "pwsh", "lua"})
#: wrappers that run their arguments as a command: name -> options that take a value
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
                       "--chdir", "--host", "--prompt", "--role", "--type", "--other-user",
                       "--command-timeout", "--close-from"}),
    "doas": frozenset({"-u", "-C"}),
    "pkexec": frozenset({"--user"}),
    "run0": frozenset({"-u", "--user", "-D", "--chdir"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-t", "--class", "--classdata"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs",
                        "--delimiter", "--arg-file", "--replace", "--max-lines"}),
    "setsid": frozenset(),
    "unbuffer": frozenset(),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "chronic": frozenset(),
    "systemd-run": frozenset({"-u", "--unit", "-p", "--property", "-E", "--setenv", "--uid", "--gid", "-M",
                              "--machine", "--description", "--slice", "--on-active", "--on-boot", "--on-startup",
                              "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property",
                              "--working-directory", "--nice", "-H", "--host"}),
    "firejail": frozenset(),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "torsocks": frozenset(),
    "caffeinate": frozenset(),
    "unshare": frozenset(),
    "fakeroot": frozenset(),
    # package runners: `npx prisma migrate reset` runs prisma
    "npx": frozenset({"-p", "--package"}),
    "pnpx": frozenset({"-p", "--package"}),
    "bunx": frozenset({"-p", "--package"}),
    "uvx": frozenset({"--from", "--with", "--python", "-p", "--index-url", "--extra-index-url"}),
}
#: two-word wrappers: `poetry run X`, `npm exec X`, `bundle exec X`
_RUNNERS = {"poetry": "run", "uv": "run", "pipenv": "run", "pdm": "run", "hatch": "run", "rye": "run",
            "bundle": "exec", "npm": "exec", "pnpm": "exec", "yarn": "dlx", "conda": "run", "pipx": "run"}
_PACKAGE_RUNNERS = frozenset({"npx", "pnpx", "bunx", "uvx"})
_PACKAGE_OPTIONS = ("--from", "--spec", "-p", "--package", "--with")
_REMOTE_SOURCE = re.compile(r"^(?:git\+|hg\+|svn\+|bzr\+|https?://|ftp://|git://|github:|gitlab:|bitbucket:|gist:)")


def _runs_remote_package(argv: list[str]) -> bool:
    """A package runner told to fetch its package from a URL or a VCS (``pipx run --spec git+...``)."""
    for j, a in enumerate(argv[1:16], start=1):
        if a in _PACKAGE_OPTIONS and j + 1 < len(argv) and _REMOTE_SOURCE.match(argv[j + 1]):
            return True
        if a.startswith(tuple(o + "=" for o in _PACKAGE_OPTIONS)) and _REMOTE_SOURCE.match(a.split("=", 1)[1]):
            return True
    return False


#: wrappers whose first positional argument is not the command (timeout DURATION, flock FILE, ...)
_WRAPPER_POSITIONALS = {"timeout": 1, "flock": 1, "chrt": 1, "taskset": 1}
PRIVILEGED = frozenset({"sudo", "doas", "pkexec", "run0", "su"})
_SCRIPT_HOSTS = SHELLS | {"eval", "source", "."}
#: tokens the walker treats specially (operators, redirections)
_SPECIAL = frozenset({";", "\n", "&&", "||", "&", ";;", "|", "|&", ")", "(", "<(", ">(", ">", ">>", "<", ">|", "&>",
                      "&>>", "<<", "<<<", ">&", "<&"})
#: commands that may run something besides themselves (indirect.derive); python* too
DERIVING = frozenset({"node", "nodejs", "bun", "deno", "perl", "ruby", "php", "awk", "gawk", "mawk", "nawk", "find",
                      "git", "pwsh", "powershell", "pwsh.exe", "powershell.exe", "pypy", "pypy3", "lua", "luajit",
                      "lua5.1", "lua5.3", "lua5.4", "tclsh", "wish", "expect", "sed", "gsed", "tar", "gtar",
                      "bsdtar", "rsync", "vim", "vi", "nvim", "ex", "view", "parallel"})
#: how deep ``bash -c "bash -c '...'"`` and ``$(...)`` nest before the analysis stops
MAX_DEPTH = 24
#: the name of the command standing for text nested deeper than that
TOO_DEEP = "<nested too deeply>"
#: the name of the command standing for text built and run at run time (its raw[0] says what)
DYNAMIC = "<built at run time>"

_OPERATORS = re.compile(r"\|\||&&|;;|\|&|<<<|<<|>>|<\(|>\(|>&|<&|&>>|&>|>\||[();<>|&]")
_ANSI_C = re.compile(r"\$'([^'\\]*(?:\\.[^'\\]*)*)'", re.S)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: shell words that only introduce the command after them (`if x; then rm ...; fi`)
_RESERVED = frozenset({"{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                       "esac", "time"})
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
#: variables an agent's shell always has exported (the variables of agent-hooks, HOME, the XDG
#: roots): a bare assignment to one changes them for every program started later, like ``export``
_INHERITED = re.compile(r"(?:AGENT_HOOKS_\w*|HOME|XDG_\w+)=")
_ONLY_SUBSTITUTIONS = re.compile(r"^\s*(?:\$\(__ahsub\d+__\)\s*)+$")
#: one token: blanks, an operator, a word (runs of plain text, quoted strings and escapes) or a lone
#: quote that never closes. Every alternative is linear (quoted bodies are "unrolled loops", no
#: nested quantifier over the same characters), so the whole scan is linear in the text.
_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<op>\n|\|\||&&|;;|\|&|<<<|<<|>>|<\(|>\(|>&|<&|&>>|&>|>\||[();<>|&])
  | (?P<word>(?:[^\s'"\\;&|()<>]+|'[^']*'|"[^"\\]*(?:\\.[^"\\]*)*"|\\.|\\$)+)
  | (?P<lone>['"])
""", re.X | re.S)
#: the same tokens, each with the blanks after it: one match per word or operator (blanks only ever
#: start a match at the very beginning), so a budget of matches is a budget of words
_SCAN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?:(?P<op>\n|\|\||&&|;;|\|&|<<<|<<|>>|<\(|>\(|>&|<&|&>>|&>|>\||[();<>|&])
    | (?P<word>(?:[^\s'"\\;&|()<>]+|'[^']*'|"[^"\\]*(?:\\.[^"\\]*)*"|\\.|\\$)+)
    | (?P<lone>['"])
    )[ \t\r\f\v]*
""", re.X | re.S)
#: the parts of one word, for quote removal
_PART = re.compile(r"""'([^']*)'|"([^"\\]*(?:\\.[^"\\]*)*)"|\\(.)|([^'"\\]+)|(['"\\])""", re.S)
_DQ_ESCAPE = re.compile(r"\\([\\\"$`\n])")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.@%+-]+))")
_IFS = re.compile(r"\$\{IFS[^}]{0,16}\}|\$IFS\b")
#: where a scan for quoting or a substitution must stop (the rest is skipped at C speed)
_SUB_STOPS = re.compile(r"[\\'\"()]")
_DQ_STOPS = re.compile(r"[\\\"]|\$\(")
_TOP_STOPS = re.compile(r"[\\'\"]|\$\(")


@dataclass
class Command:
    """One simple command as it would run."""

    argv: list[str]
    """arguments after wrappers were peeled off; ``argv[0]`` is a basename (``rm``, not ``/bin/rm``)"""
    redirects: list[tuple[str, str]] = field(default_factory=list)
    """``(operator, target)``: ``(">", "/dev/sda")``"""
    feeders: list[Command] = field(default_factory=list)
    """commands whose output this one reads (pipes and process substitutions)"""
    wrappers: list[str] = field(default_factory=list)
    """what it ran through, outermost first: ``["sudo", "env"]``"""
    script_from: list[Command] = field(default_factory=list)
    """for ``sh -c "$(...)"`` / ``eval "$(...)"``: the commands whose output becomes the script"""
    raw: list[str] = field(default_factory=list)
    """the words as written (after quote removal), wrappers included"""
    subs: list[Command] = field(default_factory=list)
    """the commands of its ``$(...)`` substitutions (``curl -d "$(env)"``)"""
    via: str = ""
    """for a command found inside another (``python3 -c``, ``find -exec``): how it was found"""
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """what rules computed about it once (write and read targets)"""
    name: str = field(init=False, repr=False, compare=False)
    """``argv[0]`` or ``""`` (every rule asks, dozens of times per command: an attribute, not a property;
    argv is never changed after the command is made)"""

    def __post_init__(self) -> None:
        self.name = self.argv[0] if self.argv else ""

    @property
    def text(self) -> str:
        return " ".join(self.raw or self.argv)

    @property
    def args(self) -> list[str]:
        return self.argv[1:]

    @property
    def positional(self) -> list[str]:
        """The arguments that are not options (computed once: every pack rule asks)."""
        got = self.memo.get("positional")
        if got is None:
            got = self.memo["positional"] = [a for a in self.argv[1:] if not a.startswith("-")]
        return got

    @property
    def positional_set(self) -> frozenset[str]:
        got = self.memo.get("positional_set")
        if got is None:
            got = self.memo["positional_set"] = frozenset(self.positional)
        return got

    def upstream(self) -> list[Command]:
        """Every command whose output reaches this one, transitively."""
        seen: list[Command] = []
        todo = list(self.feeders)
        while todo:
            cmd = todo.pop()
            if any(cmd is s for s in seen):
                continue
            seen.append(cmd)
            todo.extend(cmd.feeders)
        return seen


def _decode_ansi_c(match: re.Match[str]) -> str:
    body = match.group(1)
    try:
        text = codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        text = body
    return shlex.quote(text)


def _heredocs(text: str) -> str:
    """``cmd <<EOF`` + body lines + ``EOF`` -> ``cmd <<< 'body'``: the body becomes one word (what a
    shell or interpreter reading stdin would run, see :func:`stdin_text`) instead of lines parsed as
    commands. A heredoc whose end line never comes is left alone (its lines are judged as commands)."""
    if "<<" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    ends: dict[tuple[str, bool], list[int]] = {}  # delimiter -> the lines that close it, found once
    budget = _MAX_HEREDOCS
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" not in line:
            out.append(line)
            continue
        # only a real << operator counts, not one inside quotes: the tokenizer knows which is which
        starts = [m.start() for m in _TOKEN.finditer(line) if m.group("op") == "<<"]
        pieces: list[str] = []
        last = 0
        for pos in starts:
            m = _HEREDOC.match(line, pos)
            if m is None or budget <= 0:
                continue  # past the budget, heredoc bodies are judged as command lines (stricter)
            budget -= 1
            delim = next(g for g in m.groups()[1:] if g is not None)
            strip_tabs = bool(m.group(1))
            key = (delim, strip_tabs)
            if key not in ends:
                ends[key] = [k for k, ln in enumerate(lines) if (ln.lstrip("\t") if strip_tabs else ln) == delim]
            found = ends[key]
            at = bisect.bisect_left(found, i)
            if at >= len(found):
                break
            j = found[at]
            body = lines[i:j]
            i = j + 1
            pieces += [line[last:m.start()], "<<< ", shlex.quote("\n".join(body)), " "]
            last = m.end()
        out.append("".join(pieces) + line[last:])
    return "\n".join(out)


def _prepare(text: str) -> str:
    """Heredocs as here-strings, line continuations joined, ``$IFS`` as a blank,
    backticks as ``$(``/``)``, ``$'..'`` decoded."""
    text = _heredocs(text)
    text = text.replace("\\\r\n", "").replace("\\\n", "").replace("\r\n", "\n")
    if "IFS" in text:
        text = _IFS.sub(" ", text)
    if "$'" in text:
        text = _ANSI_C.sub(_decode_ansi_c, text)
    text = text.replace('$"', '"')
    if "`" in text:
        parts = text.split("`")
        out = [parts[0]]
        for i, part in enumerate(parts[1:]):
            out.append("$(" if i % 2 == 0 else ")")
            out.append(part)
        text = "".join(out)
    return text


def unquote(word: str) -> str:
    """Quote removal as the shell does it (``r""m`` -> ``rm``, ``"a\\"b"`` -> ``a"b``)."""
    if "'" not in word and '"' not in word and "\\" not in word:
        return word
    out: list[str] = []
    for m in _PART.finditer(word):
        single, double, escaped, plain, _lone = m.groups()
        if single is not None:
            out.append(single)
        elif double is not None:
            out.append(_DQ_ESCAPE.sub(r"\1", double) if "\\" in double else double)
        elif escaped is not None:
            out.append(escaped)
        elif plain is not None:
            out.append(plain)
    return "".join(out)


def _tokens(text: str) -> list[str]:
    """Tokens of ``text``."""
    tokens: list[str] = []
    for m in _SCAN.finditer(text):
        kind = m.lastgroup
        if kind == "word":
            tokens.append(unquote(m.group("word")))
        elif kind == "op":
            tokens.append(m.group("op"))
        # blanks separate; a quote that never closes is dropped (bash would refuse the line, but the
        # words after it are still looked at)
    return tokens


def tokenize(text: str) -> list[str]:
    """Words (quotes removed) and operators, as a POSIX shell splits them; linear in the text."""
    return _tokens(_prepare(text))


#: heredocs turned into here-strings per text (each distinct delimiter costs one pass over the lines)
_MAX_HEREDOCS = 64
#: beyond this many nested quotes/substitutions the scanners stop matching pairs (the analysis
#: itself stops at MAX_DEPTH; this only keeps the scanners off Python's recursion limit)
_SCAN_DEPTH = 200


def _skip_quoted(text: str, i: int, depth: int = 0) -> int:
    """Index after the double-quoted string opening at ``text[i]`` (``$(...)`` inside skipped whole)."""
    i += 1
    n = len(text)
    while True:
        m = _DQ_STOPS.search(text, i)
        if m is None:
            return n
        j = m.start()
        ch = text[j]
        if ch == "\\":
            i = j + 2
        elif ch == '"':
            return j + 1
        elif depth >= _SCAN_DEPTH:
            return n
        else:
            i = _substitution_end(text, j + 2, depth + 1)


def _substitution_end(text: str, i: int, depth: int = 0) -> int:
    """Index after the ``)`` closing a ``$(`` whose body starts at ``i``; quoting starts afresh
    inside, as in bash. Unterminated: the end of the text (the rest is the body)."""
    level, n = 1, len(text)
    while True:
        m = _SUB_STOPS.search(text, i)
        if m is None:
            return n
        j = m.start()
        ch = text[j]
        if ch == "\\":
            i = j + 2
        elif ch == "'":
            close = text.find("'", j + 1)
            i = n if close < 0 else close + 1
        elif ch == '"':
            if depth >= _SCAN_DEPTH:
                return n
            i = _skip_quoted(text, j, depth + 1)
        elif ch == "(":
            level += 1
            if level > _SCAN_LEVELS:
                return n
            i = j + 1
        else:
            level -= 1
            if level == 0:
                return j + 1
            i = j + 1


_QUOTE_STOPS = re.compile(r"[\\'\"]")


class _Quoting:
    """Whether a position of a text is single-quoted, as the shell that gets the text would read it;
    positions are asked in increasing order, so the whole text is scanned once."""

    __slots__ = ("at", "double", "single", "text")

    def __init__(self, text: str) -> None:
        self.text, self.at, self.single, self.double = text, 0, False, False

    def single_at(self, pos: int) -> bool:
        text = self.text
        while self.at < pos:
            m = _QUOTE_STOPS.search(text, self.at, pos)
            if m is None:
                self.at = pos
                break
            j, ch = m.start(), m.group()
            if self.single:
                self.single = ch != "'"
            elif ch == "\\":
                j += 1
            elif ch == "'" and not self.double:
                self.single = True
            elif ch == '"':
                self.double = not self.double
            self.at = j + 1
        return self.single

    def skip(self, end: int) -> None:
        """A substitution ends at ``end``: quoting inside it is its own."""
        self.at = max(self.at, end)


def extract_substitutions(text: str, bodies: dict[str, str]) -> str:
    """``text`` with each outermost ``$(...)`` body replaced by a placeholder word, added to
    ``bodies`` (shared by a whole parse, so placeholders stay unique and resolvable at any level).

    A tokenizer knows nothing of ``"$(echo "$(rm -rf /)")"``, where quoting restarts inside ``$(``:
    it would pair the wrong quotes and hide the inner command. Cutting the bodies out first leaves
    the outer text with sane quoting; each body is parsed on its own, one level deeper. The scan
    jumps between quote and ``$(`` characters with a regex, linear in the text at every level, and
    the levels are bounded by MAX_DEPTH.
    """
    if "$(" not in text:
        return text
    out: list[str] = []
    i = start = 0
    n = len(text)
    single = double = False
    while i < n:
        if single:
            close = text.find("'", i)
            if close < 0:
                break
            single, i = False, close + 1
            continue
        m = (_DQ_STOPS if double else _TOP_STOPS).search(text, i)
        if m is None:
            break
        j = m.start()
        ch = text[j]
        if ch == "\\":
            i = j + 2
        elif ch == "'":
            single, i = True, j + 1
        elif ch == '"':
            double, i = not double, j + 1
        else:
            end = _substitution_end(text, j + 2)
            body = text[j + 2:end - 1] if text[end - 1:end] == ")" and end > j + 2 else text[j + 2:end]
            key = f"__ahsub{len(bodies)}__"
            bodies[key] = body
            out.append(text[start:j])
            # unquoted and joined to more of its word (`$(dirname X)/trust.json`): one word, as the
            # shell builds it; quoting it keeps it one word here (only the splitting of its output,
            # which the analysis does not know anyway, differs)
            joined = not double and ((j > 0 and not text[j - 1].isspace() and text[j - 1] not in ";&|()<>")
                                     or (end < len(text) and not text[end].isspace() and text[end] not in ";&|()<>"))
            out.append(f'"$({key})"' if joined else f"$({key})")
            i = start = end
    out.append(text[start:])
    return "".join(out)


#: what parsing counts against the decision's work budget (work.py): a unit per this many words and
#: operators, per simple command made, per this many characters of interpreter code read
TOKENS_PER_UNIT = 1
PARSE_COMMAND = 5
#: and per text parsed (the command line, each substitution, script and function body)
PARSE_TEXT = 4
CODE_CHARS_PER_UNIT = 3
#: tokens read and walked at a time (then to the next separator at the top level)
_STRETCH = 256
_OPENS = frozenset({"(", "<(", ">("})
_SEPARATORS = frozenset({";", "\n", "&&", "||", "&"})
#: how many simple commands one parse looks at; past it the rest is not analysed (the policy
#: blocks such a command as too-large): rules cost some microseconds per command, so this bounds
#: the time of any decision, however the text is made (``a;a;a;...`` of 64 KB is 32,000 commands)
MAX_COMMANDS = 1000
#: and how many words and operators per command it allows on average (past them the command is too large)
MATCHES_PER_COMMAND = 16
#: and how much text, summed over every nesting level (``bash -c`` inside ``python -c`` inside ...
#: parses the same text again, one level deeper each time)
CHARS_PER_COMMAND = 256
#: a ``$(``/``(`` nested deeper than this while scanning is not matched further: the rest of the text
#: is the body (analysis stops at MAX_DEPTH levels anyway); keeps each level's scan short
_SCAN_LEVELS = 256


class _Budget:
    """What one parse may still spend, and what it learnt on the way that later commands use: the
    aliases and functions defined earlier in the same command line."""

    __slots__ = ("aliases", "allexport", "calling", "chars_left", "functions", "left", "tokens_left", "truncated",
                 "work")

    def __init__(self, limit: int, work: Work | None = None) -> None:
        self.allexport = False  # `set -a` seen: every later assignment is exported
        #: the decision's work budget (work.py), shared with the judging that follows
        self.work = Work(PARSE_BUDGET) if work is None else work
        self.left = limit
        self.tokens_left = limit * MATCHES_PER_COMMAND
        self.chars_left = limit * CHARS_PER_COMMAND
        self.truncated = False
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        self.calling: set[str] = set()

    def spend(self, units: int) -> bool:
        """Count ``units`` of work; False (and the parse stops) when the budget is spent."""
        self.work.left -= units
        if self.work.left < 0:
            self.truncated = self.work.spent_out = True
            return False
        return True


#: a function definition: ``name() { body }``, ``function name { body }`` (the body ends at the first
#: ``}``, bounded, as for fork bombs: linear in the text)
_FUNCTION_DEF = re.compile(r"(?:\bfunction\s+([A-Za-z_][\w.-]{0,63})\s*(?:\(\s*\))?|(?<![\w.-])([A-Za-z_][\w.-]{0,63})"
                           r"\s*\(\s*\))\s*\{([^}]{0,4096})\}")
_EMPTY_PARENS = re.compile(r"\(\s*\)")
_POSITIONAL = re.compile(r"\$(?:\{([0-9@*#])\}|([0-9@*#]))")
_PLAIN_WORD = re.compile(r"^[\w~./:@%+=,-]*$")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
_NOT_BRACED = re.compile(r"[\s'\"()]")
#: words one brace expansion may give (``{a,b}{c,d}...``: the product is cut here)
MAX_BRACE_WORDS = 64


def with_positional(text: str, params: list[str]) -> str:
    """``text`` with ``$0``..``$9``, ``$@``, ``$*`` and ``$#`` replaced by ``params`` (``params[0]`` is ``$0``)."""

    def word(value: str) -> str:
        return value if _PLAIN_WORD.match(value) else shlex.quote(value)

    def repl(m: re.Match[str]) -> str:
        key = m.group(1) or m.group(2)
        if key in "@*":
            return " ".join(word(p) for p in params[1:])
        if key == "#":
            return str(max(0, len(params) - 1))
        n = int(key)
        return word(params[n]) if n < len(params) else ""

    return _POSITIONAL.sub(repl, text) if "$" in text else text


def expand_braces(word: str) -> list[str]:
    """Brace expansion as bash does it (``{~,/tmp/x}`` -> ``~``, ``/tmp/x``), at most MAX_BRACE_WORDS words."""
    if "{" not in word or "," not in word or len(word) > 4096 or _NOT_BRACED.search(word):
        return [word]  # blanks, quotes or parentheses: code or text given as one argument, not a brace word
    out = [word]
    for _ in range(8):
        nxt: list[str] = []
        changed = False
        for w in out:
            m = _BRACES.search(w)
            if m is None:
                nxt.append(w)
                continue
            changed = True
            for alt in m.group(1).split(","):
                nxt.append(w[:m.start()] + alt + w[m.end():])
        out = nxt[:MAX_BRACE_WORDS]
        if not changed:
            break
    return out


class _Parser:
    def __init__(self, env: dict[str, str], depth: int, bodies: dict[str, str] | None = None,
                 budget: _Budget | None = None) -> None:
        self.env = env
        self.depth = depth
        self.commands: list[Command] = []
        self.bodies: dict[str, str] = {} if bodies is None else bodies
        self.budget = _Budget(MAX_COMMANDS) if budget is None else budget
        self.defining = False
        #: commands of a ``$(...)`` this shell passes on as text (single-quoted or escaped:
        #: ``sh -c 'echo $(export -p)'``): judged where they are, but no output of theirs is in a
        #: script this shell hands to another (ids of the commands)
        self.literal: set[int] = set()

    def parse(self, text: str) -> list[Command]:
        budget = self.budget
        budget.chars_left -= len(text)
        if budget.chars_left < 0 or not budget.spend(PARSE_TEXT):
            budget.truncated = budget.work.spent_out = True
            return self.commands
        # the definition pattern tries every word of the text: only where one can be (`()`, `function`)
        if "function" in text or _EMPTY_PARENS.search(text):
            for m in itertools.islice(_FUNCTION_DEF.finditer(text), 64):
                budget.functions.setdefault(m.group(1) or m.group(2), m.group(3))
        text = extract_substitutions(_prepare(text), self.bodies)
        # read and walk the tokens a stretch at a time, each stretch ending after a separator at the
        # top level (where the walk keeps nothing from before): once the command cap is reached,
        # the rest of the text is never read
        matches = _SCAN.finditer(text)
        more = True
        while more and not budget.truncated:
            tokens: list[str] = []
            depth = cut = whole = 0
            more = False
            room = budget.work.left * TOKENS_PER_UNIT  # the words the work budget still pays for
            for m in matches:
                kind = m.lastgroup
                if kind == "word":
                    tok = unquote(m.group("word"))
                elif kind == "op":
                    tok = m.group("op")
                else:
                    continue
                budget.tokens_left -= 1
                if budget.tokens_left < 0 or len(tokens) >= room:
                    # out of words or of work: the complete commands before are still judged
                    # (the words are counted after: the commands they make are paid for first)
                    budget.work.spent_out = True
                    self._walk(tokens[:whole], 0, None)
                    budget.work.left -= whole // TOKENS_PER_UNIT
                    budget.truncated = True
                    return self.commands
                tokens.append(tok)
                if kind == "op":
                    if tok in _OPENS:
                        depth += 1
                    elif tok == ")":
                        depth = max(0, depth - 1)
                    elif depth == 0 and tok in _SEPARATORS:
                        cut = whole = len(tokens)
                        if cut >= _STRETCH:
                            more = True
                            break
                    elif depth == 0 and tok in ("|", "|&"):
                        whole = len(tokens)
            if not budget.spend(len(tokens) // TOKENS_PER_UNIT):
                return self.commands
            self._walk(tokens, 0, None)
        return self.commands

    def _walk(self, tokens: list[str], i: int, closing: str | None) -> int:
        """Parse until ``)`` (when ``closing``) or the end; returns the index after it."""
        words: list[str] = []
        redirects: list[tuple[str, str]] = []
        feeders: list[Command] = []
        subs: list[Command] = []
        pipe_from: Command | None = None
        last: Command | None = None
        comment = False

        def flush() -> Command | None:
            nonlocal words, redirects, feeders, subs, pipe_from
            cmd = None
            if words or redirects:
                cmd = self._command(words, redirects, feeders + ([pipe_from] if pipe_from else []), subs)
            words, redirects, feeders, subs, pipe_from = [], [], [], [], None
            return cmd

        n = len(tokens)
        budget = self.budget
        while i < n:
            if budget.truncated:
                return n
            tok = tokens[i]
            if not comment and tok not in _SPECIAL and tok[:1] != "#" and tok[-1:] != "$" and "(" not in tok:
                words.append(tok)  # the common case, a plain word: no branch below applies
                i += 1
                continue
            if comment and tok not in (";", "\n", "&&", "||", "&", "|", ")"):
                i += 1
                continue
            comment = False
            if tok in (";", "\n", "&&", "||", "&", ";;"):
                flush()
                last = None
                i += 1
            elif tok in ("|", "|&"):
                cmd = flush()
                last = cmd or last
                pipe_from = last
                i += 1
            elif tok == ")":
                if closing:
                    flush()
                    return i + 1
                i += 1
            elif tok == "(" and words:
                # PowerShell's `iex (iwr ...)`: a group as an argument, its commands feed this one
                # (`f() {`, a function definition, has an empty group: f stands alone, its body follows)
                before = len(self.commands)
                i = self._walk(tokens, i + 1, ")")
                group = self.commands[before:]
                if group:
                    subs.extend(group)
                    words.append("$(...)")
                else:
                    self.defining = True  # `f() {...}` names f, it does not call it
                    last = flush() or last
                    self.defining = False
            elif tok == "(":
                # a subshell or a function definition body: parse it as commands of their own
                held = pipe_from
                flush()
                before = len(self.commands)
                i = self._walk(tokens, i + 1, ")")
                group = self.commands[before:]
                if held is not None and group:
                    group[0].feeders.append(held)
                last = group[-1] if group else last
            elif tok in ("<(", ">("):
                before = len(self.commands)
                i = self._walk(tokens, i + 1, ")")
                if tok == "<(":
                    feeders.extend(self.commands[before:])
                words.append("/dev/fd/63")
            elif tok in (">", ">>", "<", ">|", "&>", "&>>", "<<", "<<<", ">&", "<&"):
                target = tokens[i + 1] if i + 1 < n else ""
                if target in ("(",) or _is_operator(target):
                    target = ""
                    i += 1
                else:
                    i += 2
                if words and words[-1].isdigit() and tok in (">", ">>", "<", ">&", "<&"):
                    words.pop()  # "2>" : the fd number is not an argument
                redirects.append((tok, self._expand(target)))
            elif (tok == "$" or tok.endswith("$")) and i + 1 < n and tokens[i + 1] == "(":
                if tok != "$":
                    words.append(tok[:-1])
                if i + 3 < n and tokens[i + 2] in self.bodies and tokens[i + 3] == ")":
                    new = self._sub(tokens[i + 2])
                    i += 4
                else:
                    before = len(self.commands)
                    i = self._walk(tokens, i + 2, ")")
                    new = self.commands[before:]
                subs.extend(new)
                # $(echo rm) -rf /: what a substitution prints, when that is known, is the word
                printed = static_output(new)
                if printed is not None and printed.split():
                    words.extend(printed.split())
                else:
                    words.append("$(...)")
            elif tok.startswith("#") and not words:
                comment = True
                i += 1
            else:
                if "$(" in tok or "<(" in tok:
                    found, tok = self._nested_substitutions(tok)
                    subs.extend(found)
                words.append(tok)
                i += 1
        flush()
        return i

    def _nested_substitutions(self, word: str) -> tuple[list[Command], str]:
        """Commands inside ``$(...)`` within one (quoted) word (at most a few dozen: the rest of a
        word made of thousands is one more reason for the size limit, not for quadratic work), and
        the word with each ``$(...)`` whose output is known replaced by it (``"$(pwd)/x"``)."""
        found: list[Command] = []
        start = look = 0
        out: list[str] = []
        quoting = _Quoting(word)
        for _ in range(32):
            j = word.find("$(", look)
            k = word.find("<(", look)
            pos = min(p for p in (j, k) if p >= 0) if max(j, k) >= 0 else -1
            if pos < 0:
                break
            end = _substitution_end(word, pos + 2)
            body = word[pos + 2:end - 1] if word[end - 1:end] == ")" else word[pos + 2:end]
            literal = body.strip() not in self.bodies  # every $( this shell expands is a placeholder by now
            if literal and quoting.single_at(pos):
                # text again for the shell that gets this word, single-quoted there too: that shell
                # does not substitute it either (its own parse, if it is one, says what it runs)
                look = pos + 2
                continue
            quoting.skip(end)
            look = end
            new = self._sub(body)
            found.extend(new)
            if literal:
                self.literal.update(map(id, new))
            printed = static_output(new) if pos == j else None
            out.append(word[start:pos])
            out.append(printed.strip() if printed is not None and printed.strip() else word[pos:end])
            start = end
        out.append(word[start:])
        return found, "".join(out)

    def _sub(self, text: str) -> list[Command]:
        for _ in range(len(self.bodies)):  # a placeholder (or one standing for another); bounded:
            if text.strip() not in self.bodies:  # the command line may spell a placeholder itself
                break
            text = self.bodies[text.strip()]
        if self.depth >= MAX_DEPTH:
            cmd = Command([TOO_DEEP], raw=[text])
            self.commands.append(cmd)
            return [cmd]
        inner = _Parser(self.env, self.depth + 1, self.bodies, self.budget)
        cmds = inner.parse(text)
        self.commands.extend(cmds)
        return cmds

    def _expand(self, word: str) -> str:
        if "$" not in word or not self.env:
            return word

        def repl(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            return self.env.get(name, m.group(0))

        return _VAR.sub(repl, word)

    def _command(self, words: list[str], redirects: list[tuple[str, str]], feeders: list[Command],
                 subs: list[Command], via: str = "") -> Command | None:
        self.budget.left -= 1
        if self.budget.left < 0 or not self.budget.spend(PARSE_COMMAND):
            self.budget.truncated = True
            return None
        expanded: list[str] = []
        budget = self.budget
        if words and budget.aliases and words[0] in budget.aliases and words[0] not in budget.calling:
            value = budget.aliases[words[0]]
            budget.chars_left -= len(value)  # every use is read again: it counts like nested text
            if budget.chars_left < 0:
                budget.truncated = budget.work.spent_out = True
                return None
            words = [*tokenize(value), *words[1:]]
        ifs = self.env.get("IFS")
        for w in [b for word in words for b in expand_braces(word)]:
            x = self._expand(w)
            # c='rm -rf /'; $c : an unquoted variable splits into words (quoted or not, judge the words),
            # at the characters of an IFS set earlier in the line too (IFS=,; c=rm,-rf,~; $c)
            if x != w and _VAR.fullmatch(w) and ifs and len(ifs) <= 16:
                x = re.sub("[" + re.escape(ifs) + "]", " ", x)
            expanded.extend(x.split() if x != w and _VAR.fullmatch(w) and x.split() else [x])
        words = expanded
        raw = list(words)
        if words and words[0] == "set":
            for opt, nxt in zip(words[1:], [*words[2:], ""], strict=False):
                if opt[:1] in "-+" and opt[1:2] != "-" and ("a" in opt[1:] or (opt[1:] == "o" and nxt == "allexport")):
                    budget.allexport = opt[0] == "-"
        # leading assignments: remembered when they are the whole command (X=rm; $X -rf /)
        k = 0
        while k < len(words) and _ASSIGNMENT.match(words[k]):
            k += 1
        if k == len(words):
            for w in words:
                name, _, value = w.partition("=")
                self.env[name] = value
            if budget.allexport or any(_INHERITED.match(w) for w in words):
                # agent-hooks' own variables change what every command started later loads: judged as
                # the export they may amount to (an exported variable stays exported when reassigned)
                words = raw = ["export", *words]
                k = 0
            elif not redirects:
                return None
        rest = words[k:]
        while rest and rest[0] in _RESERVED:
            rest = rest[1:]
        if rest and "/" in rest[0] and any(ch in rest[0] for ch in "*?[") and len(rest[0]) <= 256:
            # /bin/r[m]: the shell globs a command path against the file system before running it
            import glob

            hit = next(glob.iglob(rest[0]), None)
            if hit is not None:
                rest = [hit, *rest[1:]]
        argv, wrappers = unwrap(rest)
        if not argv and not redirects and not wrappers:
            return None
        if argv and argv[0] in ("for", "select") and len(argv) > 2 and argv[2] == "in":
            self.env[argv[1]] = " ".join(argv[3:])  # $d then splits into every word the loop gives it
        if argv and argv[0] == "alias":
            for w in argv[1:]:
                name, eq, value = w.partition("=")
                if eq and name:
                    budget.aliases[name] = value
        if argv and argv[0] in budget.functions and argv[0] not in budget.calling and not self.defining \
                and self.depth < MAX_DEPTH:
            # a function defined earlier in the line: judged on its body with these arguments
            budget.calling.add(argv[0])
            try:
                self._sub(with_positional(budget.functions[argv[0]], argv))
            finally:
                budget.calling.discard(argv[0])
        if argv and argv[0] == "export":
            for w in argv[1:]:
                if _ASSIGNMENT.match(w):
                    name, _, value = w.partition("=")
                    self.env[name] = value
        cmd = Command(argv, redirects, list(feeders), wrappers, raw=raw, subs=list(subs), via=via)
        # the command's position comes before what it runs, so rules see the outer command first
        self.commands.append(cmd)
        if argv and argv[0] == "$(...)":
            self._dynamic(f"the command name is the output of {subs[0].name if subs else 'a command'}, known only "
                          f"at run time", wrappers)
        script = _script_of(argv)
        if script is not None and subs and _ONLY_SUBSTITUTIONS.match(script):
            script = None  # eval "$(...)": what it runs is the substitution's output (script_sources below)
            cmd.script_from = [s for s in subs if s.name]
        if script is not None:
            inner_before = len(self.commands)
            idx = shell_script_flag(argv)
            if idx is not None and len(argv) > idx + 1:
                script = with_positional(script, argv[idx + 1:])
            self._sub(script)
            for inner in self.commands[inner_before:]:
                inner.wrappers = [*wrappers, argv[0], *inner.wrappers]
            cmd.script_from = [s for s in subs if s.name and id(s) not in self.literal]
        elif argv and argv[0] in SHELLS | {"source", "."} and subs:
            cmd.script_from = [s for s in subs if id(s) not in self.literal]
        if argv and argv[0] in _SCRIPT_HOSTS and (
                cmd.script_from or (script is None and reads_stdin_as_script(cmd))):
            sources = list(cmd.script_from)
            if script is None and reads_stdin_as_script(cmd):
                sources += cmd.feeders
                here = [t for op, t in redirects if op in ("<<<",)]
                for text in here:
                    self._derived(Derived("shell", text=text, via=f"{argv[0]} <<<"), wrappers)
            for d in script_sources(cmd, sources):
                self._derived(d, wrappers)
        if argv and (argv[0] in DERIVING or argv[0].startswith("python") or "xargs" in wrappers):
            # interpreter code is read by a dozen patterns (or parsed): it counts by its size
            if not budget.spend(sum(map(len, code_of(cmd)[1])) // CODE_CHARS_PER_UNIT):
                return cmd
            for d in derive(cmd):
                self._derived(d, wrappers)
        return cmd

    def _dynamic(self, why: str, wrappers: list[str]) -> None:
        self.commands.append(Command([DYNAMIC], raw=[why], wrappers=list(wrappers)))

    def _derived(self, d: Derived, wrappers: list[str]) -> None:
        """Add what a command runs besides itself (interpreter code, find -exec, ...), one level deeper."""
        if d.kind == "dynamic":
            self._dynamic(d.text, wrappers)
            return
        if self.depth >= MAX_DEPTH:
            self.commands.append(Command([TOO_DEEP], raw=[d.text or " ".join(d.argv)]))
            return
        before = len(self.commands)
        if d.kind == "shell":
            self._sub(d.text)
        elif d.argv:
            inner = _Parser(self.env, self.depth + 1, self.bodies, self.budget)
            inner._command(list(d.argv), [], [], [], via=d.via)
            self.commands.extend(inner.commands)
        for c in self.commands[before:]:
            c.via = c.via or d.via
            c.wrappers = [*wrappers, *c.wrappers]


def _is_operator(tok: str) -> bool:
    return bool(tok) and all(c in "();<>|&\n" for c in tok)


def unwrap(words: list[str]) -> tuple[list[str], list[str]]:
    """Peel wrappers off: ``(argv, wrappers)``; ``argv[0]`` is a basename."""
    wrappers: list[str] = []
    argv = list(words)
    for _ in range(16):
        if not argv:
            break
        name = os.path.basename(argv[0]) if "/" in argv[0] else argv[0]
        argv[0] = name
        if name in ("busybox", "toybox") and len(argv) > 1 and argv[1] not in SHELLS:
            wrappers.append(name)
            argv = argv[1:]
            continue
        if (name in _RUNNERS or name in _PACKAGE_RUNNERS) and _runs_remote_package(argv):
            break  # uvx --from git+https://...: the runner installs remote code first; judged as itself
        if name in _RUNNERS and len(argv) > 2 and argv[1] == _RUNNERS[name]:
            wrappers.append(name)
            argv = [a for a in argv[2:]]
            while argv and argv[0].startswith("-") and argv[0] != "--":
                argv = argv[1:]  # runner options (a value-taking one may leave its value: judged as the name)
            if argv and argv[0] == "--":
                argv = argv[1:]
            continue
        if name not in WRAPPERS:
            break
        if name == "command" and any(a in ("-v", "-V") for a in argv[1:2]):
            break  # `command -v rm` looks a name up, it runs nothing
        takes_value = WRAPPERS[name]
        rest = argv[1:]
        j = 0
        while j < len(rest):
            a = rest[j]
            if a == "--":
                j += 1
                break
            if name == "env" and _ASSIGNMENT.match(a):
                j += 1
                continue
            if name == "env" and (a in ("-S", "--split-string") or a.startswith(("--split-string=", "-S"))):
                # env -S "rm -rf /": the string is split into the command and its arguments
                value = a.split("=", 1)[1] if a.startswith("--split-string=") else a[2:] if len(a) > 2 and \
                    a.startswith("-S") else rest[j + 1] if j + 1 < len(rest) else ""
                skip = 1 if (a.startswith("--split-string=") or (len(a) > 2 and a.startswith("-S"))) else 2
                rest = [*rest[:j], *tokenize(value), *rest[j + skip:]]
                continue
            if a.startswith("-") and len(a) > 1:
                if a in takes_value:
                    j += 2
                    continue
                if a.startswith("--") and "=" in a:
                    j += 1
                    continue
                if name in ("nice", "xargs", "time") and len(a) > 2 and a[:2] in takes_value:
                    j += 1  # -n10, -I{}
                    continue
                if name == "nice" and a[1:].isdigit():
                    j += 1
                    continue
                j += 1
                continue
            break
        rest = rest[j:]
        skip = _WRAPPER_POSITIONALS.get(name, 0)
        if name == "taskset" and rest and rest[0].startswith("-"):
            skip = 0
        rest = rest[skip:]
        if not rest:
            break  # `env`, `nohup` alone: the wrapper is the command (env prints the environment)
        wrappers.append(name)
        argv = rest
    if argv and "/" in argv[0]:
        argv[0] = os.path.basename(argv[0])
    return argv, wrappers


def shell_script_flag(argv: list[str]) -> int | None:
    """Index of the ``-c`` script argument of a shell invocation, else None."""
    if not argv or argv[0] not in SHELLS:
        return None
    args = argv[1:]
    if argv[0] == "busybox":
        if not args or args[0] not in SHELLS:
            return None
        args = args[1:]
    offset = len(argv) - len(args)
    saw_c = False
    for j, a in enumerate(args):
        if a == "--":
            continue
        if a.startswith("-") and not a.startswith("--") and len(a) > 1:
            if "c" in a[1:]:
                saw_c = True
            continue
        if a.startswith("+") or a.startswith("--"):
            continue
        return offset + j if saw_c else None
    return None


def _script_of(argv: list[str]) -> str | None:
    """The command text a shell, eval, su -c or watch would run, if any."""
    if not argv:
        return None
    name = argv[0]
    idx = shell_script_flag(argv)
    if idx is not None:
        return argv[idx]
    if name == "eval":
        return " ".join(argv[1:])
    if name == "su":
        for j, a in enumerate(argv[1:-1], start=1):
            if a in ("-c", "--command"):
                return argv[j + 1]
        return None
    if name == "watch":
        j = 1
        while j < len(argv) and argv[j].startswith("-"):
            j += 2 if argv[j] in ("-n", "--interval", "-d", "-q", "--equexit") and argv[j] != "-d" else 1
        return " ".join(argv[j:]) or None
    if name == "script":
        for j, a in enumerate(argv[1:-1], start=1):
            if a in ("-c", "--command") or (a.startswith("-") and not a.startswith("--") and a.endswith("c")):
                return argv[j + 1]
        return None
    if name == "ssh":
        return _ssh_command(argv)
    return None


_SSH_VALUED = frozenset("bcDEeFIiJLlmOoPpQRSWw")


def _ssh_command(argv: list[str]) -> str | None:
    """The command ``ssh [options] host command...`` runs on the other host (judged like a local one:
    it is somebody's home there too)."""
    j = 1
    while j < len(argv) and argv[j].startswith("-"):
        a = argv[j]
        j += 2 if len(a) == 2 and a[1] in _SSH_VALUED else 1
    return " ".join(argv[j + 1:]) or None if j + 1 < len(argv) else None


def parse(text: str) -> list[Command]:
    """Every simple command ``text`` would run, nested ones included, in order of appearance."""
    return _Parser({}, 0).parse(text)


def parse_bounded(text: str, max_commands: int = MAX_COMMANDS, work: Work | None = None
                  ) -> tuple[list[Command], bool]:
    """:func:`parse`, stopping after ``max_commands`` simple commands or when ``work`` (the decision's
    budget; a fresh one by default) is spent: ``(commands, truncated)``."""
    parser = _Parser({}, 0, budget=_Budget(max_commands, work))
    commands = parser.parse(text)
    return commands, parser.budget.truncated


#: what a script argument reads when it is stdin or a process substitution (`bash <(curl ...)`)
_STDIN = frozenset({"/dev/stdin", "/dev/fd/0", "/dev/fd/63", "-"})


def reads_stdin_as_script(cmd: Command) -> bool:
    """A shell or interpreter that executes what arrives on stdin (``... | sh``)."""
    name, args = cmd.name, cmd.args
    if name in SHELLS:
        if name == "busybox":
            if not args or args[0] not in SHELLS:
                return False
            args = args[1:]
        if shell_script_flag(cmd.argv) is not None:
            return False
        positional = [a for a in args if not a.startswith("-") and not a.startswith("+")]
        return not positional or "-s" in args or positional[0] in _STDIN
    if name in INTERPRETERS or re.fullmatch(r"python\d(\.\d+)?", name):
        positional = [a for a in args if not a.startswith("-")]
        return not positional or "-" in args or positional[0] in _STDIN
    if name in ("source", "."):
        return bool(args) and args[0] in _STDIN
    return False
