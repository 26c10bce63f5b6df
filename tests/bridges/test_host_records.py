"""The host records: every first-party host is one valid record, everything that lists hosts reads
them, and a broken or clashing host module is refused without taking the others down."""

from __future__ import annotations

import types

import pytest
from agent_hooks_core import hookimpl
from agent_hooks_core.bridges import registry
from agent_hooks_core.bridges.record import Cap, Config, Host, derive_events
from agent_hooks_core.fastcommands import fast_command
from agent_hooks_core.hookspecs.catalogue import BY_NAME

FIRST = registry.first_party()
NAMES = [h.name for h in FIRST]


def make(name: str = "toyhost", **changes: object) -> Host:
    fields: dict[str, object] = dict(
        name=name, title="Toy", adapter="toy_host:ADAPTER", installer="toy_host.install",
        config=Config("json", ("user",), "~/.toy/hooks.json"), transport="command hook per event",
        transports=("command",), events=("Before",), capabilities={"pre_tool": Cap("Before", block=True)},
        failure="exit 2 blocks", docs="toy.md")
    fields.update(changes)
    return Host(**fields)  # type: ignore[arg-type]


def test_first_party_hosts_are_the_shipped_ones():
    assert sorted(NAMES) == ["claude-code", "codex", "copilot", "cursor", "droid", "gemini", "kimi", "omp",
                            "opencode", "openhands", "pi", "qwen", "vibe"]
    assert all(h.source == "agent_hooks_core" for h in FIRST)


@pytest.mark.parametrize("host", NAMES)
def test_record_is_consistent(host):
    record = registry.get(host)
    caps = record.caps()
    assert caps, "a host declares what it does with each hook"
    assert set(caps) <= {*BY_NAME, "host_event"}, sorted(set(caps) - {*BY_NAME, "host_event"})
    mapped = {hook for hooks in record.event_map().values() for hook in hooks}
    assert mapped <= {*caps, "host_event"}, sorted(mapped - {*caps, "host_event"})
    assert set(caps) - {"host_event"} <= mapped, "every declared hook is fired by some host event"
    installer = record.load_installer()
    assert tuple(getattr(installer, "SCOPES", record.config.scopes)) == record.config.scopes
    for member in ("install", "uninstall", "status", "config_targets"):
        assert callable(getattr(installer, member)), member
    adapter = record.load_adapter()
    assert adapter.name == host
    if record.command is not None:
        assert callable(record.load_command())
        assert "command" in record.transports
    assert record.docs == f"{host}.md"


@pytest.mark.parametrize("host", NAMES)
def test_per_event_command_comes_from_the_record(host):
    assert fast_command(host) == registry.get(host).command


def test_fast_commands_are_only_per_event_ones():
    assert fast_command("serve") and fast_command("chibi")
    assert fast_command("install") is None and fast_command("--hook") is None and fast_command("") is None


def test_unknown_host_is_one_line_naming_the_known_ones():
    with pytest.raises(registry.UnknownHostError) as info:
        registry.get("nosuchhost")
    assert "nosuchhost" in str(info.value) and "codex" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(("changes", "problem"), [
    ({"adapter": "no-colon"}, "adapter must be 'module:attribute'"),
    ({"installer": "a b"}, "installer must be"),
    ({"command": "mod:"}, "command must be"),
    ({"name": "Bad Name"}, "name must be a lower-case word"),
    ({"transports": ("carrier-pigeon",)}, "transports must be"),
    ({"transports": ()}, "transports must be"),
    ({"config": Config("json", (), "x")}, "config.scopes"),
])
def test_a_malformed_record_is_refused_naming_the_field(changes, problem):
    with pytest.raises(ValueError, match=problem):
        make(**changes)


def test_event_map_is_derived_from_the_capabilities():
    caps = {"pre_tool": Cap("Before (Bash, MCP)", block=True), "pre_shell_exec": Cap("Before Bash"),
            "post_tool": Cap("After, AfterFailure")}
    assert derive_events(("Before", "After", "AfterFailure", "Notice"), caps) == {
        "Before": ("pre_tool", "pre_shell_exec"), "After": ("post_tool",), "AfterFailure": ("post_tool",),
        "Notice": ("host_event",)}
    assert make(events=lambda: {"X": ("pre_tool",)}).event_map() == {"X": ("pre_tool",)}


def module(*records: object, fail: bool = False) -> types.ModuleType:
    mod = types.ModuleType("toy_hosts")

    @hookimpl
    def register_hosts():
        if fail:
            raise RuntimeError("boom")
        return list(records)

    mod.register_hosts = register_hosts  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def clean_problems():
    registry._PROBLEMS.clear()
    yield registry._PROBLEMS
    registry._PROBLEMS.clear()


def test_third_party_records_are_collected_with_their_source(clean_problems):
    taken = {n: h for h in FIRST for n in h.names}
    got = registry._collect([("toy (toy_hosts)", module(make()))], taken, "toy-dist", strict=False)
    assert [(h.name, h.source) for h in got] == [("toyhost", "toy-dist")]
    assert taken["toyhost"].source == "toy-dist" and not clean_problems


@pytest.mark.parametrize(("mod", "problem"), [
    (module(make("codex")), "the name 'codex' is taken by agent_hooks_core"),
    (module(make(aliases=("claude-code",))), "the name 'claude-code' is taken"),
    (module(fail=True), "RuntimeError: boom"),
    (module("not a record"), "returned str, not Host"),
])
def test_a_clashing_or_broken_host_module_is_refused_and_reported(clean_problems, mod, problem):
    taken = {n: h for h in FIRST for n in h.names}
    assert registry._collect([("toy (toy_hosts)", mod)], taken, "toy-dist", strict=False) == []
    assert len(clean_problems) == 1 and problem in clean_problems[0], clean_problems
    assert taken["codex"].source == "agent_hooks_core"  # the first-party host keeps its name


def test_aliases_resolve_to_the_record(monkeypatch):
    aliased = make(aliases=("toy",))
    monkeypatch.setattr(registry, "_ALL", (*FIRST, aliased))
    assert registry.get("toy") is aliased and registry.find("toy") is aliased
    assert registry.names()[-1] == "toyhost"


#: hosts whose record lists every event the pinned version fires (read from its shipped code)
WITH_FIRES = [h.name for h in FIRST if h.fires]


@pytest.mark.parametrize("host", WITH_FIRES)
def test_every_event_the_pinned_host_fires_is_wired_or_says_why_not(host):
    record = registry.get(host)
    wired = record.event_map()
    missing = [e for e in record.fires if e not in wired and e not in record.not_wired]
    assert not missing, f"{host} fires {missing}: map them (or host_event), or say in not_wired why not"
    assert set(record.not_wired) <= set(record.fires) and not set(record.not_wired) & set(wired)
    assert all(reason.strip() for reason in record.not_wired.values())
    assert set(wired) <= set(record.fires), f"{host} wires events it never fires: {sorted(set(wired) - set(record.fires))}"


def test_the_hosts_with_an_event_list_are_the_ones_read_so_far():
    assert {"claude-code", "codex", "copilot", "droid", "qwen", "pi", "omp", "opencode", "gemini"} <= set(WITH_FIRES)
