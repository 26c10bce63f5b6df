"""A compiled guard policy: the settings turned into matchers, and the checks hooks call."""

from __future__ import annotations

import gc
import os
import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from . import defaults, plane, work
from .paths import PathRules, Resolver, expand
from .rules import (
    GATES,
    RULES,
    SCRIPT_RUNNERS,
    Finding,
    activated_environment,
    download_then_run,
    fork_bomb,
    read_targets,
    write_targets,
)
from .shell import MAX_COMMANDS, PRIVILEGED, parse_bounded
from .written import written_then_run

if TYPE_CHECKING:
    from agent_hooks_core.secret_formats import Redactor

    from .packs import Spec
    from .shell import Command
    from .urls import UrlRules

#: rules that belong to no pack: they are about the analysis itself or about your own settings
CORE_RULES = ("deny-commands", "control-plane")
_OVER_BUDGET = ("it needs more analysis than one decision's work budget (words, commands, interpreter code, "
                "paths looked up): only what came before was analysed; split it into smaller commands")
#: a ``$(...)`` body cut out by the parser (shell.extract_substitutions)
_PLACEHOLDER = re.compile(r"__ahsub\d+__")
_PATCH_PATHS = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$"
                          r"|^\+\+\+ (?:[ab]/)?(.+?)(?:\t.*)?$", re.M)


def patch_paths(text: str) -> list[str]:
    """Paths an ``apply_patch`` body (``*** Update File: path``) or a unified diff (``+++ b/path``) writes."""
    out = []
    for m in _PATCH_PATHS.finditer(text[:defaults.MAX_COMMAND_BYTES * 16]):
        path = next(g for g in m.groups() if g is not None)
        if path != "/dev/null" and path not in out:
            out.append(path)
    return out


@dataclass
class Check:
    """What a tool call, command, path or URL amounts to."""

    kind: str
    """shell, read, write, url or '' (nothing the guard looks at)"""
    subject: str
    findings: list[Finding] = field(default_factory=list)
    lines: dict[Finding, str] = field(default_factory=dict)
    """for shell findings: the simple command (wrappers removed) each came from, for allow_commands"""
    commands: list[Command] = field(default_factory=list)
    """for shell checks: every simple command judged (``guard explain`` shows their effects)"""
    units: tuple[int, int] = (0, 0)
    """for shell checks: the work units (work.py) the parse and the judging spent"""

    @property
    def reason(self) -> str:
        """One line: every distinct reason, each tagged with its rule id."""
        return "; ".join(f"{f.reason} [guard:{f.rule}]" for f in self.findings)


def resolve(raw: Any) -> dict[str, Any]:
    """The settings section (a GuardConfig, a dict or nothing) as a complete dict."""
    if raw is None or (isinstance(raw, Mapping) and not raw):
        return dict(defaults.DEFAULTS)
    dump = getattr(raw, "model_dump", None)
    if dump is None:
        from .config import GuardConfig  # an unvalidated dict (Runtime(plugin_config=...)): validate it

        raw = GuardConfig.model_validate(dict(raw))
        dump = raw.model_dump
    return {**defaults.DEFAULTS, **dump()}


