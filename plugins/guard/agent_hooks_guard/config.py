"""The guard's settings section ``[plugins.guard]``, validated by pydantic."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import defaults as d


def _list(values: list[str], doc: str) -> list[str]:
    return Field(default_factory=lambda: list(values), description=doc)


class GuardConfig(BaseModel):
    """``[plugins.guard]`` in settings.toml."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["enforce", "observe"] = Field(
        "enforce", description="enforce blocks; observe only records what it would have blocked")
    ask: bool = Field(True, description="with a UI, ask the user (ctx.ui.confirm) instead of blocking")
    disable_rules: list[str] = Field(default_factory=list, description=f"rule ids to turn off: {', '.join(d.RULES)}")
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

    @field_validator("disable_rules")
    @classmethod
    def _known_rules(cls, value: list[str]) -> list[str]:
        unknown = [r for r in value if r not in d.RULES]
        if unknown:
            raise ValueError(f"unknown rule {unknown[0]!r}; rules: {', '.join(d.RULES)}")
        return value

    @field_validator("deny_commands", "allow_commands", "redact_patterns")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regex {pattern!r}: {exc}") from None
        return value
