"""What a command runs besides itself: interpreter one-liners, ``find -exec``, ``xargs``,
``python -m``, text piped or passed to a shell, git's command-valued settings.

:func:`derive` looks at one parsed :class:`~agent_hooks_guard.shell.Command` and returns what it
would also run, as :class:`Derived` items the parser turns into commands of their own:

* ``shell``: command text (``os.system('rm -rf /')`` -> ``rm -rf /``), parsed one level deeper;
* ``argv``: an argument vector (``shutil.rmtree('/')`` -> ``rm -rf /``, ``open('.env')`` -> ``cat .env``);
* ``dynamic``: something runs text built at run time (``exec(base64...)``, ``eval "$(python gen.py)"``):
  the ``dynamic-exec`` rule decides it by policy (blocked in enforce mode, asked with a UI).

Interpreter code is not executed or parsed as a language: linear regexes find the calls that run
commands, delete, write or read files, and their literal arguments. Code that merely prints is left
alone, so ``python3 -c "print('rm -rf /')"`` passes.
"""

from __future__ import annotations

import base64
import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Command


@dataclass(frozen=True)
class Derived:
    kind: str
    """shell, argv or dynamic"""
    text: str = ""
    argv: tuple[str, ...] = ()
    via: str = ""
    """how it was found (``python3 -c``), for the reason"""


#: code bigger than this is judged on its first part only (the command size limit bounds it anyway)
CODE_LIMIT = 65536

_PY = re.compile(r"python(?:\d+(?:\.\d+)?)?w?$|pypy\d*$")
_NODE = frozenset({"node", "nodejs", "bun", "deno"})
_AWK = frozenset({"awk", "gawk", "mawk", "nawk"})
_STR = r"""(?:[rRbBuU]{0,2})(?:'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")"""
_LITERAL = re.compile(r"\s*\(?\s*(" + _STR + r")")
_LIST = re.compile(r"\s*\(?\s*\[([^\]]{0,4096})\]")
_STRINGS = re.compile(_STR)
#: ``spawnSync("rm", ["-rf", "/x"])`` (Node), ``pcntl_exec("/bin/rm", ["-rf", "/x"])`` (PHP): a program, then its
#: arguments as an array of literals
_PROGRAM_AND_ARRAY = re.compile(r"\s*\(\s*(" + _STR + r")\s*,\s*\[([^\]]{0,4096})\]")
#: ``system("rm", "-rf", $dir)`` (Perl, Ruby): a literal program, then more arguments, each a literal
#: or an expression (no parentheses, at most 64 of them)
_EXPR = r"[^,()'\"\n;\s](?:[^,()'\"\n;]{0,254}[^,()'\"\n;\s])?"  # no blank at either end: one way to split
_ARGV_CALL = re.compile(r"\s*\(?\s*(" + _STR + r")((?:\s*,\s*(?:" + _STR + "|" + _EXPR + r")){1,63})\s*[),;\n]")
_ARGV_ITEM = re.compile(r"\s*,\s*(" + _STR + "|" + _EXPR + ")")
#: the home directory as Perl and Ruby write it
_HOME_VALUE = re.compile(r"""\$ENV\{\s*['"]?HOME['"]?\s*\}|ENV\[\s*['"]HOME['"]\s*\]|Dir\.home\b""")
_HOME_EXPR = re.compile(
    r"""\s*\(?\s*(?:(?:os\.path\.expanduser|File\.expand_path)\(\s*(['"])(~[^'"]*)\1\s*\)|(?:pathlib\.)?Path\.home\(\)|(?:require\(\s*['"](?:node:)?os['"]\s*\)|os)\.homedir\(\)"""
    r"""|os\.environ\[\s*['"]HOME['"]\s*\]|os\.getenv\(\s*['"]HOME['"]\s*\)|process\.env\.HOME|ENV\[\s*['"]HOME['"]\s*\]"""
    r"""|\$ENV\{\s*['"]?HOME['"]?\s*\}|Dir\.home|Deno\.env\.get\(\s*['"]HOME['"]\s*\)|getenv\(\s*['"]HOME['"]\s*\)|\$_SERVER\[\s*['"]HOME['"]\s*\])"""
    r"""(?:\s*(?:/|\+)\s*(['"])([^'"]*)\3)?""")
