"""The fire path stays light (no typer, rich or pydantic), and every canonical hook fires with a seed payload."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from agent_hooks_core import HookContext, HookEvent, Runtime, hookimpl
from agent_hooks_core.hookspecs.catalogue import BY_NAME, HOOKS
from agent_hooks_core.hookspecs.models import EVENTS

HEAVY = ("typer", "rich", "pydantic", "agent_hooks_core.cli", "agent_hooks_core.hookspecs.models")

LIGHT_SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
    from agent_hooks_core import HookToolWrapper, Runtime, hookimpl
    from agent_hooks_core.errors import PayloadError, UnknownHookError

    class Plugin:
        @hookimpl(tryfirst=True)
        def pre_tool(self, event, ctx):
            return {"arguments": {**event.arguments, "checked": True}}

        @hookimpl
        async def post_tool(self, event):
            await asyncio.sleep(0)

        @hookimpl
        def pre_message(self, event):
            return {"prompt": 5}  # invalid: reported without pydantic

        @hookimpl
        def pre_file_read(self, event):
            raise RuntimeError("boom")

        @hookimpl
        def hook_called(self, outcome, ctx):
            outcome.to_dict()

    rt = Runtime([Plugin()], hook_timeout=5)
    outs = [
        rt.fire("pre_tool", {"tool_name": "t", "arguments": {"a": 1}}),
        rt.fire("post_tool", {"tool_name": "t"}),
        rt.fire("pre_message", {"prompt": "hi"}),
        rt.fire("pre_file_read", {"path": "/x"}),
        rt.fire("pre_api_tools", {"tools": [{"name": "a"}]}),
        asyncio.run(rt.afire("pre_api_request", {"request_body": {"a": 1}})),
    ]
    HookToolWrapper(rt, "echo", lambda **kw: "ok")(x=1)
    for bad in (lambda: rt.fire("nope"), lambda: rt.fire("pre_tool", {})):
        try:
            bad()
        except (PayloadError, UnknownHookError):
            pass
    print(json.dumps({"decisions": [o.decision for o in outs],
                      "loaded": [m for m in sys.argv[1:] if m in sys.modules]}))
""")


def test_fire_imports_neither_typer_rich_nor_pydantic() -> None:
    proc = subprocess.run([sys.executable, "-c", LIGHT_SCRIPT, *HEAVY], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["decisions"] == ["modified", "observed", "allowed", "denied", "allowed", "allowed"]
    assert report["loaded"] == []


def _seed_payloads() -> dict[str, dict[str, Any]]:
    """The seeds' example payloads, translated to canonical names: the catalogue vectors carry them."""
    doc = json.loads((Path(__file__).resolve().parents[2] / "core" / "data" / "vectors" / "catalogue.json").read_text())
    return {v["hook"]: v["payload"] for v in doc["vectors"]}


SEEDS = _seed_payloads()


def _everything_plugin(seen: dict[str, Any]) -> Any:
    """One plugin implementing every canonical hook as (event, ctx) handlers that record what they got."""
    namespace: dict[str, Any] = {}
    for hd in HOOKS:
        def handler(self: Any, event: HookEvent, ctx: HookContext, _hook: str = hd.name) -> None:
            seen[_hook] = (event, ctx)

        handler.__name__ = hd.name
        namespace[hd.name] = hookimpl(handler)
    return type("Everything", (), namespace)()


@pytest.mark.parametrize("mode", ["fire", "afire"])
def test_every_canonical_hook_fires_with_its_seed_payload(mode: str) -> None:
    assert set(SEEDS) == set(BY_NAME)
    seen: dict[str, Any] = {}
    rt = Runtime([_everything_plugin(seen)])
    for hook, payload in SEEDS.items():
        out = rt.fire(hook, payload) if mode == "fire" else asyncio.run(rt.afire(hook, payload))
        event, ctx = seen[hook]
        assert {k: event[k] for k in payload} == payload, hook
        assert event.hook == hook and ctx.plugin == "Everything"
        assert isinstance(event.model(), EVENTS[hook])
        hd = BY_NAME[hook]
        expected = "observed" if hd.observe else "allowed"
        assert out.decision == expected, (hook, out.data)
        assert out.errors == [] and out.handlers == ["Everything"]
        if out.data is not None:
            out.result  # noqa: B018 - the combined result is a valid model
