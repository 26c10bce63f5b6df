"""The contract between host adapters and transports.

A **host adapter** (one module or package per host under ``agent_hooks_core.bridges``) turns one
host event, a dict, into canonical fires on a :class:`~agent_hooks_core.runtime.Runtime` and returns
the host's answer as a :class:`HostAnswer`. It does no I/O of its own: no stdin, stdout, sockets or
process exit. A **transport** (the per-event process, HTTP, the unix socket, stdio JSON lines)
carries the event to the adapter and the answer back, and owns everything around it: reading and
bounding input, building or reusing the runtime, timeouts, and turning its own failures into
:meth:`HostAdapter.failure`.

Standard library only: bridge processes import this before anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..runtime import Runtime


@dataclass
class HostAnswer:
    """What the host gets back for one event, in its own terms.

    ``body`` is the JSON value the host reads (a command hook's stdout, an HTTP response body,
    a stdio reply), or None for "nothing to say". ``stderr`` lines are for a command hook's
    stderr (a host that reads the reason from stderr on exit 2 gets it there). ``exit_code`` is the
    command hook's exit status; transports that have no exit code (HTTP, stdio) send ``body`` and,
    where the host needs it, map a non-zero code into the body themselves via the adapter.
    """

    body: Any = None
    stderr: list[str] = field(default_factory=list)
    exit_code: int = 0
    #: True when the answer stops the host's action (a deny or block): transports count it and
    #: `agenthooks serve status` reports it; never used to decide what is sent
    blocked: bool = False


class HostAdapter:
    """One host's protocol: every adapter is an instance of a subclass (stateless, module-level).

    A subclass sets :attr:`name` and implements :meth:`event_name`, :meth:`is_gating`,
    :meth:`runtime_options`, :meth:`handle` and :meth:`failure`; every other member has a default
    here, so transports call them directly. (:class:`~.hostkit.adapter.Adapter` implements the five
    for hosts whose events name themselves in a field and dispatches to ``on_<Event>`` methods.)
    """

    #: the host's name as users type it: ``agenthooks install <name>``, ``/hosts/<name>`` over HTTP
    name: str = ""
    #: seconds a transport waits for the answer before it answers :meth:`failure` itself (below
    #: the host's own timeout)
    answer_deadline: float = 55.0

    @property
    def event_field(self) -> str:
        """The event's field naming it, for messages (``hook_event_name``)."""
        return "event name"

    @property
    def usage(self) -> str:
        """The --help text of the per-event command (``agenthooks <host>``)."""
        return f"usage: agenthooks {self.name} [--event NAME] [--hook PATH]... [--settings PATH]\n"

    def event_name(self, event: Mapping[str, Any]) -> str | None:
        """The host's name for this event (``PreToolUse``, ``BeforeTool``…), None if unknown."""
        raise NotImplementedError

    def is_gating(self, event_name: str | None) -> bool:
        """True where the host decides from our answer whether an action runs: any failure of ours
        on such an event must end in a deny/block (:meth:`failure`)."""
        raise NotImplementedError

    def runtime_options(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """Keyword arguments for ``Runtime.from_settings`` taken from the event: ``cwd``,
        ``session_id``, ``session_file``, ``host``, and ``ui``/``has_ui`` when the host has its own
        (a fresh UI object per call: it holds per-call state). The transport adds hooks and settings."""
        raise NotImplementedError

    def handle(self, rt: Runtime, event: dict[str, Any]) -> HostAnswer:
        """Fire the canonical hooks for ``event`` and render the host's answer.

        Raises ``BridgeInputError`` for an event it cannot understand; the transport turns that
        (and anything else raised) into :meth:`failure`."""
        raise NotImplementedError

    def failure(self, event_name: str | None, problem: str) -> HostAnswer:
        """Our side failed (``problem`` is one line): a deny/block on gating events, else the
        host's non-blocking error."""
        raise NotImplementedError

    # -- with defaults ---------------------------------------------------------------------------

    def parse_args(self, argv: list[str]) -> CommandOptions:
        """The per-event command line; raises :class:`UsageError`."""
        return parse_command_args(argv)

    def configure(self, options: CommandOptions) -> HostAdapter:
        """The adapter with those options applied (HTTP passes them as ``?arg=--ask&arg=...``: the
        same argv). Default: the adapter itself."""
        return self

    def sniff_event_name(self, raw: bytes) -> str | None:
        """The event name found in bytes that are not valid JSON, or None."""
        return None

    def subscriptions(self, rt: Runtime | None) -> list[str]:
        """The host events worth forwarding given the loaded plugins (``rt`` is None when they
        failed to load); ``serve --stdio`` returns it from ``initialize``. Default: [] (the
        extension decides alone)."""
        return []


class BridgeInputError(Exception):
    """The host sent an event the adapter cannot understand (missing or mistyped fields)."""


class UsageError(Exception):
    """A per-event command line the command does not understand (one line)."""


class CommandOptions:
    """The options every per-event host command takes."""

    def __init__(self) -> None:
        self.hooks: list[str] = []
        self.settings: str | None = None
        self.event: str | None = None
        self.help = False


def parse_command_args(argv: list[str], options: CommandOptions | None = None,
                       valued: tuple[str, ...] = ("--hook", "--settings", "--event"),
                       flags: tuple[str, ...] = ()) -> CommandOptions:
    """``--hook PATH`` (repeatable), ``--settings PATH``, ``--event NAME``, ``-h/--help``; ``valued``
    names the options taken here, ``flags`` options without a value that are accepted and ignored."""
    opts = options if options is not None else CommandOptions()
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help"):
            opts.help = True
            i += 1
            continue
        if arg in flags:
            i += 1
            continue
        if name not in valued:
            raise UsageError(f"unknown option {arg!r} (try --help)")
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError(f"{name} needs a value")
            value = argv[i + 1]
            i += 1
        i += 1
        if name == "--hook":
            opts.hooks.append(value)
        elif name == "--settings":
            opts.settings = value
        else:
            opts.event = value
    return opts
