"""Run an agent and the fake model together inside a private network namespace (loopback only),
for agents that reach out on their own (OpenHands clones skills from github.com and asks pypi.org
for updates).

``run_isolated(argv, turns, env, cwd)`` re-runs this file under ``unshare -n`` (root) or
``unshare -rn`` (a user namespace), where it brings up ``lo``, starts :class:`FakeModel` playing
``turns``, runs the agent with ``{base}`` in ``env`` values replaced by the model's base URL, and
prints what happened as JSON. Where no namespace can be made the same runs without one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _namespace_prefix() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    for prefix in ([unshare, "-n"] if os.geteuid() == 0 else [], [unshare, "-rn"]):
        if prefix and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return []


def run_isolated(argv: list[str], turns: list[Any], env: dict[str, str], cwd: Path,
                 timeout: float = 600) -> dict[str, Any]:
    """``{"returncode", "stdout", "stderr", "tool_results", "requests", "isolated"}`` of one run."""
    spec = {"argv": argv, "env": env, "cwd": str(cwd), "timeout": timeout,
            "turns": [{"text": t.text, "calls": t.calls} for t in turns]}
    prefix = _namespace_prefix()
    proc = subprocess.run([*prefix, sys.executable, __file__], input=json.dumps(spec), capture_output=True,
                          text=True, timeout=timeout + 60, env=os.environ.copy())
    if proc.returncode != 0:
        raise AssertionError(f"the isolated run failed:\n{proc.stderr[-4000:]}")
    return {**json.loads(proc.stdout), "isolated": bool(prefix)}


def _main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.hosts.fakemodel import FakeModel
    from tests.hosts.fakemodel.script import Turn

    spec = json.load(sys.stdin)
    if shutil.which("ip"):
        subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True)
    turns = [Turn(text=t["text"], calls=[(n, a) for n, a in t["calls"]]) for t in spec["turns"]]
    with FakeModel(turns) as model:
        env = {k: v.replace("{base}", model.base_url) for k, v in spec["env"].items()}
        proc = subprocess.run(spec["argv"], cwd=spec["cwd"], env=env, capture_output=True, text=True,
                              timeout=spec["timeout"], stdin=subprocess.DEVNULL)
        print(json.dumps({"returncode": proc.returncode, "stdout": proc.stdout[-4000:], "stderr": proc.stderr[-4000:],
                          "tool_results": model.tool_results(), "requests": model.requests,
                          "errors": model.errors}))


if __name__ == "__main__":
    _main()
