"""The pytest plugin for plugin authors, and the testing helpers it builds on."""

from __future__ import annotations

import re
import textwrap

import pytest
from agent_hooks_core import PluginError, hookimpl
from agent_hooks_core.testing import (
    HookRecorder,
    assert_allowed,
    assert_blocked,
    assert_denied,
    assert_error,
    assert_modified,
    assert_no_errors,
    assert_observed,
    assert_result,
    make_runtime,
)

pytest_plugins = ["pytester"]

PLUGIN = """
from pydantic import BaseModel
from agent_hooks_core import hookimpl

class Config(BaseModel, extra="forbid"):
    word: str = "danger"

@hookimpl
def plugin_config_model():
    return Config

@hookimpl
def pre_tool(event, ctx):
    word = ctx.config.word if hasattr(ctx.config, "word") else "danger"
    if word in event.arguments.get("command", ""):
        return {"block": True, "reason": f"{word} is not allowed"}
"""

AUTHOR_TESTS = """
import pytest
from agent_hooks_core.testing import assert_allowed, assert_blocked

def shell(cmd):
    return {"tool_name": "bash", "arguments": {"command": cmd}}

def test_runtime_holds_only_the_plugin_under_test(plugin_runtime):
    assert plugin_runtime.plugins == ["myplug"]
    assert_blocked(plugin_runtime.fire("pre_tool", shell("danger")), reason="danger", by="myplug")
    assert_allowed(plugin_runtime.fire("pre_tool", shell("ls")))

@pytest.mark.plugin_config({"word": "sudo"})
def test_config_marker(plugin_runtime):
    assert plugin_runtime.context("myplug").config.word == "sudo"
    assert_blocked(plugin_runtime.fire("pre_tool", shell("sudo ls")))

@pytest.mark.plugin_config({"wrod": "x"})
def test_invalid_config_errors(plugin_runtime):
    pass

def test_recorder(plugin_runtime, hook_recorder):
    plugin_runtime.fire("turn_start", {})
    plugin_runtime.fire("pre_tool", shell("ls"))
    assert hook_recorder.hooks == ["turn_start", "pre_tool"]

def test_make_runtime(make_runtime):
    import myplug
    rt = make_runtime(myplug, config={"word": "curl"})
    assert_blocked(rt.fire("pre_tool", shell("curl x")))

def test_a_failing_assertion_explains_itself(plugin_runtime):
    assert_blocked(plugin_runtime.fire("pre_tool", shell("ls")))
"""


def test_author_workflow_with_the_projects_own_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("""
        [project]
        name = "agent-hooks-myplug"
        version = "0.1"
        [project.entry-points.agent_hooks]
        myplug = "myplug"
        [tool.pytest.ini_options]
        pythonpath = ["."]
    """)
    pytester.makepyfile(myplug=PLUGIN, test_myplug=AUTHOR_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=1, errors=1)
    result.stdout.fnmatch_lines([
        "*test_invalid_config_errors*",
        "*PluginError: plugin 'myplug': invalid ?plugins.myplug? in test: wrod: Extra inputs are not permitted*",
        "*AssertionError: expected pre_tool to be blocked; pre_tool: decision 'allowed'*answered by nobody*",
    ])


def test_the_plugin_under_test_can_be_named_in_the_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nagent_hooks_plugin = myplug\npythonpath = .\n")
    pytester.makepyfile(myplug=PLUGIN, test_it="""
        def test_it(plugin_runtime):
            assert plugin_runtime.plugins == ["myplug"]
    """)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_without_a_plugin_under_test_the_fixture_says_what_to_do(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_it="def test_it(plugin_runtime):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*which plugin is under test?*agent_hooks_plugin*"])
    assert result.ret != 0


def test_conformance_vectors_run_as_parametrized_tests(pytester: pytest.Pytester) -> None:
    from agent_hooks_core.testing import vectors

    expected = sum(len([m for m in vectors.MODES if m in v.modes]) for v in vectors.load_vectors())
    assert expected > 50
    pytester.makepyfile(test_conf="""
        def test_conformance(conformance_vector):
            conformance_vector.check()
    """)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q").assert_outcomes(passed=expected)


