"""The guard's settings section ``[plugins.guard]``, validated by pydantic."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from . import defaults as d


def _list(values: list[str], doc: str) -> list[str]:
    return Field(default_factory=lambda: list(values), description=doc)


def _regex(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regex {pattern!r}: {exc}") from None
    return pattern


class PackRule(BaseModel):
    """One rule of a user pack: every condition given must hold for a simple command."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="the rule id (reasons end with [guard:ID]; disable_rules takes it)")
    reason: str = Field(min_length=1, description="why it is blocked, one line")
    command: str | list[str] = Field(description="program name(s) after wrappers (globs allowed)")
    words: list[str] = Field(default_factory=list, description="non-option words, in order (a|b, globs)")
    flags: list[str] = Field(default_factory=list, description="any of these options (-f matches inside -rf)")
    unless: list[str] = Field(default_factory=list, description="options that make it harmless")
    match: str | None = Field(None, description="a regex searched (case-insensitively) in the arguments")
    match_each: bool = Field(False, description="also try `match` on each argument alone ($ = its end)")
    unless_match: str | None = Field(None, description="a regex that, found in the arguments, makes it harmless")

    @field_validator("match", "unless_match")
    @classmethod
    def _match(cls, value: str | None) -> str | None:
        return None if value is None else _regex(value)


class PackConfig(BaseModel):
    """A user pack: ``[plugins.guard.packs.NAME]``."""

    model_config = ConfigDict(extra="forbid")

    description: str = ""
    rules: list[PackRule] = Field(default_factory=list)
    block: list[str] = Field(default_factory=list, description="example commands it must block")
    allow: list[str] = Field(default_factory=list, description="example commands it must let through")


class GuardConfig(BaseModel):
    """``[plugins.guard]`` in settings.toml."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["enforce", "observe"] = Field(
        "enforce", description="enforce blocks; observe only records what it would have blocked")
    ask: bool = Field(True, description="with a UI, ask the user (ctx.ui.confirm) instead of blocking")
    disable_rules: list[str] = Field(default_factory=list, description="rule ids to turn off (built-in, of a pack)")
    disable_packs: list[str] = Field(default_factory=list, description="rule packs to turn off as a whole")
    enable_packs: list[str] = Field(default_factory=list, description=(
        "packs that are off by default to turn on (strict: judgement calls decided the strict way)"))
    packs: dict[str, PackConfig] = Field(default_factory=dict, description="your own rule packs")
    max_command_bytes: int = Field(d.MAX_COMMAND_BYTES, ge=1024, le=1 << 30, description=(
        "commands larger than this are analysed on this much of them and blocked as too-large"))
    deny_commands: list[str] = Field(
        default_factory=list, description="extra regexes; a simple command (program basename and arguments "
                                          "joined by spaces, wrappers removed) matching one is blocked")
    allow_commands: list[str] = Field(
        default_factory=list, description="regexes; a simple command matching one is never blocked")
    protected_branches: list[str] = _list(d.PROTECTED_BRANCHES, "branches force-push/delete protects")
    protect_write: list[str] = _list(d.PROTECT_WRITE, "path patterns nothing may write, move or delete")
    protect_read: list[str] = _list(d.PROTECT_READ, "path patterns nothing may read")
    allow_write: list[str] = _list(d.ALLOW_WRITE, "exceptions to protect_write")
    allow_read: list[str] = _list(d.ALLOW_READ, "exceptions to protect_read")
    protect_agent_config: list[str] = _list(d.AGENT_CONFIG, "agent-hooks and host hook configuration nothing may "
                                                            "write (the user's settings.toml and trust.json always)")
    url_deny: list[str] = _list(d.URL_DENY, "hosts, *.domains, IPs, CIDRs or URL prefixes never fetched")
    url_allow: list[str] = Field(default_factory=list, description="if set, only these may be fetched")
    url_schemes: list[str] = _list(d.URL_SCHEMES, "URL schemes that may be fetched")
    deny_url_credentials: bool = Field(True, description="deny URLs with user:password@")
    exclude_tools: list[str] = Field(default_factory=list, description="tools never offered to the model")
    subagent_exclude_tools: list[str] = _list(
        d.SUBAGENT_EXCLUDE_TOOLS, "tools not offered to sub-agents (recursion_depth > 0)")
    redact_output: bool = Field(True, description="replace secrets in tool output before the model sees it")
    redact_patterns: list[str] = Field(
        default_factory=list, description="extra regexes to redact (a group named 'secret' limits the part)")
    shell_tools: list[str] = _list(d.SHELL_TOOLS, "tools whose `command` argument is a shell command")
    write_tools: list[str] = _list(d.WRITE_TOOLS, "tools whose `path` argument is written")
    read_tools: list[str] = _list(d.READ_TOOLS, "tools whose `path` argument is read")
    fetch_tools: list[str] = _list(d.FETCH_TOOLS, "tools whose `url` argument is fetched")

    @model_validator(mode="after")
    def _known_rules_and_packs(self) -> GuardConfig:
        from .packs import all_packs

        packs, _problems = all_packs({k: v.model_dump() for k, v in self.packs.items()})
        rules = set(d.RULES) | {rid for p in packs.values() for rid in p.rule_ids}
        unknown = [r for r in self.disable_rules if r not in rules]
        if unknown:
            raise ValueError(f"disable_rules: unknown rule {unknown[0]!r}; rules: {', '.join(sorted(rules))}")
        for key in ("disable_packs", "enable_packs"):
            unknown = [p for p in getattr(self, key) if p not in packs]
            if unknown:
                raise ValueError(f"{key}: unknown pack {unknown[0]!r}; packs: {', '.join(packs)}")
        return self

    @field_validator("deny_commands", "allow_commands", "redact_patterns")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        for pattern in value:
            _regex(pattern)
        return value
