"""A compiled guard policy: the settings turned into matchers, and the checks hooks call."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from . import defaults
from .paths import PathRules, expand
from .rules import RULES, Finding, fork_bomb
from .shell import parse

if TYPE_CHECKING:
    from .redact import Redactor
    from .urls import UrlRules


@dataclass
class Check:
    """What a tool call, command, path or URL amounts to."""

    kind: str
    """shell, read, write, url or '' (nothing the guard looks at)"""
    subject: str
    findings: list[Finding] = field(default_factory=list)

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
        c = config
        self.mode: str = c["mode"]
        self.ask: bool = c["ask"]
        self.cwd = cwd
        self.home = os.path.expanduser("~")
        disabled = set(c["disable_rules"])
        self.rules = [(name, fn) for name, fn in RULES.items() if name not in disabled]
        self.fork_bombs = "fork-bomb" not in disabled
        self.paths_enabled = {"write": "protected-write" not in disabled, "read": "protected-read" not in disabled}
        self.urls_enabled = "url" not in disabled
        self.deny_commands = [(p, re.compile(p)) for p in c["deny_commands"]]
        self.allow_commands = [re.compile(p) for p in c["allow_commands"]]
        self.protected_branches = list(c["protected_branches"])
        self._config = c
        self.exclude_tools = list(c["exclude_tools"])
        self.subagent_exclude = {t.lower() for t in c["subagent_exclude_tools"]}
        self.tools = {kind: {t.lower() for t in c[f"{kind}_tools"]} for kind in ("shell", "write", "read", "fetch")}
        self._branch: Callable[[], str | None] | None = None
        self._branch_value: tuple[str | None] | None = None

    # the matchers compile on first use: a bridge process handles one event and needs one of them

    @cached_property
    def write_paths(self) -> PathRules:
        return PathRules(self._config["protect_write"], self._config["allow_write"], self.home)

    @cached_property
    def read_paths(self) -> PathRules:
        return PathRules(self._config["protect_read"], self._config["allow_read"], self.home)

    @cached_property
    def urls(self) -> UrlRules:
        from .urls import UrlRules

        c = self._config
        return UrlRules(c["url_deny"], c["url_allow"], c["url_schemes"], c["deny_url_credentials"])

    @cached_property
    def redactor(self) -> Redactor | None:
        from .redact import Redactor

        return Redactor(self._config["redact_patterns"]) if self._config["redact_output"] else None

    # -- checks --------------------------------------------------------------------------

    def current_branch(self) -> str | None:
        if self._branch_value is None:
            self._branch_value = (self._branch() if self._branch else None,)
        return self._branch_value[0]

    def check_command(self, text: str, branch: Callable[[], str | None] | None = None) -> Check:
        self._branch, self._branch_value = branch, None
        findings: list[Finding] = []
        if self.fork_bombs:
            bomb = fork_bomb(text)
            if bomb:
                findings.append(bomb)
        for cmd in parse(text):
            line = " ".join(cmd.argv)
            if any(rx.search(line) for rx in self.allow_commands):
                continue
            for _, rule in self.rules:
                for f in rule(cmd, self):
                    if f not in findings:
                        findings.append(f)
        return Check("shell", text, findings)

    def check_path(self, path: str, write: bool) -> Check:
        kind = "write" if write else "read"
        check = Check(kind, path)
        if not self.paths_enabled[kind]:
            return check
        full = expand(path, self.cwd, self.home) or path
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
            command = _first_str(arguments, defaults.COMMAND_KEYS)
            return self.check_command(command, branch) if command is not None else Check("", "")
        for kind, write in (("write", True), ("read", False)):
            if name in self.tools[kind]:
                paths = _paths(arguments)
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
