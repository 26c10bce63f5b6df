"""``agenthooks hooks``: the catalogue as a table, JSON, one hook's fields, JSON Schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from ..errors import UnknownHookError
from ..hookspecs import catalogue as cat
from ..hookspecs.catalogue import BY_NAME, RUNTIME_HOOKS, HookDef
from .common import console

if TYPE_CHECKING:
    from pydantic import BaseModel


def names() -> list[str]:
    return list(BY_NAME)


def resolve(name: str, system: str | None = None) -> HookDef:
    if system is not None and system not in cat.SYSTEMS:
        raise UnknownHookError(f"unknown system {system!r}; one of {', '.join(cat.SYSTEMS)}")
    try:
        return cat.resolve(name, system)
    except KeyError as exc:
        raise UnknownHookError(exc.args[0] if exc.args else f"unknown hook {name!r}") from None


class HookSummary(TypedDict):
    """One hook in ``agenthooks hooks --json``."""

    name: str
    category: str
    summary: str
    rule: str
    observe: bool
    fail_closed: bool
    timeout: bool
    aliases: dict[str, list[str]]


class FieldRow(TypedDict):
    name: str
    type: str
    required: bool
    description: str


class _Implementers(TypedDict, total=False):
    implemented_by: list[str]


class HookDetail(HookSummary, _Implementers):
    """One hook in ``agenthooks hooks HOOK --json``."""

    payload: list[FieldRow]
    result: list[FieldRow] | None
    event_model: str
    result_model: str | None


def hook_dict(name: str) -> HookSummary:
    hd = BY_NAME[name]
    return {
        "name": hd.name,
        "category": hd.category,
        "summary": hd.summary,
        "rule": hd.rule,
        "observe": hd.observe,
        "fail_closed": hd.fail_closed,
        "timeout": hd.timeout,
        "aliases": {system: list(names) for system, names in hd.aliases.items()},
    }


def _fields(model: type[BaseModel] | None, codes: object) -> list[FieldRow]:
    if model is None:
        return []
    by_wire: dict[object, object] = {}
    if isinstance(codes, dict):
        by_wire = dict(codes)
    elif isinstance(codes, (list, tuple)):
        by_wire = {f[0]: f[1] for f in codes}
    out: list[FieldRow] = []
    for attr, info in model.model_fields.items():
        wire = info.alias or attr
        out.append({
            "name": wire,
            "type": str(by_wire.get(wire, "any")),
            "required": info.is_required(),
            "description": info.description or "",
        })
    return out


def hook_detail(name: str, implementers: list[str] | None = None) -> HookDetail:
    from ..hookspecs._fields import EVENT_FIELDS, RESULT_FIELDS
    from ..hookspecs.models import EVENTS, RESULTS

    result = RESULTS[name]
    s = hook_dict(name)
    detail: HookDetail = {
        "name": s["name"], "category": s["category"], "summary": s["summary"], "rule": s["rule"],
        "observe": s["observe"], "fail_closed": s["fail_closed"], "timeout": s["timeout"], "aliases": s["aliases"],
        "payload": _fields(EVENTS[name], EVENT_FIELDS.get(name)),
        "result": _fields(result, RESULT_FIELDS.get(name)) if result is not None else None,
        "event_model": EVENTS[name].__name__,
        "result_model": result.__name__ if result is not None else None,
    }
    if implementers is not None:
        detail["implemented_by"] = implementers
    return detail


def schemas(name: str) -> dict[str, object]:
    from ..hookspecs.models import EVENTS, RESULTS

    result = RESULTS[name]
    return {
        "hook": name,
        "event": EVENTS[name].model_json_schema(),
        "result": result.model_json_schema() if result is not None else None,
    }


def _aliases(hd: HookDef) -> str:
    return "  ".join(f"{system}:{','.join(names)}" for system, names in hd.aliases.items())


def print_table() -> None:
    from .common import print_table as render
    from .tables import Column

    out = console()
    render([Column("hook"), Column("category"), Column("rule", text=True), Column("aliases", text=True)],
           [[hd.name, hd.category, hd.rule, _aliases(hd)] for hd in BY_NAME.values()], out)
    out.print(f"\n{len(BY_NAME)} hooks. The runtime's own hooks: {', '.join(RUNTIME_HOOKS)}. "
              "`agenthooks hooks HOOK` shows one hook's payload and result fields.", markup=False)


def print_detail(name: str, implementers: list[str] | None = None) -> None:
    from .common import esc
    from .common import print_table as render
    from .tables import Column

    d = hook_detail(name, implementers)
    out = console()
    out.print(f"[bold]{esc(d['name'])}[/bold] ({esc(d['category'])}): {esc(d['summary'])}")
    out.print(f"rule: {esc(d['rule'])}" + ("; fail-closed" if d["fail_closed"] and "fail-closed" not in d["rule"] else "")
              + ("" if d["timeout"] else "; no default timeout"))
    if d["aliases"]:
        out.print("aliases: " + esc(_aliases(BY_NAME[name])))
    if implementers is not None:
        out.print("implemented by: " + esc(", ".join(implementers) or "(no loaded plugin)"))
    for title, fields, model in (("payload", d["payload"], d["event_model"]),
                                 ("result", d["result"], d["result_model"])):
        if fields is None:
            out.print(f"\n{title}: none (observe hook: return values are ignored)")
            continue
        out.print(f"\n{title} ({model}):")
        render([Column("field"), Column("type", text=True), Column("required"), Column("description", text=True)],
               [[f["name"], f["type"], "yes" if f["required"] else "", f["description"]] for f in fields], out)