class Policy:
    def __init__(self, config: Mapping[str, Any], cwd: str) -> None:
        from .packs import all_packs

        c = config
        self.mode: str = c["mode"]
        self.ask: bool = c["ask"]
        self.cwd = cwd
        self.home = os.path.expanduser("~")
        self.max_bytes: int = int(c["max_command_bytes"])
        # the work budgets are sized for the default size limit: a larger limit is more time accepted
        self.work_scale = max(1.0, self.max_bytes / defaults.MAX_COMMAND_BYTES)
        disabled = set(c["disable_rules"])
        self.packs, self.pack_problems = all_packs(c["packs"])
        off_packs = set(c["disable_packs"]) | (set(defaults.OFF_BY_DEFAULT) - set(c.get("enable_packs", ())))
        self.off_packs = off_packs
        #: rule id -> pack name (explain says which pack to turn off)
        self.rule_pack: dict[str, str] = {}
        active: set[str] = set(CORE_RULES) - disabled
        self.specs_by_name: dict[str, list[Spec]] = {}
        self.glob_specs: list[Spec] = []
        for pack in self.packs.values():
            for rid in pack.rule_ids:
                self.rule_pack.setdefault(rid, pack.name)
            if pack.name in off_packs:
                continue
            active.update(r for r in pack.rules if r not in disabled)
            for spec in pack.specs:
                if spec.id in disabled:
                    continue
                for name in spec.command:
                    if any(ch in name for ch in "*?["):
                        self.glob_specs.append(spec)
                    else:
                        self.specs_by_name.setdefault(name.lower(), []).append(spec)
        self.active = active
        self.rules = [(name, fn) for name, fn in RULES.items() if name in active]
        # rules by the commands they look at (rules.GATES): a simple command meets only its own
        self._always: list[Any] = []
        self._by_name: dict[str, list[Any]] = {}
        self._gated: dict[str, list[Any]] = {"writes": [], "reads": [], "scripts": [], "wrapped": []}
        #: per command name and gates met: the rules and specs it meets (names repeat in a command line)
        self._plan: dict[tuple[str, bool, bool, bool, bool], tuple[Any, ...]] = {}
        for rid, fn in self.rules:
            gate = GATES.get(rid, "all")
            if rid == "deny-commands" and not c["deny_commands"]:
                continue
            if gate == "all":
                self._always.append(fn)
            elif isinstance(gate, str):
                self._gated[gate].append(fn)
            else:
                for name in gate:
                    self._by_name.setdefault(name, []).append(fn)
        self._expanded: dict[str, str | None] = {}
        self._covering: dict[tuple[str, str, bool], plane.Covered | None] = {}
        self._plane_env: dict[str, str] | None = None
        self._free_dirs: dict[tuple[str, str], str | None] = {}
        #: symlinks resolved for the decision being made (made afresh for each: the disk changes)
        self.resolver = Resolver(self._spend_step)
        #: symlinks the command line being checked makes (``ln -s``): link path -> what it points to
        self.links: dict[str, str] = {}
        self._protected: dict[str, tuple[frozenset[str], frozenset[str]] | None] = {}
        self._heads: dict[str, frozenset[str] | None] = {}
        self._links_seen: dict[str, bool] = {}
        self.fork_bombs = "fork-bomb" in active
        self.paths_enabled = {"write": "protected-write" in active, "read": "protected-read" in active}
        self.agent_config_enabled = "agent-config" in active
        self.urls_enabled = "url" in active
        self.deny_commands = [(p, re.compile(p)) for p in c["deny_commands"]]
        self.allow_commands = [re.compile(p) for p in c["allow_commands"]]
        self.protected_branches = list(c["protected_branches"])
        self._config = c
        self.exclude_tools = list(c["exclude_tools"])
        self.subagent_exclude = {t.lower() for t in c["subagent_exclude_tools"]}
        self.tools = {kind: {t.lower() for t in c[f"{kind}_tools"]} for kind in ("shell", "write", "read", "fetch")}
        self._branch: Callable[[], str | None] | None = None
        self._branch_value: tuple[str | None] | None = None
        #: what the decision being made may still spend (work.py); outside one, unbounded
        self.work = work.Work(1 << 62)

    # the matchers compile on first use: a bridge process handles one event and needs one of them

    @cached_property
    def write_paths(self) -> PathRules:
        return self._path_rules(self._config["protect_write"], self._config["allow_write"])

    @cached_property
    def read_paths(self) -> PathRules:
        return self._path_rules(self._config["protect_read"], self._config["allow_read"])

    @cached_property
    def agent_config_paths(self) -> PathRules:
        # agent-hooks' own files are the control plane's (plane.covering): here only the hosts' hook files
        return self._path_rules(list(self._config["protect_agent_config"]), [])

    def _path_rules(self, protect: list[str], allow: list[str]) -> PathRules:
        rules = PathRules(protect, allow, self.home, self._spend_path)
        rules.fresh(self.resolver)
        return rules

    def _spend_path(self) -> None:
        self.work.spend(work.PATH)

    def _spend_step(self) -> None:
        self.work.spend(work.STEP)

    def _fresh(self) -> None:
        """Forget what was learnt about the file system and environment: a new decision."""
        self._covering, self._plane_env, self._free_dirs, self._protected, self._heads = {}, None, {}, {}, {}
        self._links_seen = {}
        self.resolver = Resolver(self._spend_step)
        for name in ("write_paths", "read_paths", "agent_config_paths"):
            rules = self.__dict__.get(name)
            if rules is not None:
                rules.fresh(self.resolver)

    @cached_property
    def urls(self) -> UrlRules:
        from .urls import UrlRules

        c = self._config
        return UrlRules(c["url_deny"], c["url_allow"], c["url_schemes"], c["deny_url_credentials"])

    @cached_property
    def redactor(self) -> Redactor | None:
        from agent_hooks_core.secret_formats import Redactor

        return Redactor(self._config["redact_patterns"], loose=False) if self._config["redact_output"] else None

    # -- checks --------------------------------------------------------------------------

    def current_branch(self) -> str | None:
        if self._branch_value is None:
            self._branch_value = (self._branch() if self._branch else None,)
        return self._branch_value[0]

    def _specs_for(self, cmd: Command) -> Iterator[Spec]:
        name = cmd.name.lower()
        yield from self.specs_by_name.get(name, ())
        yield from (s for s in self.glob_specs if s.names(name))

    def expand(self, word: str, cwd: str | None = None) -> str | None:
        """``paths.expand`` in ``cwd`` (this policy's directory by default), remembered (a command line
        repeats its paths)."""
        cwd = cwd or self.cwd
        key = word if cwd == self.cwd else f"{cwd}\0{word}"
        try:
            return self._expanded[key]
        except KeyError:
            if len(self._expanded) > 4096:
                self._expanded.clear()
            got = self._expanded[key] = expand(word, cwd, self.home)
            return got

    def covering(self, path: str, cwd: str, recursive: bool = False) -> plane.Covered | None:
        """``plane.covering``, remembered for the command line being checked (it names the same
        paths again and again) and with the environment read once per check."""
        key = (path, cwd, recursive)
        memo = self._covering
        if key not in memo:
            self.work.spend(work.PATH)
            if len(memo) > 4096:
                memo.clear()
            if self._plane_env is None:
                self._plane_env = plane.relevant_env()
            if not recursive and self._plainly_free(path, cwd):
                memo[key] = None
            else:
                self.work.spend(work.DIRECTORY)
                memo[key] = plane.covering(path, cwd, self._plane_env, recursive=recursive)
        return memo[key]

    def plane_heads(self, cwd: str) -> frozenset[str] | None:
        """``plane.heads``, remembered for the decision being made."""
        if cwd not in self._heads:
            self._heads[cwd] = plane.heads(cwd)
        return self._heads[cwd]

    def is_link(self, path: str) -> bool:
        """``os.path.islink``, remembered for the decision being made (arguments share their first
        component: ``git add src/a src/b ...``)."""
        got = self._links_seen.get(path)
        if got is None:
            self.work.spend(work.STEP)
            got = self._links_seen[path] = os.path.islink(path)
        return got

    def _plainly_free(self, path: str, cwd: str) -> bool:
        """A cheap proof that ``path`` is not protected: its directory (as written, with its parent
        resolved, and resolved) is in no protected tree, it is no symlink, and neither it nor its
        resolved twin is a protected path itself. A prefix look-up in the protected set per
        directory, and one ``lstat`` per directory and per file (paths.Resolver), instead of a
        ``realpath`` of every component of every path."""
        parent, base = os.path.split(path)
        if not base or not parent.startswith("/") or "//" in path or "/." in path:
            return False
        if cwd not in self._protected:
            self._protected[cwd] = plane.protected_sets(cwd, self._plane_env)
        sets = self._protected[cwd]
        if sets is None:
            return False  # an older core: plane.covering decides
        exact, trees = sets
        key = (parent, cwd)
        real = self._free_dirs.get(key, "")
        if real == "":
            up, name = os.path.split(parent)
            names = (parent, os.path.join(self.resolver.real_dir(up), name) if name else parent,
                     self.resolver.real_dir(parent))
            real = None if any(_in_tree(n, trees) or n in exact for n in names) else names[2]
            self._free_dirs[key] = real
        if real is None or path in exact or os.path.join(real, base) in exact:
            return False
        return not os.path.islink(path)

    def through_links(self, paths: list[str]) -> list[str]:
        """Where ``paths`` lead through the symlinks made earlier in the command line (``ln -s``)."""
        out = []
        for path in paths:
            for link, target in self.links.items():
                if path == link or path.startswith(link + "/"):
                    out.append(target + path[len(link):])
        return out

    def cwd_of(self, cmd: Command) -> str:
        """The directory ``cmd`` runs in, after the ``cd``s before it in the same command line."""
        return str(cmd.memo.get("cwd") or self.cwd)

    def cwds(self, cmd: Command) -> tuple[str, ...]:
        """Where ``cmd`` may run: after the ``cd``s before it, and (a ``cd`` inside a subshell does not
        last) the agent's own directory."""
        here = self.cwd_of(cmd)
        return (here,) if here == self.cwd else (here, self.cwd)

    def candidates(self, word: str, cwd: str) -> list[str]:
        """The absolute paths a path word may name: itself, and for a glob what it matches on disk
        (at most 64) and the directory it expands in."""
        path = self.expand(word, cwd)
        if path is None:
            return []
        if not any(ch in path for ch in "*?["):
            return [path]
        import glob
        import itertools

        self.work.spend(work.GLOB)
        out = [path.split("*")[0].split("?")[0].split("[")[0].rstrip("/") or "/"]
        out += itertools.islice(glob.iglob(path), 64)
        return out

    def _track_cwd(self, commands: list[Command]) -> None:
        cwd = self.cwd
        venv: str | None = None
        for cmd in commands:
            if cmd.name in ("cd", "pushd", "chdir"):
                words = [a for a in cmd.args if not a.startswith("-") or a == "-"]
                target = words[0] if words else "~"
                if target != "-":
                    cwd = self.expand(target, cwd) or cwd
            if cwd != self.cwd:
                cmd.memo["cwd"] = cwd
            venv = activated_environment(cmd, self, cwd, venv)
            if cmd.name == "ln" and any(a == "-s" or (a.startswith("-") and not a.startswith("--") and "s" in a)
                                        or a == "--symbolic" for a in cmd.args):
                # a link made earlier in the line does not exist yet when the line is judged: what a
                # later write through it reaches is its target
                operands = [a for a in cmd.args if not a.startswith("-")]
                link = self.expand(operands[-1], cwd) if len(operands) >= 2 else None
                if link:
                    points_to = self.expand(operands[0], os.path.dirname(link))
                    if points_to:
                        self.links[link] = points_to
                        if os.path.isdir(link):
                            self.links[os.path.join(link, os.path.basename(points_to))] = points_to

    def _rules_for(self, cmd: Command) -> tuple[Any, ...]:
        """The rules, then the specs, ``cmd`` meets (rules.GATES): computed once per name and gates."""
        name = cmd.name
        gated = self._gated
        key = (name, bool(gated["writes"]) and bool(write_targets(cmd)),
               bool(gated["reads"]) and bool(read_targets(cmd)),
               bool(gated["scripts"]) and (name in SCRIPT_RUNNERS or name.startswith("python")),
               bool(gated["wrapped"]) and bool(cmd.wrappers or name in PRIVILEGED))
        plan = self._plan.get(key)
        if plan is None:
            # wrapped rules keep their place among the always-called ones: findings keep their order
            first = [fn for _, fn in self.rules if fn in self._always or (key[4] and fn in gated["wrapped"])]
            rules = [*first, *self._by_name.get(name, ())]
            for gate, met in zip(("writes", "reads", "scripts"), key[1:4], strict=True):
                if met:
                    rules += gated[gate]
            plan = (*rules, *self._specs_for(cmd))
            if len(self._plan) > 4096:
                self._plan.clear()
            self._plan[key] = plan
        return plan

    def command_findings(self, cmd: Command, found: list[Finding] | None = None) -> list[Finding]:
        """What the active rules say about one simple command (allow_commands already applied),
        added to ``found`` as they come (when the work budget runs out midway, what was found stays)."""
        found = [] if found is None else found
        for rule in self._rules_for(cmd):
            for f in rule(cmd, self):
                if f not in found:
                    found.append(f)
        return found

    def _shape(self, cmd: Command, shapes: dict[tuple[object, ...], int]) -> int | None:
        """A number that two commands share only when every rule must judge them alike: the same
        words, redirections, wrappers, origin and directory, fed by and substituting commands of the
        same shapes (numbered as they come, so a pipeline of thousands costs no deep hashing)."""
        got = cmd.memo.get("shape")
        if got is None:
            parts = []
            for group in (cmd.feeders, cmd.subs, cmd.script_from):
                ids = []
                for c in group:
                    known = c.memo.get("shape")
                    if known is None:
                        return None  # not judged yet (the walk lists feeders first): no memo for this one
                    ids.append(known)
                parts.append(tuple(ids))
            key = (tuple(cmd.argv), tuple(cmd.raw), tuple(cmd.redirects), tuple(cmd.wrappers), cmd.via,
                   self.cwd_of(cmd), *parts)
            if "__ahsub" in repr(key[:3]):
                # a substitution's placeholder is numbered where it was cut out (`echo "$(date)"` again
                # and again is a new number each time): what it stands for is in the subs' shapes
                key = tuple(_PLACEHOLDER.sub("__ahsub__", repr(k)) if j < 3 else k for j, k in enumerate(key))
            got = cmd.memo["shape"] = shapes.setdefault(key, len(shapes))
        return int(got)

    def check_command(self, text: str, branch: Callable[[], str | None] | None = None) -> Check:
        # a decision allocates thousands of small objects (bounded by the work budget): a cyclic
        # collection of the whole process started midway would double its time, so none runs
        # during it (what it leaves is collected after, as usual)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._check_command(text, branch)
        finally:
            self.work = work.Work(1 << 62)
            if collecting:
                gc.enable()

    def _check_command(self, text: str, branch: Callable[[], str | None] | None) -> Check:
        self._branch, self._branch_value = branch, None
        # the file system and settings may have changed since the last check
        self._fresh()
        self.links = {}
        findings: list[Finding] = []
        subject = text
        # characters <= bytes: past the limit in characters it is past it in bytes, no need to encode 50 MB
        size = len(text)
        if self.max_bytes // 4 < size <= self.max_bytes:
            size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.max_bytes:
            if "too-large" in self.active:
                findings.append(Finding("too-large", f"the command is {size} bytes, over max_command_bytes "
                                                     f"({self.max_bytes}); only its first {self.max_bytes} were "
                                                     f"analysed"))
            text = text[:self.max_bytes]
            subject = text[:200] + f"... ({size} bytes)"
        for problem in self.pack_problems:  # a pack that should be in force is not: fail closed
            findings.append(Finding("pack-error", problem))
        if self.fork_bombs:
            bomb = fork_bomb(text)
            if bomb:
                findings.append(bomb)
        # parsing (and the scripts written then run) and judging each have a budget of their own:
        # however much the parse took, the commands it found are judged
        self.work = work.Work(int(work.PARSE_BUDGET * self.work_scale))
        commands, truncated = parse_bounded(text, work=self.work)
        self._track_cwd(commands)
        scripts = written_then_run(commands, self)
        if scripts:
            self._track_cwd(scripts)
            commands = [*commands, *scripts]
        parsed = int(work.PARSE_BUDGET * self.work_scale) - self.work.left
        truncated = truncated or self.work.spent_out
        if truncated and "too-large" in self.active:
            findings.append(Finding("too-large", _OVER_BUDGET if self.work.spent_out else
                                    f"more than {MAX_COMMANDS} simple commands: only the first "
                                    f"{MAX_COMMANDS} were analysed"))
        lines: dict[Finding, str] = {}
        # a command line repeats its simple commands (a;a;a..., the same pipe stage, a loop body):
        # each distinct one, with what feeds it and where it runs, is judged once
        judged: dict[int, list[Finding]] = {}
        shapes: dict[tuple[object, ...], int] = {}
        out_of_work = False
        self.work = work.Work(int(work.BUDGET * self.work_scale))
        for cmd in commands:
            line = " ".join(cmd.argv)
            if self.allow_commands and any(rx.search(line) for rx in self.allow_commands):
                continue
            shape = self._shape(cmd, shapes)
            found = judged.get(shape) if shape is not None else None
            if found is None:
                found = []
                try:
                    self.work.spend(work.COMMAND + work.WORD * (len(cmd.argv) + len(cmd.redirects))
                                    + sum(map(len, cmd.argv)) // work.CHARS_PER_UNIT)
                    self.command_findings(cmd, found)
                except work.OutOfWork:
                    out_of_work = True  # what this command showed before the budget ran out is still named
                if shape is not None and not out_of_work:
                    judged[shape] = found
            for f in found:
                if cmd.via and f.rule not in ("dynamic-exec", "nesting"):
                    f = Finding(f.rule, f"{f.reason} (run by {cmd.via})")
                if f not in findings:
                    findings.append(f)
                    lines[f] = line
            if out_of_work:
                break
        if out_of_work and "too-large" in self.active and not truncated:
            findings.append(Finding("too-large", _OVER_BUDGET))
        units = (parsed, int(work.BUDGET * self.work_scale) - self.work.left)
        self.work = work.Work(1 << 62)
        if "strict" in self.off_packs:
            findings = _judged(findings, lines, commands)
        if "pipe-to-shell" in self.active:
            ran = download_then_run(commands)
            if ran and ran not in findings:
                findings.append(ran)
        return Check("shell", subject, findings, lines, commands, units)

    def check_path(self, path: str, write: bool) -> Check:
        self._fresh()
        kind = "write" if write else "read"
        check = Check(kind, path)
        full = expand(path, self.cwd, self.home) or path
        if write and "control-plane" in self.active:
            hit = plane.covering(full, self.cwd, plane.relevant_env())
            if hit is not None:
                check.findings.append(Finding("control-plane", f"{path} is part of agent-hooks' control plane "
                                                               f"({hit.kind}): changing it could switch the guard off"))
        if write and self.agent_config_enabled:
            pattern = self.agent_config_paths.match(full)
            if pattern:
                check.findings.append(Finding("agent-config", f"{path} configures agent-hooks or the agent's hooks "
                                                              f"({pattern}): writing it could switch the guard off"))
        if not self.paths_enabled[kind]:
            return check
        pattern = (self.write_paths if write else self.read_paths).match(full)
        if pattern:
            what = "is protected" if write else "holds secrets"
            check.findings.append(Finding(f"protected-{kind}", f"{path} {what} ({pattern})"))
        return check

    def check_url(self, url: str) -> Check:
        check = Check("url", url)
        problem = self.urls.check(url) if self.urls_enabled else None
        if problem:
            check.findings.append(Finding("url", problem))
        return check

    def check_tool(self, tool_name: str, arguments: Mapping[str, Any],
                   branch: Callable[[], str | None] | None = None) -> Check:
        name = tool_name.lower()
        if name in self.tools["shell"]:
            command = command_text(arguments)
            if isinstance(command, Finding):
                return Check("shell", repr(arguments)[:200], [command])
            return self.check_command(command, branch) if command is not None else Check("", "")
        for kind, write in (("write", True), ("read", False)):
            if name in self.tools[kind]:
                paths = _paths(arguments)
                if write:
                    for key in defaults.PATCH_KEYS:
                        if isinstance(arguments.get(key), str):
                            paths += patch_paths(arguments[key])
                checks = [self.check_path(p, write) for p in paths]
                bad = [c for c in checks if c.findings]
                return bad[0] if bad else (checks[0] if checks else Check("", ""))
        if name in self.tools["fetch"]:
            url = _first_str(arguments, defaults.URL_KEYS)
            return self.check_url(url) if url is not None else Check("", "")
        return Check("", "")

    def excluded_tools(self, tools: list[Any], recursion_depth: int | None) -> list[str]:
        raw = [t.get("name") if isinstance(t, Mapping) else t for t in tools]
        names: list[str] = [n for n in raw if isinstance(n, str)]
        out = [n for n in names if n in self.exclude_tools]
        if recursion_depth:
            out += [n for n in names if n.lower() in self.subagent_exclude and n not in out]
        return out

    def redact(self, text: str) -> tuple[str, list[str]]:
        if self.redactor is None:
            return text, []
        return self.redactor.redact(text)


def _in_tree(path: str, trees: frozenset[str]) -> bool:
    """Whether ``path`` (absolute, normalised) is the root of one of ``trees`` or below one."""
    while True:
        if path in trees:
            return True
        up = os.path.dirname(path)
        if up == path:
            return False
        path = up


def _stashed_before(line: str, commands: list[Command]) -> bool:
    """Whether a ``git stash`` (or commit) runs before the command ``line`` in the same command line."""
    for cmd in commands:
        if " ".join(cmd.argv) == line:
            return False
        if cmd.name == "git":
            words = [a for a in cmd.args if not a.startswith("-")]
            if words[:1] == ["commit"] or (words[:1] == ["stash"] and words[1:2] in ([], ["push"], ["save"])):
                return True
    return False


def _judged(findings: list[Finding], lines: dict[Finding, str], commands: list[Command]) -> list[Finding]:
    """The judgement calls of the guard README, decided the lenient way (the strict pack keeps them):
    a hard reset right after a stash or a commit loses nothing."""
    return [f for f in findings if not (f.rule == "git-reset-hard" and f in lines
                                        and _stashed_before(lines[f], commands))]


def command_text(arguments: Mapping[str, Any]) -> str | Finding | None:
    """A shell tool's command as one line of shell: a string as is; an argv list (``["bash", "-lc",
    "..."]``, Codex's ``shell``) quoted word by word; a value of any other type (or a list holding
    one) a finding, since a gating check that cannot read its subject must not allow it."""
    for key in defaults.COMMAND_KEYS:
        if key not in arguments:
            continue
        value = arguments[key]
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            if value[0] == "apply_patch" and len(value) == 2:
                return "apply_patch " + shlex.quote(value[1])
            return shlex.join(value)
        return Finding("unreadable-command", f"the {key!r} argument is a {_type_name(value)}, not a command line "
                                             f"or a list of words: it cannot be checked")
    return None


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "list holding non-text items" if value else "empty list"
    return {bool: "boolean", int: "number", float: "number", dict: "object"}.get(type(value), type(value).__name__)


def _first_str(arguments: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


def _paths(arguments: Mapping[str, Any]) -> list[str]:
    out = [v for k in defaults.PATH_KEYS if isinstance(v := arguments.get(k), str)]
    many = arguments.get("paths")
    if isinstance(many, list):
        out += [p for p in many if isinstance(p, str)]
    return out


_CACHE: dict[tuple[int, str], tuple[Any, Policy]] = {}


def policy_for(raw_config: Any, cwd: str) -> Policy:
    """The compiled policy of a settings section, cached while that section object lives."""
    key = (id(raw_config), cwd)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is raw_config:
        return hit[1]
    policy = Policy(resolve(raw_config), cwd)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[key] = (raw_config, policy)
    return policy
