"""What every transport shares: decoding one event, and answering it whatever goes wrong.

Standard library only (the per-event process imports this before the runtime).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..bridges.base import BridgeInputError, HostAdapter, HostAnswer
from ..bridges.hostkit.shape import load_json
from ..errors import describe as describe  # the one naming of a failure (also used as dispatch.describe)

if TYPE_CHECKING:
    from ..runtime import Runtime

#: the largest event we read (Claude Code's PostToolUse carries whole tool outputs)
MAX_EVENT_BYTES = 64 << 20
#: the deepest nesting of arrays and objects we accept in an event. Real events are a few levels
#: deep; a deeper one is refused before any plugin sees it, because plugins and the runtime walk
#: payloads recursively (copy.deepcopy, pydantic, json.dumps) and must not hit RecursionError
MAX_DEPTH = 100


def depth_exceeds(value: object, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` nests arrays/objects deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[object] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def decode(adapter: HostAdapter, raw: bytes, fallback: str | None = None
           ) -> tuple[dict[str, object] | None, str | None, str | None]:
    """(event, event name, problem): the event and no problem, or None and what is wrong with
    ``raw``. The name is the event's, else ``fallback`` (the installed ``--event``), else the one
    sniffed from the bytes, else None."""
    event, problem = _decode(adapter, raw)
    name = (adapter.event_name(event) if event is not None else None) or fallback
    if name is None:
        name = adapter.sniff_event_name(raw)
    return (None if problem else event), name, problem


def _decode(adapter: HostAdapter, raw: bytes) -> tuple[dict[str, object] | None, str | None]:
    if len(raw) > MAX_EVENT_BYTES:
        return None, f"the event is larger than {MAX_EVENT_BYTES:,} bytes"
    if not raw.strip():
        return None, "no event on stdin (expected one JSON object)"
    try:
        event, non_finite = load_json(raw)
    except RecursionError:
        return None, f"the event is nested deeper than {MAX_DEPTH} levels"
    except (ValueError, UnicodeDecodeError) as exc:
        return None, f"stdin is not valid JSON ({exc})"
    if not isinstance(event, dict):
        return None, f"stdin must hold a JSON object, not {type(event).__name__}"
    if depth_exceeds(event):
        return None, f"the event is nested deeper than {MAX_DEPTH} levels"
    if adapter.event_name(event) is None:
        return None, f"the event has no {adapter.event_field}"
    if non_finite:  # the event, for its name: the refusal is the adapter's failure (a deny when gating)
        return event, f"malformed event: {non_finite}"
    return event, None


def answer(adapter: HostAdapter, event: dict[str, object], name: str | None,
           build: Callable[[dict[str, object]], Runtime]) -> HostAnswer:
    """The adapter's answer to ``event``, with ``build(runtime_options)`` giving the runtime.

    Whatever fails on our side (the runtime cannot be built, the adapter raises, a plugin raises
    SystemExit...) becomes ``adapter.failure``: a deny/block on gating events."""
    try:
        rt = build(adapter.runtime_options(event))
    except BaseException as exc:  # a broken plugin set must not become a silent allow
        return adapter.failure(name, f"could not load the plugins: {describe(exc)}")
    try:
        result: HostAnswer = adapter.handle(rt, event)
    except BridgeInputError as exc:
        return adapter.failure(name, str(exc))
    except BaseException as exc:
        return adapter.failure(name, f"internal error: {describe(exc)}")
    try:
        from ..notices import attach

        result = attach(rt, result)  # what this project's untrusted parts left out, once per session
    except Exception:  # a notice that cannot be shown never costs the answer
        pass
    return result


def encode_body(body: object) -> bytes:
    """``body`` as UTF-8 JSON; text that UTF-8 cannot carry (a lone surrogate from a ``\\ud800``
    escape in the event) is escaped instead, never an error."""
    try:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body).encode("ascii")


def answer_to_dict(ans: HostAnswer) -> dict[str, object]:
    return {"body": ans.body, "stderr": list(ans.stderr), "exit_code": ans.exit_code, "blocked": ans.blocked}


def answer_from_dict(data: object) -> HostAnswer:
    """The inverse of :func:`answer_to_dict`; ValueError for anything else."""
    if not isinstance(data, dict):
        raise ValueError("an answer must be an object")
    stderr, code = data.get("stderr", []), data.get("exit_code", 0)
    if not (isinstance(stderr, list) and all(isinstance(s, str) for s in stderr)) or type(code) is not int:
        raise ValueError("malformed answer")
    return HostAnswer(body=data.get("body"), stderr=stderr, exit_code=code, blocked=bool(data.get("blocked")))