#: code naming the home or the working directory as a root (a delete there with a computed path is broad)
_BROAD_ROOT = re.compile(r"""\$ENV\{\s*['"]?HOME|ENV\[\s*['"]HOME|Dir\.(?:home|pwd)\b|homedir\(\)|process\.cwd\(\)"""
                         r"""|getcwd\(|Path\.(?:home|cwd)\(\)|expanduser\(|expand_path\(\s*['"]~|getenv\(\s*['"]HOME"""
                         r"""|\$_SERVER\[\s*['"]HOME|Deno\.(?:cwd\(\)|env\.get\(\s*['"]HOME)""")
_PATH_CALL = re.compile(r"\s*\(?\s*(?:pathlib\.)?Path\(\s*(" + _STR + r")\s*\)")


#: calls that move, copy or link one path to another (Node's fs, Ruby's File and FileUtils, Perl and
#: PHP builtins, Python's os and shutil past the AST limit): with both paths literal, judged as the
#: mv, cp or ln that does the same
_TWO_PATHS = tuple((re.compile(r"(?<![\w$])(?:" + names + r")(?=\s*\(|\s+['\"])"), argv) for names, argv in (
    (r"renameSync|rename|moveSync|move|mv", ("mv",)),
    (r"copyFileSync|copyFile|cpSync|copyfile|copy2|copytree|copy|cp_r|cp", ("cp",)),
    (r"symlinkSync|symlink|ln_sf|ln_s", ("ln", "-s")),
    (r"linkSync|link|ln", ("ln",)),
))
_TWO_LITERALS = re.compile(r"\s*\(?\s*(" + _STR + r")\s*,\s*(" + _STR + r")")


def _unstring(lit: str) -> str:
    prefix = re.match(r"[rRbBuU]{0,2}", lit)
    raw = "r" in (prefix.group().lower() if prefix else "")
    body = lit[len(prefix.group()) if prefix else 0:][1:-1]
    if raw or "\\" not in body:
        return body
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return body


def _first_arg(code: str, pos: int) -> tuple[str, str | list[str] | None]:
    """The first argument of the call whose name ends at ``pos``: ``("str", text)``,
    ``("list", [words])``, or ``("computed", None)``."""
    m = _HOME_EXPR.match(code, pos)
    if m:
        base = m.group(2) or "~"
        tail = m.group(4)
        return "str", f"{base.rstrip('/')}/{tail.lstrip('/')}" if tail else base
    m = _PATH_CALL.match(code, pos)
    if m:
        return "str", _unstring(m.group(1))
    m = _LITERAL.match(code, pos)
    if m:
        lit = m.group(1)
        if lit[:1] in "fF" or (lit[:2].lower() in ("rf", "fr")):
            return "computed", None
        rest = code[m.end():m.end() + 3].lstrip()
        if rest[:1] in ("+", "%", ".") and not rest.startswith(".."):
            return "computed", None  # 'rm -rf ' + path, "%s" % x, '...'.format(...)
        return "str", _unstring(lit)
    m = _LIST.match(code, pos)
    if m:
        body = m.group(1)
        words = [_unstring(s) for s in _STRINGS.findall(body)]
        leftover = _STRINGS.sub("", body).replace(",", "").strip()
        return ("list", words) if words and not leftover else ("computed", None)
    return "computed", None


