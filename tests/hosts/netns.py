"""Run an agent and the fake model together inside a private network namespace (loopback only),
for agents that reach out on their own: OpenHands clones skills from github.com and asks pypi.org
for updates, Factory Droid looks up external hosts.

:func:`run_in_netns` is the caller's side: it starts this module (``python -m tests.hosts.netns``)
under ``unshare -n`` (root) or ``unshare -rn`` (a user namespace maps us to root there), which reads
the JSON spec on stdin, brings ``lo`` up, serves the scripted turns with :class:`FakeModel`, writes
the spec's files, runs the agent with ``{BASE}`` in its argv, environment and files replaced by the
model's base URL, and prints what happened as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .fakemodel.script import Turn

ROOT = Path(__file__).resolve().parents[2]


def _namespace_prefix() -> list[str]:
    """The command that starts a program in a private network namespace here, or [] if none can."""
    unshare = shutil.which("unshare")
    if unshare is None or shutil.which("ip") is None:
        return []
    for prefix in ([unshare, "-n"] if os.geteuid() == 0 else [], [unshare, "-rn"]):
        if prefix and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return []


def run_in_netns(argv: list[str], turns: list[Turn], env: dict[str, str], cwd: Path, *,
                 files: dict[str, Any] | None = None, timeout: float = 600,
                 required: bool = True) -> dict[str, Any]:
    """One run: ``{"returncode", "stdout", "stderr", "tool_results", "requests", "errors", "isolated"}``.

    ``files``: path -> content (a str, or what is written as JSON). Where no namespace can be made
    the test is skipped, or with ``required=False`` the same runs without one."""
    prefix = _namespace_prefix()
    if not prefix and required:
        pytest.skip("no private network namespace here (unshare and ip, from util-linux and iproute2)")
    spec = {"argv": argv, "env": env, "cwd": str(cwd), "files": files or {}, "timeout": timeout,
            "turns": [{"text": t.text, "calls": t.calls} for t in turns]}
    proc = subprocess.run([*prefix, sys.executable, "-m", "tests.hosts.netns"], input=json.dumps(spec),
                          capture_output=True, text=True, timeout=timeout + 60, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise AssertionError(f"the run in a network namespace failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return {**json.loads(proc.stdout), "isolated": bool(prefix)}


def _main() -> None:
    from .fakemodel import FakeModel

    spec = json.load(sys.stdin)
    if shutil.which("ip"):
        subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True)
    turns = [Turn(text=t["text"], calls=[(n, a) for n, a in t["calls"]]) for t in spec["turns"]]
    with FakeModel(turns) as model:
        def fill(value: Any) -> Any:
            return json.loads(json.dumps(value).replace("{BASE}", model.base_url))

        for path, content in fill(spec["files"]).items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(content if isinstance(content, str) else json.dumps(content))
        proc = subprocess.run(fill(spec["argv"]), cwd=spec["cwd"], env=fill(spec["env"]), capture_output=True,
                              text=True, timeout=spec["timeout"], stdin=subprocess.DEVNULL)
        print(json.dumps({"returncode": proc.returncode, "stdout": proc.stdout[-4000:], "stderr": proc.stderr[-4000:],
                          "tool_results": model.tool_results(), "requests": model.requests,
                          "errors": model.errors}))


if __name__ == "__main__":
    _main()
