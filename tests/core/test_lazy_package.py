"""``import agent_hooks_core`` costs nothing until a public name is used: the per-event commands
import the package for its submodules and must not pay for pluggy, pydantic or the runtime."""

from __future__ import annotations

import subprocess
import sys

import agent_hooks_core

HEAVY = ("pluggy", "pydantic", "agent_hooks_core.runtime", "agent_hooks_core.event", "agent_hooks_core.toolwrap")


def _imported(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.split()


def test_the_package_and_its_entry_point_import_nothing_heavy() -> None:
    assert _imported("import agent_hooks_core, agent_hooks_core.__main__") == []


def test_a_public_name_imports_what_defines_it() -> None:
    assert "pluggy" in _imported("from agent_hooks_core import hookimpl")
    assert "agent_hooks_core.runtime" in _imported("from agent_hooks_core import Runtime")


def test_every_public_name_imports_and_dir_lists_them() -> None:
    for name in agent_hooks_core.__all__:
        assert getattr(agent_hooks_core, name) is not None, name
    assert set(agent_hooks_core.__all__) <= set(dir(agent_hooks_core))
    assert agent_hooks_core.Runtime.from_settings.__func__ is not None  # type: ignore[attr-defined]


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        agent_hooks_core.NoSuchName  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchName" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_from_settings_works_without_the_package_wiring_it() -> None:
    # the runtime wires its own settings loader: importing only agent_hooks_core.runtime suffices
    code = ("from agent_hooks_core.runtime import Runtime\nimport tempfile, os\n"
            "d = tempfile.mkdtemp()\nos.environ['AGENT_HOOKS_HOME'] = d\n"
            "os.environ['AGENT_HOOKS_DISABLE_PLUGIN_AUTOLOAD'] = '1'\n"
            "rt = Runtime.from_settings(cwd=d)\nprint(type(rt).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "Runtime", out.stderr