@dataclass(frozen=True)
class _Lang:
    shell: re.Pattern[str]
    """calls whose first argument is a command (text: a shell line; a list: argv)"""
    code_eval: re.Pattern[str] | None
    """calls that run their argument as code of the same language"""
    delete_tree: re.Pattern[str] | None
    delete: re.Pattern[str] | None
    write: re.Pattern[str] | None
    read: re.Pattern[str] | None
    fetch: re.Pattern[str] | None


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_LANGS: dict[str, _Lang] = {
    "python": _Lang(
        shell=_rx(r"\b(?:os\.(?:system|popen\d?|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)|subprocess\.(?:run|call|"
                  r"check_call|check_output|Popen|getoutput|getstatusoutput)|pty\.spawn|commands\.getoutput)(?=\s*\()"
                  r"|(?<=\))\.(?:system|popen|exec[lv]p?e?)(?=\s*\()"),
        code_eval=_rx(r"(?<![\w.])(?:exec|eval)(?=\s*\()"),
        delete_tree=_rx(r"\b(?:shutil\.)?rmtree(?=\s*\()"),
        delete=_rx(r"\bos\.(?:remove|unlink|rmdir|removedirs)(?=\s*\()"),
        write=_rx(r"(?<![\w.])open(?=\s*\(\s*" + _STR + r"\s*,\s*(?:mode\s*=\s*)?[rRbBuU]?['\"][^'\"]*[wax+])"
                  r"|\.write_(?:text|bytes)(?=\s*\()"),
        read=_rx(r"(?<![\w.])open(?=\s*\(\s*" + _STR + r"\s*(?:\)|,\s*(?:mode\s*=\s*)?['\"][rbt]*['\"]))"
                 r"|\.read_(?:text|bytes)(?=\s*\()"),
        fetch=_rx(r"\b(?:urlopen|urlretrieve|requests\.(?:get|post|put|request)|httpx\.(?:get|post|put|stream))(?=\s*\()"),
    ),
    "perl": _Lang(
        shell=_rx(r"(?<![\w$@%])(?:system|exec)\b"),
        code_eval=_rx(r"(?<![\w$@%])eval(?=\s*[\"'$(])"),
        delete_tree=_rx(r"\b(?:rmtree|remove_tree)\b"),
        delete=_rx(r"(?<![\w$@%])unlink\b"),
        write=None, read=None,
        fetch=_rx(r"\b(?:LWP::Simple::)?(?:get|getstore|mirror)(?=\s*\()"),
    ),
    "ruby": _Lang(
        shell=_rx(r"(?<![\w$@])(?:Kernel\.)?(?:system|exec|spawn)\b|\bIO\.popen\b|\bOpen3\.\w+"),
        code_eval=_rx(r"(?<![\w.])(?:eval|instance_eval|class_eval)(?=\s*[(\"'])"),
        delete_tree=_rx(r"\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|rmtree)\b"),
        delete=_rx(r"\b(?:File\.(?:delete|unlink)|FileUtils\.rm(?:_f)?)\b"),
        write=_rx(r"\bFile\.write\b|\bFile\.open(?=\s*\(?\s*" + _STR + r"\s*,\s*['\"][wa])"),
        read=_rx(r"\b(?:File|IO)\.(?:read|readlines|binread|foreach)\b"),
        fetch=_rx(r"\b(?:URI\.open|Net::HTTP\.(?:get|get_response|post_form|post)|open-uri)\b"),
    ),
    "node": _Lang(
        shell=_rx(r"\b(?:execSync|exec|spawnSync|spawn|execFileSync|execFile|\$)(?=\s*\()|\bBun\.spawn(?:Sync)?\b"
                  r"|\bDeno\.Command\b"),
        code_eval=_rx(r"(?<![\w.])(?:eval|Function)(?=\s*\()"),
        delete_tree=_rx(r"\b(?:rmSync|rmdirSync|rm|rmdir|removeSync|remove)(?=\s*\((?:[^()]|\([^()]{0,256}\)){0,4096}"
                        r"recursive\s*:\s*true)"),
        delete=_rx(r"\b(?:unlinkSync|unlink|rmSync)(?=\s*\()"),
        write=_rx(r"\b(?:writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream)(?=\s*\()"),
        read=_rx(r"\b(?:readFileSync|readFile|createReadStream)(?=\s*\()"),
        fetch=_rx(r"\b(?:fetch|https?\.get|https?\.request|axios\.(?:get|post))(?=\s*\()"),
    ),
    "php": _Lang(
        shell=_rx(r"(?<![\w$>:])(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)(?=\s*\()"),
        code_eval=_rx(r"(?<![\w$>:])(?:eval|assert)(?=\s*\()"),
        delete_tree=None,
        delete=_rx(r"(?<![\w$>:])(?:unlink|rmdir)(?=\s*\()"),
        write=_rx(r"(?<![\w$>:])file_put_contents(?=\s*\()"),
        read=_rx(r"(?<![\w$>:])(?:file_get_contents|readfile|file|highlight_file|show_source)(?=\s*\()"),
        fetch=_rx(r"(?<![\w$>:])curl_init(?=\s*\()"),
    ),
    "lua": _Lang(
        shell=_rx(r"\b(?:os\.execute|io\.popen)(?=\s*\(?\s*['\"\[])"),
        code_eval=_rx(r"(?<![\w.])(?:loadstring|load|dofile)(?=\s*\()"),
        delete_tree=None,
        delete=_rx(r"\bos\.remove(?=\s*\()"),
        write=None, read=None, fetch=None,
    ),
    "awk": _Lang(shell=_rx(r"\bsystem(?=\s*\()"), code_eval=None, delete_tree=None, delete=None, write=None,
                 read=None, fetch=None),
}
#: reading the process environment in Node, Ruby, Perl, PHP, Lua
_ENV_ACCESS = re.compile(r"\bprocess\.env\b|\bENV\b|%ENV\b|\$ENV\{|\bgetenv\s*\(|\$_ENV\b|\$_SERVER\b|\bos\.getenv\b")
_AWK_PIPE_OUT = re.compile(r"\|\s*(\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\")")
_AWK_PIPE_IN = re.compile(r"(\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\")\s*\|\s*getline")
_PERL_OPEN = re.compile(r"\bopen\s*\(?\s*(?:my\s+)?[\w$]+\s*,\s*(?:(['\"])([<>+]{0,2})\1\s*,\s*)?(" + _STR + r")")


