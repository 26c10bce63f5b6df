"""Errors the runtime records or raises."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HookError:
    """One handler's failure during a hook call: recorded on the outcome, never raised."""

    plugin: str
    hook: str
    message: str
    kind: str = "error"
    """error (raised), invalid (bad answer), timeout, load (discovery)."""

    def __str__(self) -> str:
        return f"{self.plugin}: {self.hook}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"plugin": self.plugin, "hook": self.hook, "message": self.message, "kind": self.kind}


class AgentHooksError(Exception):
    """Base of the errors a host or the CLI sees; ``str()`` is one clear line."""


class UnknownHookError(AgentHooksError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown hook"


class PayloadError(AgentHooksError, ValueError):
    """The payload of a hook call is not what the hook expects."""


class ConfigError(AgentHooksError, ValueError):
    """A runtime option or setting is invalid (unknown hook in ``timeouts``, negative timeout, ...)."""


class PluginError(AgentHooksError):
    """A plugin could not be registered (bad hookimpl, unknown hook, ...)."""


class HandlerExit(Exception):
    """A handler called ``sys.exit()``: reported like any error instead of stopping the host."""

    def __str__(self) -> str:
        return f"SystemExit: {self.args[0]}" if self.args else "SystemExit"


def describe(exc: BaseException) -> str:
    """``Type: message`` (or ``Type``) on one line: how a failure is named in errors and answers."""
    if isinstance(exc, HandlerExit):
        return str(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class HookTimeout(BaseException):
    """Raised inside a handler that ran past its timeout.

    A BaseException so that a plugin's own ``except Exception`` cannot swallow it. ``token``
    identifies the watchdog frame whose deadline passed; None once the frame that owns it caught
    it (a nested call must let an outer frame's timeout through).
    """

    def __init__(self, token: int | None = None) -> None:
        super().__init__()
        self.token = token
