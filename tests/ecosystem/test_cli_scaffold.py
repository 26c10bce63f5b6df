"""A scaffolded plugin develops against a local agent-hooks checkout, as CONTRIBUTING.md says, in a fresh venv."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from agent_hooks_core.cli.scaffold import core_checkout, next_steps

from tests.support.venvs import ROOT, Wheelhouse, run


def test_next_steps_install_the_core_from_the_checkout_agenthooks_runs_from(tmp_path: Path) -> None:
    steps = next_steps(tmp_path / "agent-hooks-x")
    checkout = core_checkout()
    if checkout is None:  # an installed wheel (tox): the core comes from the index
        assert "pip install -e '.[test]' && pytest" in steps
    else:
        assert checkout == ROOT
        assert f"pip install -e {checkout} && pip install -e '.[test]' && pytest" in steps


def test_contributing_python_examples_import_what_they_use() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        compile(block.replace("...", "pass"), "CONTRIBUTING.md", "exec")
        if re.search(r"\bpytest\.", block):
            assert re.search(r"^import pytest$", block, flags=re.MULTILINE), block


@pytest.mark.slow
def test_scaffold_installs_and_tests_against_a_local_checkout(tmp_path: Path, wheelhouse: Wheelhouse) -> None:
    # an index without agent-hooks-core (as PyPI before the first release): the dependencies only
    index = tmp_path / "index"
    index.mkdir()
    for wheel in wheelhouse.path.iterdir():
        if not wheel.name.startswith("agent_hooks"):
            (index / wheel.name).symlink_to(wheel)
    run([sys.executable, "-m", "pip", "download", "-q", "-d", str(index), "pytest>=8", "setuptools>=77", "wheel"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_HOOKS", "PIP_", "VIRTUAL_ENV"))}
    env |= {"AGENT_HOOKS_HOME": str(tmp_path / "home"), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(index),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    made = subprocess.run([sys.executable, "-m", "agent_hooks_core", "new-plugin", "no-rm", "--dir", str(tmp_path)],
                          capture_output=True, text=True, env=env)
    assert made.returncode == 0, made.stderr
    project = tmp_path / "agent-hooks-no-rm"
    venv.EnvBuilder(with_pip=False).create(project / ".venv")  # ensurepip is slow: this pip, --python the venv
    python = str(project / ".venv/bin/python")
    # CONTRIBUTING: `pip install -e ~/src/agent-hooks && pip install -e '.[test]'`, in one resolver run
    dev = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "-e", str(ROOT),
                          "-e", ".[test]"], cwd=project, capture_output=True, text=True, env=env)
    assert dev.returncode == 0, dev.stderr
    tests = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                           cwd=project, capture_output=True, text=True, env=env)
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout + tests.stderr