def language(name: str) -> str | None:
    if _PY.match(name):
        return "python"
    if name in _NODE:
        return "node"
    if name in ("perl", "ruby", "php"):
        return name
    if name in _AWK:
        return "awk"
    if name in ("lua", "luajit", "lua5.1", "lua5.3", "lua5.4"):
        return "lua"
    if name in ("tclsh", "wish", "expect") or name.startswith("tclsh"):
        return "tcl"
    return None


def code_of(cmd: Command) -> tuple[str, list[str]]:
    """``(language, code texts)`` of an interpreter invocation (``-c``, ``-e``, ``-r``, an awk program,
    a script read from a here-string); ``("", [])`` when it runs none inline."""
    lang = language(cmd.name)
    if lang is None:
        return "", []
    args = cmd.args
    codes: list[str] = []
    if lang == "awk":
        j = 0
        while j < len(args):
            a = args[j]
            if a in ("-f", "--file"):
                return lang, []
            if a in ("-F", "-v", "--assign", "--field-separator"):
                j += 2
                continue
            if a.startswith("-") and a != "-":
                j += 1
                continue
            codes.append(a)
            break
        return lang, codes
    flags = {"python": ("-c",), "node": ("-e", "--eval", "-p", "--print"), "perl": ("-e", "-E"), "lua": ("-e",),
             "tcl": ("-c",),
             "ruby": ("-e",), "php": ("-r",)}[lang]
    j = 0
    stdin_script = True
    while j < len(args):
        a = args[j]
        if a in flags or (lang in ("perl", "ruby") and a.startswith("-") and not a.startswith("--")
                          and a[-1] in "eE" and len(a) > 2 and a[1] not in "IMmr"):
            if j + 1 < len(args):
                codes.append(args[j + 1])
            stdin_script = False
            j += 2
            if lang == "python":
                break  # the rest are sys.argv
            continue
        if lang == "python" and a.startswith("-") and not a.startswith("--") and a.endswith("c") and len(a) > 2:
            if j + 1 < len(args):
                codes.append(args[j + 1])  # -Ic, -uc
            stdin_script = False
            break
        if lang == "node" and a == "eval" and cmd.name == "deno" and j + 1 < len(args):
            codes.append(args[j + 1])
            stdin_script = False
            break
        if a == "-" or not a.startswith("-"):
            stdin_script = a == "-"
            break
        j += 1
    if stdin_script:
        codes += [t for op, t in cmd.redirects if op == "<<<"]
        codes += [s for s in (static_output([f]) for f in cmd.feeders) if s]
    return lang, codes


_TCL_EXEC = re.compile(r"(?:^|[\[;{\n])\s*(?:exec|open\s+\"?\|)\s+([^\]\n;}\"]{1,4096})")
_TCL_ENV = re.compile(r"\$(?:::)?env\((\w+)\)")
_TCL_DELETE = re.compile(r"(?:^|[\[;{\n])\s*file\s+delete\s+((?:-force\s+)?(?:--\s+)?[^\]\n;}]{1,4096})")


def _tcl(code: str, via: str) -> Iterator[Derived]:
    """Tcl's ``exec cmd args`` (argv words, a shell line for us) and ``file delete -force path``."""
    for m in _TCL_EXEC.finditer(code):
        yield Derived("shell", text=m.group(1).strip(), via=via)
    for m in _TCL_DELETE.finditer(code):
        words = [_TCL_ENV.sub(r"${\1}", w) for w in m.group(1).split()]
        force = "-force" in words
        yield Derived("argv", argv=("rm", "-rf" if force else "-f", *[w for w in words if w not in ("-force", "--")]),
                      via=via)
    if re.search(r"(?:^|[\[;{\n])\s*(?:eval|uplevel|subst)\s", code):
        yield Derived("dynamic", text=f"{via} evaluates code built at run time", via=via)


