"""The README's Quickstart commands: CI runs exactly command 2 (after installing a system tool some tests
need), and neither needs a writable system Python."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)]


def test_ci_runs_exactly_quickstart_command_2() -> None:
    commands = quickstart_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands), commands
    script = (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
    body = [line for line in script if line.strip() and not line.startswith("#")
            and not line.startswith(("set ", "cd "))]
    # before it, only provisioning of a system tool some tests need (bubblewrap for the sandbox's)
    assert body[-1] == commands[1]
    assert all(line.startswith("command -v ") for line in body[:-1]), body


def test_quickstart_installs_only_into_a_venv() -> None:
    """PEP 668 (Debian, Ubuntu, Homebrew): `pip install` into the system Python fails, so every pip and
    every installed tool runs from the venv the command creates."""
    for command in quickstart_commands():
        steps = [shlex.split(step) for step in command.split("&&")]
        assert steps[0][:3] == ["python", "-m", "venv"], command
        venv = steps[0][3]
        for argv in steps[1:]:
            assert argv[0].startswith(f"{venv}/bin/"), (command, argv)
