"""The sandbox's settings section ``[plugins.sandbox]``, validated by pydantic."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import defaults as d

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _list(values: list[str], doc: str) -> list[str]:
    return Field(default_factory=lambda: list(values), description=doc)


class CommandException(BaseModel):
    """``[[plugins.sandbox.exceptions]]``: more room for commands matching a pattern."""

    model_config = ConfigDict(extra="forbid")

    match: str = Field(min_length=1, description="a regex the whole command must match (a simple command only: "
                                                 "no ; & | ` $( < > or newline)")
    network: Literal["on", "off"] | None = Field(None, description="network for these commands")
    writable: list[str] = Field(default_factory=list, description="more writable paths (never inside a hidden one)")

    @field_validator("match")
    @classmethod
    def _regex(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regex {value!r}: {exc}") from None
        return value


class SandboxConfig(BaseModel):
    """``[plugins.sandbox]`` in settings.toml."""

    model_config = ConfigDict(extra="forbid")

    fallback: Literal["deny", "unsandboxed"] = Field(
        "deny", description="without a working bubblewrap: deny shell commands, or run them unsandboxed "
                            "with a warning")
    network: Literal["on", "off"] = Field("off", description="network inside the sandbox (off: --unshare-net)")
    writable: list[str] = _list(d.WRITABLE, "paths a command may write ({project} = the project root; "
                                            "add tool caches such as ~/.cache/pip); /tmp is always a private one")
    hidden: list[str] = _list(d.HIDDEN, "paths made empty inside the sandbox (agent-hooks' own settings, trust "
                                        "store, hook directories and host hook configurations always are)")
    read_only: list[str] = _list(d.READ_ONLY, "paths inside a writable root that stay read-only (the project's git "
                                              "hooks and config: they run code for you outside the sandbox)")
    exceptions: list[CommandException] = Field(default_factory=list,
                                               description="more network or writable paths for matching commands")
    unset_env: list[str] = Field(default_factory=list, description="more environment variables to remove")
    keep_env: list[str] = Field(default_factory=list, description="secret-looking variables to keep")
    @field_validator("unset_env", "keep_env")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not _ENV_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not an environment variable name")
        return value

    shell: str = Field("/bin/bash", description="the shell that runs the command inside the sandbox")
    bwrap: str = Field("bwrap", description="the bubblewrap program (a name on PATH or an absolute path)")
    shell_tools: list[str] = _list(d.SHELL_TOOLS, "tools whose `command` argument is a shell command")