def _calls(lang: str, code: str, via: str, depth: int) -> Iterator[Derived]:
    code = code[:CODE_LIMIT]
    if lang == "tcl":
        yield from _tcl(code, via)
        return
    spec = _LANGS[lang]
    for m in spec.shell.finditer(code):
        kind, value = _first_arg(code, m.end())
        listed = _ARGV_CALL.match(code, m.end()) if lang in ("perl", "ruby") else None
        pair = _PROGRAM_AND_ARRAY.match(code, m.end()) if lang in ("node", "php") else None
        if pair:
            words = [_unstring(w) for w in _STRINGS.findall(pair.group(2))]
            if _STRINGS.sub("", pair.group(2)).replace(",", "").strip():
                yield Derived("dynamic", text=f"{via} runs a program with arguments built at run time", via=via)
            yield Derived("argv", argv=(_unstring(pair.group(1)), *words), via=via)
        elif listed:
            # Perl's and Ruby's system/exec LIST: the program and its arguments, one word each
            listed_argv = [_unstring(listed.group(1))]
            for item in (i.group(1).strip() for i in _ARGV_ITEM.finditer(listed.group(2))):
                if _STRINGS.fullmatch(item):
                    listed_argv.append(_unstring(item))
                elif _HOME_VALUE.fullmatch(item):
                    listed_argv.append("~")
                else:
                    listed_argv.append("$(...)")
                    yield Derived("dynamic", text=f"{via} runs a program with arguments built at run time", via=via)
            yield Derived("argv", argv=tuple(listed_argv), via=via)
        elif kind == "str" and isinstance(value, str):
            # os.execv('/bin/rm', ...) and exec('rm') forms name a program: its words are a command too
            yield Derived("shell", text=value, via=via)
        elif kind == "list" and isinstance(value, list):
            yield Derived("argv", argv=tuple(value), via=via)
        else:
            yield Derived("dynamic", text=f"{via} runs a command built at run time ({m.group()}(...))", via=via)
    if lang == "awk":
        for m in _AWK_PIPE_IN.finditer(code):
            yield Derived("shell", text=_unstring(m.group(1)), via=via)
        for m in _AWK_PIPE_OUT.finditer(code):
            target = _unstring(m.group(1))
            yield Derived("shell", text=target, via=via)
            if target.split()[:1] and target.split()[0].rsplit("/", 1)[-1] in ("sh", "bash", "zsh", "dash", "ksh"):
                yield Derived("dynamic", text=f"{via} prints text into a shell", via=via)
    if spec.code_eval is not None:
        for m in spec.code_eval.finditer(code):
            kind, value = _first_arg(code, m.end())
            if kind == "str" and isinstance(value, str):
                if depth < 4:
                    yield from _calls(lang, value, via, depth + 1)
            else:
                yield Derived("dynamic", text=f"{via} evaluates code built at run time ({m.group()}(...))", via=via)
    for rx, argv in ((spec.delete_tree, ("rm", "-rf")), (spec.delete, ("rm",)), (spec.write, ("tee",)),
                     (spec.read, ("cat",)), (spec.fetch, ("curl",))):
        if rx is None:
            continue
        for m in rx.finditer(code):
            # Path('x').write_text(...): the path is before the call
            start = m.start()
            if code[start:start + 1] == ".":
                before = code.rfind("Path(", max(0, start - 4096), start)
                if before < 0:
                    continue
                kind, value = _first_arg(code, before + 4)
            else:
                kind, value = _first_arg(code, m.end())
            if kind == "str" and isinstance(value, str):
                if argv == ("curl",) and "://" not in value:
                    continue
                yield Derived("argv", argv=(*argv, value), via=via)
            elif argv == ("rm", "-rf"):
                yield Derived("dynamic", text=f"{via} deletes recursively a path computed at run time", via=via)
            elif argv == ("rm",) and _BROAD_ROOT.search(code):
                # unlink glob("$ENV{HOME}/.*rc"), Dir.glob(Dir.pwd + "/**").each { File.delete }: what
                # is deleted is found at run time under the home or the project: as broad as its root
                yield Derived("dynamic", text=f"{via} deletes files it finds at run time under the home or "
                                              f"working directory", via=via)
    if lang != "awk":
        for rx, argv in _TWO_PATHS:
            for m in rx.finditer(code):
                pair = _TWO_LITERALS.match(code, m.end())
                if pair:
                    yield Derived("argv", argv=(*argv, _unstring(pair.group(1)), _unstring(pair.group(2))), via=via)
    if spec.fetch is not None and _ENV_ACCESS.search(code):
        sent = spec.fetch.search(code)
        if sent:  # the environment (or a variable of it) and a network call in the same code: a send
            kind, value = _first_arg(code, sent.end())
            url = value if kind == "str" and isinstance(value, str) and "://" in value else "https://unknown.invalid"
            yield Derived("shell", text=f"env | curl -d @- {url}", via=via)
    if lang == "perl":
        for m in _PERL_OPEN.finditer(code):
            mode, target = m.group(2), _unstring(m.group(3))
            if mode is None:  # two-argument open: the mode is inside the string
                target = target.strip()
                k = 0
                while k < len(target) and target[k] in "<>+":
                    k += 1
                mode, target = target[:k], target[k:].strip()
            if target.startswith("|") or target.endswith("|"):
                yield Derived("shell", text=target.strip("| "), via=via)
            elif target:
                yield Derived("argv", argv=("tee" if ">" in mode else "cat", target), via=via)