def test_conformance_vectors_catch_a_wrong_runtime(pytester: pytest.Pytester) -> None:
    from agent_hooks_core.testing import vectors

    chain = vectors.packaged_dir() / "chain.json"
    cases = sum(len([m for m in vectors.MODES if m in v.modes]) for v in vectors.load_vectors(chain))
    pytester.makeini(f"[pytest]\nagent_hooks_vectors = {chain}\n")
    pytester.makepyfile(test_conf="""
        from agent_hooks_core import Runtime

        def reversed_factory(plugins, **options):  # registers the plugins in the wrong order
            return Runtime(plugins=list(reversed(plugins)), **options)

        def test_wrong(conformance_vector):
            if conformance_vector.vector.name == "pre_tool/chain-arguments":
                conformance_vector.check(reversed_factory)
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=cases - 2, failed=2)
    result.stdout.fnmatch_lines(["*conformance vector pre_tool/chain-arguments ?fire?*"])


# -- the helpers, directly ----------------------------------------------------------------------------


class Blocker:
    @hookimpl
    def pre_tool(self, event):
        if event.arguments.get("command") == "rm":
            return {"block": True, "reason": "no rm"}
        if event.arguments.get("command") == "sed":
            return {"arguments": {"command": "sed -n"}}
        return None

    @hookimpl
    def pre_shell_exec(self, event):
        return {"denied": True, "reason": "never"}

    @hookimpl
    def turn_start(self, event):
        raise RuntimeError("boom")


def call(command: str) -> dict:
    return {"tool_name": "bash", "arguments": {"command": command}}


def test_assertion_helpers_pass_and_fail_with_context() -> None:
    rt = make_runtime(("blocker", Blocker()))
    blocked = rt.fire("pre_tool", call("rm"))
    assert assert_blocked(blocked, reason="no rm", by="blocker") is blocked
    assert_allowed(rt.fire("pre_tool", call("ls")))
    assert assert_modified(rt.fire("pre_tool", call("sed")), arguments={"command": "sed -n"})["arguments"]
    assert_result(blocked, block=True)
    assert_denied(rt.fire("pre_shell_exec", {"command": "ls"}), reason="never")
    observed = rt.fire("turn_start", {})
    assert_observed(observed)
    assert assert_error(observed, plugin="blocker", kind="error", match="boom").hook == "turn_start"
    assert_no_errors(blocked)
    with pytest.raises(AssertionError, match="expected pre_tool to be blocked; pre_tool: decision 'allowed'"):
        assert_blocked(rt.fire("pre_tool", call("ls")))
    with pytest.raises(AssertionError, match="expected the reason to contain 'yes'"):
        assert_blocked(blocked, reason="yes")
    with pytest.raises(AssertionError, match="unexpected errors: blocker: turn_start: RuntimeError: boom"):
        assert_no_errors(observed)
    with pytest.raises(AssertionError, match=r"no error with plugin='other'"):
        assert_error(observed, plugin="other")
    with pytest.raises(AssertionError, match=re.escape("expected {'block': False}")):
        assert_result(blocked, block=False)


def test_make_runtime_validates_config_like_discovery(tmp_path) -> None:
    path = tmp_path / "cfgplug.py"
    path.write_text(textwrap.dedent(PLUGIN))
    rt = make_runtime(str(path), config={"word": "x"})
    assert rt.plugins == ["cfgplug"] and rt.context("cfgplug").config.word == "x"
    with pytest.raises(PluginError, match=r"invalid \[plugins.cfgplug\] in test: word: Input should be a valid string"):
        make_runtime(str(path), config={"word": 3})
    with pytest.raises(TypeError, match="single plugin"):
        make_runtime(("a", Blocker()), ("b", Blocker()), config={})
    with pytest.raises(PluginError, match="no plugin 'nothing_here_xyz'"):
        make_runtime("nothing_here_xyz")


def test_make_runtime_loads_installed_plugins_by_name() -> None:
    rt = make_runtime("agent-hooks-guard")
    assert rt.plugins == ["guard"]


def test_recorder() -> None:
    rt = make_runtime(("blocker", Blocker()))
    rec = HookRecorder.attach(rt)
    assert rec.last is None
    rt.fire("pre_tool", call("rm"))
    assert rec.hooks == ["pre_tool"] and rec.last is not None and rec.last.decision == "blocked"
    assert len(rec.get("pre_tool")) == 1
