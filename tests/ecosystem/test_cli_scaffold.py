"""A scaffolded plugin's printed steps work as printed from any install, and CONTRIBUTING's examples compile."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from agent_hooks_core.cli.scaffold import next_steps

from tests.support import environ
from tests.support.venvs import ROOT, Wheelhouse, run


def test_next_steps_use_the_environment_agenthooks_runs_in(tmp_path: Path) -> None:
    steps = next_steps(tmp_path / "agent-hooks-x")
    assert steps[0] == f"cd {tmp_path / 'agent-hooks-x'}"
    assert steps[1].endswith(" plugins install -e '.[test]'")  # agent-hooks-core is not on the index
    assert steps[2] == f"{os.path.abspath(sys.executable)} -m pytest"
    assert not any("pip install" in step for step in steps)


def test_contributing_python_examples_import_what_they_use() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        compile(block.replace("...", "pass"), "CONTRIBUTING.md", "exec")
        if re.search(r"\bpytest\.", block):
            assert re.search(r"^import pytest$", block, flags=re.MULTILINE), block


@pytest.mark.slow
def test_printed_steps_work_as_printed_after_the_quickstart_install(tmp_path: Path, wheelhouse: Wheelhouse) -> None:
    # an index without agent-hooks-* (as PyPI before the first release): their dependencies only
    index = tmp_path / "index"
    index.mkdir()
    for wheel in wheelhouse.path.iterdir():
        if not wheel.name.startswith("agent_hooks"):
            (index / wheel.name).symlink_to(wheel)
    run([sys.executable, "-m", "pip", "download", "-q", "-d", str(index), "pytest>=8", "setuptools>=77", "wheel"])
    env = environ.without("PIP_", "VIRTUAL_ENV", "PYTHON")
    env |= {"AGENT_HOOKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path), "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(index), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    # the Quickstart: a venv with pip, the core and the first-party plugins installed (not editable)
    venv.EnvBuilder(with_pip=True).create(tmp_path / ".venv")
    bin_dir = tmp_path / ".venv" / "bin"
    run([str(bin_dir / "pip"), "install", "-q", "--no-index", "--find-links", str(wheelhouse.path),
         "agent-hooks-core", "agent-hooks-audit", "agent-hooks-guard"])
    made = subprocess.run([str(bin_dir / "agenthooks"), "new-plugin", "no-force-push"], cwd=tmp_path,
                          capture_output=True, text=True, env=env)
    assert made.returncode == 0, made.stderr
    steps = made.stdout.split("Next", 1)[1].splitlines()[1:]
    steps = [line.strip() for line in steps if line.strip()]
    assert len(steps) == 4 and steps[0].startswith("cd "), made.stdout
    script = "set -e\n" + "\n".join(steps) + "\n"
    done = subprocess.run(["sh", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout
    listed = subprocess.run([str(bin_dir / "agenthooks"), "plugins", "list", "--json"], cwd=tmp_path,
                            capture_output=True, text=True, env=env)
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["no-force-push"]["status"] == "loaded" and rows["no-force-push"]["hooks"] == ["pre_tool"]