def interpreter(cmd: Command) -> Iterator[Derived]:
    lang, codes = code_of(cmd)
    if not lang:
        return
    flag = next((a for a in cmd.args if a.startswith("-")), "")
    via = f"{cmd.name} {flag}".strip() if codes and lang != "awk" else cmd.name
    for code in codes:
        if lang == "python":
            from .pyast import python_calls

            got = python_calls(code[:CODE_LIMIT], via)
            if got is not None:  # Python 3 that parses: read as Python, not by pattern
                yield from got
                continue
        yield from _calls(lang, code, via, 0)


_PYTHON_M = re.compile(r"-[a-zA-Z]*m$")


def module_run(cmd: Command) -> Iterator[Derived]:
    """``python -m twine upload`` runs ``twine upload``."""
    if language(cmd.name) != "python":
        return
    args = cmd.args
    for j, a in enumerate(args):
        if a == "-m" or (_PYTHON_M.match(a) and len(a) > 2):
            if j + 1 < len(args):
                yield Derived("argv", argv=tuple(args[j + 1:]), via=f"{cmd.name} -m")
            return
        if not a.startswith("-") or a == "-c":
            return


def find_exec(cmd: Command) -> Iterator[Derived]:
    """``find ... -exec CMD {} ;`` runs CMD (``{}`` stays a placeholder, never a broad path)."""
    if cmd.name != "find":
        return
    args = cmd.args
    j = 0
    while j < len(args):
        if args[j] in ("-exec", "-execdir", "-ok", "-okdir"):
            k = j + 1
            while k < len(args) and args[k] not in (";", "\\;", "+"):
                k += 1
            if k > j + 1:
                yield Derived("argv", argv=tuple(args[j + 1:k]), via="find -exec")
            j = k + 1
        else:
            j += 1


def static_output(cmds: list[Command]) -> str | None:
    """What a command substitution or pipe source prints, when that is known without running it:
    ``echo``/``printf`` of literal text, ``which X``/``command -v X`` (X)."""
    if len(cmds) != 1:
        return None
    c = cmds[0]
    if c.feeders or any("$(...)" in a for a in c.argv):
        return None
    if c.name == "echo":
        args = c.args
        escapes = False
        while args and re.fullmatch(r"-[neE]+", args[0]):
            escapes = escapes or "e" in args[0]
            args = args[1:]
        text = " ".join(args)
        return _printf_escapes(text) if escapes else text
    if c.name == "printf" and c.args:
        args = c.args[1:] if c.args[0] == "--" else c.args
        if not args:
            return None
        fmt = _printf_escapes(args[0])
        rest = args[1:]
        if "%" in fmt:
            try:
                fmt = fmt.replace("%b", "%s") % tuple(rest[:fmt.count("%")]) if rest else fmt.replace("%s", "")
            except (TypeError, ValueError):
                pass
        return fmt
    if c.name == "which" and len(c.args) == 1:
        return c.args[0]
    if (c.name == "pwd" and all(a in ("-L", "-P") for a in c.args)) or (
            c.name == "git" and c.args[-2:] == ["rev-parse", "--show-toplevel"]):
        return "$PWD"  # the working directory (the project: its top level, for git), resolved later
    if c.name == "command" and c.args[:1] == ["-v"] and len(c.args) == 2:
        return c.args[1]
    if c.name == "cat" and not c.args:
        here = [t for op, t in c.redirects if op == "<<<"]
        return here[0] if here else None
    return None


