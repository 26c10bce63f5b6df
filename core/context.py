"""What a handler's ``ctx`` argument offers: the host's state, its UI, exec and messaging.

Handlers take ``(event)`` or ``(event, ctx)``. One :class:`HookContext` exists per plugin, made
when the plugin is registered, so a hook call builds nothing for it.
"""

from __future__ import annotations

import os
import re
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import subprocess

    from .runtime import Runtime


class UI(Protocol):
    """The interactive UI a host may offer (seed 002's HookUIContext)."""

    def select(self, title: str, options: list[str]) -> str | None: ...
    def confirm(self, title: str, message: str) -> bool: ...
    def input(self, title: str, placeholder: str | None = None) -> str | None: ...
    def editor(self, title: str, prefill: str | None = None) -> str | None: ...
    def notify(self, message: str, kind: str = "info") -> None: ...
    def set_status(self, key: str, text: str | None) -> None: ...


class NoUI:
    """The UI when the host has none (seed 002): select/input/editor/custom give None, confirm
    False, get_editor_text ``""``; notify, set_status and set_editor_text show nothing (notifications
    and status texts are kept on the object so a host or a test can read them later)."""

    def __init__(self, status: StatusLine | None = None) -> None:
        self.status = status if status is not None else StatusLine()
        self.notifications: list[tuple[str, str]] = []

    def select(self, title: str, options: list[str]) -> str | None:
        return None

    def confirm(self, title: str, message: str) -> bool:
        return False

    def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None

    def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    def notify(self, message: str, kind: str = "info") -> None:
        # kept so a host without a UI (and the tests) can still show them later
        self.notifications.append((kind, message))

    def set_status(self, key: str, text: str | None) -> None:
        self.status.set(key, text)

    def set_editor_text(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        return ""

    def custom(self, *args: object, **kwargs: object) -> None:
        return None


_SPACES = re.compile(r" {2,}")


class StatusLine:
    """Per-key status texts, as seed 002's status line: sorted by key, sanitized, width-truncated."""

    def __init__(self, separator: str = " · ") -> None:
        self.separator = separator
        self._items: dict[str, str] = {}

    def set(self, key: str, text: str | None) -> None:
        if text is None or text == "":
            self._items.pop(key, None)
            return
        clean = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
        self._items[key] = _SPACES.sub(" ", clean).strip()

    def items(self) -> list[tuple[str, str]]:
        return sorted(self._items.items())

    def render(self, width: int | None = None) -> str:
        line = self.separator.join(text for _, text in self.items())
        if width is not None and len(line) > width:
            line = line[: max(width - 1, 0)] + "…" if width > 0 else ""
        return line


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    code: int
    killed: bool = False


def run_command(
    cmd: str, args: list[str] | tuple[str, ...] = (), *, timeout: float | None = None,
    cwd: str | None = None, input: str | None = None, env: dict[str, str] | None = None,
) -> ExecResult:
    """Run ``cmd args...`` without a shell; on timeout kill its whole process group."""
    import subprocess  # kept off the import of the package: bridge processes rarely exec

    try:
        proc = subprocess.Popen(
            [cmd, *args], cwd=cwd, env=env, text=True, start_new_session=True,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    except OSError as exc:
        return ExecResult("", f"{cmd}: {exc.strerror or exc}", 127)
    try:
        out, err = proc.communicate(input, timeout=timeout)
        return ExecResult(out, err, proc.returncode)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        return ExecResult(out or "", err or "", proc.returncode if proc.returncode is not None else -9, True)
    except BaseException:  # interrupted (a handler's deadline, HookTimeout): the command must not outlive it
        kill_group(proc)
        proc.wait()
        raise


def kill_group(proc: subprocess.Popen[Any]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


class HookContext:
    """The ``ctx`` a handler receives. Attributes follow the host's current state."""

    def __init__(self, runtime: Runtime, plugin: str, config: Any = None) -> None:
        self._rt = runtime
        self.plugin = plugin
        #: this plugin's settings section (validated by the plugin's config model, if it has one)
        self.config = config if config is not None else {}

    @property
    def cwd(self) -> str:
        return self._rt.cwd

    @property
    def session_file(self) -> str | None:
        return self._rt.session_file

    @property
    def session_id(self) -> str | None:
        return self._rt.session_id

    @property
    def host(self) -> str:
        return self._rt.host

    @property
    def has_ui(self) -> bool:
        return self._rt.has_ui

    @property
    def ui(self) -> UI:
        return self._rt.ui

    @property
    def runtime(self) -> Runtime:
        return self._rt

    def exec(self, cmd: str, args: list[str] | tuple[str, ...] = (), timeout: float | None = None) -> ExecResult:
        """Run a command in the host's working directory (stdout, stderr, code, killed)."""
        return run_command(cmd, args, timeout=timeout, cwd=self._rt.cwd)

    def send_message(self, text: str, **extra: object) -> None:
        """Inject a message into the agent session (pi's ``pi.send``)."""
        self._rt._deliver("send_message", {"text": text, "plugin": self.plugin, **extra})

    def append_entry(self, custom_type: str, data: object = None) -> None:
        """Persist non-model state in the session (pi's ``appendEntry``)."""
        self._rt._deliver("append_entry", {"custom_type": custom_type, "data": data, "plugin": self.plugin})

    def __repr__(self) -> str:
        return f"<HookContext plugin={self.plugin!r} cwd={self.cwd!r} has_ui={self.has_ui}>"