def _printf_escapes(text: str) -> str:
    if "\\" not in text:
        return text
    text = re.sub(r"\\([0-7]{1,3})", lambda m: chr(int(m.group(1), 8)), text)
    try:
        return codecs.decode(text.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return text


#: tools whose output is commonly eval'ed to set up a shell: known, not a payload
INIT_EMITTERS = frozenset({"ssh-agent", "pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "direnv", "conda",
                           "brew", "starship", "zoxide", "fnm", "mise", "rtx", "opam", "dircolors", "thefuck",
                           "keychain", "gpg-agent", "luarocks", "asdf", "atuin", "fzf", "hub", "gh", "kubectl",
                           "helm", "pip", "poetry", "uv", "rustup", "register-python-argcomplete", "mcfly", "nvm",
                           "oh-my-posh", "broot", "navi", "pipenv", "pdm", "resize", "tset", "locale"})


def script_sources(cmd: Command, script_from: list[Command]) -> Iterator[Derived]:
    """``eval "$(...)"``, ``sh -c "$(...)"``, ``... | sh``, ``sh <<< '...'``: the text the shell runs."""
    from .rules import DOWNLOADERS, _produces_script

    texts: list[str] = []
    unknown: list[Command] = []
    for src in script_from:
        out = static_output([src])
        if out is not None:
            texts.append(out)
        elif src.name in DOWNLOADERS or _produces_script(src) or src.name in INIT_EMITTERS:
            continue  # downloads and decoders: pipe-to-shell; shell setup tools: known
        elif src.name == "cat" and src.args:
            continue  # cat FILE | sh is bash FILE
        else:
            unknown.append(src)
    for text in texts:
        yield Derived("shell", text=text, via=f"{cmd.name} of printed text")
    if unknown:
        yield Derived("dynamic", text=f"{cmd.name} runs the output of {unknown[0].name or 'a command'} (known only "
                                      f"at run time)", via=cmd.name)


def xargs_targets(cmd: Command) -> Iterator[Derived]:
    """``echo / | xargs rm -rf``: the arguments xargs appends come from stdin."""
    if "xargs" not in cmd.wrappers or not cmd.argv:
        return
    sources = cmd.feeders
    here = [t for op, t in cmd.redirects if op == "<<<"]
    words: list[str] | None = None
    if here:
        words = here[0].split()
    elif sources:
        out = static_output(sources[-1:])
        if out is not None:
            words = out.split()
        elif sources[-1].name == "find":
            if cmd.name in ("rm", "shred", "unlink"):  # judged as find -delete over the same starts
                yield Derived("argv", argv=(*sources[-1].argv, "-delete"), via="find | xargs")
            return
    if words is not None:
        argv = list(cmd.argv)
        if "{}" in argv:
            argv = [w for a in argv for w in (words if a == "{}" else [a])]
        else:
            argv += words
        yield Derived("argv", argv=tuple(argv), via="xargs")
    elif cmd.name in ("sh", "bash", "zsh", "dash") or (cmd.name in ("rm", "chmod", "chown") and any(
            a in ("-r", "-R", "--recursive") or (a.startswith("-") and not a.startswith("--") and ("r" in a or "R" in a))
            for a in cmd.args)):
        yield Derived("dynamic", text=f"xargs {cmd.name}: its arguments are read from stdin at run time", via="xargs")


_GIT_COMMAND_KEYS = re.compile(r"^(?:core\.(?:pager|editor|sshcommand|fsmonitor|askpass|hookspath)|alias\..+|"
                               r"diff\.external|diff\.\w+\.textconv|credential\.helper|sequence\.editor|pager\..+|"
                               r"interactive\.difffilter|gpg\.program|gpg\.\w+\.program|filter\..+\.(?:clean|smudge|"
                               r"process)|merge\..+\.driver|uploadpack\.packobjectshook|protocol\.ext\.allow)$", re.I)


def git_settings(cmd: Command) -> Iterator[Derived]:
    """``git -c core.pager='rm -rf /' log``, ``git config alias.x '!rm -rf /'``: settings that run commands."""
    if cmd.name != "git":
        return
    args = cmd.args
    pairs: list[tuple[str, str]] = []
    j = 0
    while j < len(args) and args[j].startswith("-"):
        if args[j] == "-c" and j + 1 < len(args):
            key, _, value = args[j + 1].partition("=")
            pairs.append((key, value))
            j += 2
        elif args[j] in ("-C", "--git-dir", "--work-tree", "--namespace", "--config-env"):
            j += 2
        else:
            j += 1
    if j < len(args) and args[j] == "config":
        rest = [a for a in args[j + 1:] if not a.startswith("-")]
        if len(rest) >= 2:
            pairs.append((rest[0], rest[1]))
    for key, value in pairs:
        if _GIT_COMMAND_KEYS.match(key) and value.strip():
            if key.lower().startswith("alias.") and not value.startswith("!"):
                continue  # an alias of git sub-commands runs git
            yield Derived("shell", text=value.lstrip("!"), via=f"git {key}")


def powershell(cmd: Command) -> Iterator[Derived]:
    """``pwsh -Command "..."`` and ``-EncodedCommand`` (base64 UTF-16)."""
    if cmd.name.lower() not in ("pwsh", "powershell", "powershell.exe", "pwsh.exe"):
        return
    args = cmd.args
    for j, a in enumerate(args[:-1]):
        low = a.lower()
        if low in ("-c", "-command", "/c", "-com"):
            yield Derived("shell", text=" ".join(args[j + 1:]), via=f"{cmd.name} -Command")
            return
        if low in ("-e", "-ec", "-encodedcommand", "-enc", "-en"):
            try:
                text = base64.b64decode(args[j + 1]).decode("utf-16-le")
            except (ValueError, UnicodeDecodeError):
                yield Derived("dynamic", text=f"{cmd.name} -EncodedCommand that does not decode", via=cmd.name)
                return
            yield Derived("shell", text=text, via=f"{cmd.name} -EncodedCommand")
            return


_SED_EXEC = re.compile(r"(?:^|[;\n{}])\s*(?:\d+|\$|/[^/\n]{0,256}/)?\s*(?:,\s*(?:\d+|\$|/[^/\n]{0,256}/))?\s*e"
                       r"(?:\s+([^;\n}]{1,4096}))?")
_SED_S_EXEC = re.compile(r"(?:^|[;\n{}])\s*\S{0,64}?s(.)(?:(?!\1).){0,4096}\1(?:(?!\1).){0,4096}\1[gpiImM0-9w]*e")


def program_options(cmd: Command) -> Iterator[Derived]:
    """Options whose value is a command: ``sed 'e cmd'`` (and ``s///e``), ``tar
    --checkpoint-action=exec=cmd``/``--to-command``/``-I``, ``rsync -e``, ``vim -c '!cmd'``,
    ``parallel cmd ::: args``."""
    name, args = cmd.name, cmd.args
    if name in ("sed", "gsed"):
        scripts = [args[j + 1] for j, a in enumerate(args[:-1]) if a in ("-e", "--expression")]
        if not scripts:
            scripts = [a for a in args if not a.startswith("-")][:1]
        for script in scripts:
            for m in _SED_EXEC.finditer(script[:CODE_LIMIT]):
                if m.group(1):
                    yield Derived("shell", text=m.group(1), via="sed e")
                else:
                    yield Derived("dynamic", text="sed e runs the pattern space as a command", via="sed e")
            if _SED_S_EXEC.search(script[:4096]):
                yield Derived("dynamic", text="sed s///e runs the replaced text as a command", via="sed s///e")
    elif name in ("tar", "gtar", "bsdtar"):
        for j, a in enumerate(args):
            value = None
            if a.startswith("--checkpoint-action="):
                value = a.split("=", 1)[1]
                value = value[5:] if value.startswith("exec=") else None
            elif a.startswith(("--to-command=", "--use-compress-program=", "--info-script=", "--new-volume-script=")):
                value = a.split("=", 1)[1]
            elif a in ("--to-command", "-I", "--use-compress-program", "-F", "--info-script") and j + 1 < len(args):
                value = args[j + 1]
            if value:
                yield Derived("shell", text=value, via=f"tar {a.split('=', 1)[0]}")
    elif name == "rsync":
        for j, a in enumerate(args):
            if a in ("-e", "--rsh") and j + 1 < len(args):
                yield Derived("shell", text=args[j + 1], via="rsync -e")
            elif a.startswith(("--rsh=", "--rsync-path=")):
                yield Derived("shell", text=a.split("=", 1)[1], via="rsync --rsh")
    elif name in ("vim", "vi", "nvim", "ex", "view"):
        for j, a in enumerate(args[:-1]):
            if a == "-c" or a.startswith("+"):
                text = args[j + 1] if a == "-c" else a[1:]
                if text.lstrip(":").startswith("!"):
                    yield Derived("shell", text=text.lstrip(":")[1:], via=f"{name} -c !")
    elif name == "parallel" and ":::" in args:
        k = args.index(":::")
        j = 0
        while j < k and args[j].startswith("-"):
            j += 1
        command = args[j:k]
        if command:
            yield Derived("argv", argv=(*command, *args[k + 1:]), via="parallel")


def derive(cmd: Command) -> list[Derived]:
    """Everything ``cmd`` runs besides itself (see the module docstring)."""
    if not cmd.argv:
        return []
    out: list[Derived] = []
    for finder in (interpreter, module_run, find_exec, xargs_targets, git_settings, powershell, program_options):
        out.extend(finder(cmd))
    return out
