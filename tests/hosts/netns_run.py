"""Run an agent and the fake model together inside a private network namespace (for agents that
look up external hosts, such as Factory Droid): ``python -m tests.hosts.netns_run`` reads a JSON
spec on stdin, brings loopback up, serves the scripted turns, writes the spec's files with
``{BASE}`` replaced by the fake model's URL, runs the agent and prints the outcome as JSON.

:func:`run_in_netns` is the caller's side: it starts this module under ``unshare -n`` (``-rn``
when not root: a user namespace maps us to root there).
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


def run_in_netns(turns: list[dict[str, Any]], argv: list[str], cwd: Path, env: dict[str, str],
                 files: dict[str, Any] | None = None, timeout: int = 300) -> dict[str, Any]:
    """``turns``: ``{"call": [name, arguments]}`` or ``{"say": text}`` each. Returns
    ``{"returncode", "stdout", "stderr", "tool_results", "requests", "errors"}``."""
    unshare = shutil.which("unshare")
    if unshare is None or shutil.which("ip") is None:
        pytest.skip("unshare and ip (util-linux, iproute2) are needed for a private network namespace")
    flags = ["-n"] if os.geteuid() == 0 else ["-rn"]
    spec = {"turns": turns, "argv": argv, "cwd": str(cwd), "env": env, "files": files or {}, "timeout": timeout}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([unshare, *flags, sys.executable, "-m", "tests.hosts.netns_run"], input=json.dumps(spec),
                          capture_output=True, text=True, timeout=timeout + 60, cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)})
    if proc.returncode != 0:
        if "Operation not permitted" in proc.stderr:
            pytest.skip(f"no private network namespace here: {proc.stderr.strip()[-300:]}")
        raise AssertionError(f"netns_run failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _main() -> int:
    from .fakemodel import FakeModel, say, tool_call

    spec = json.loads(sys.stdin.read())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    turns = [tool_call(t["call"][0], t["call"][1]) if "call" in t else say(t["say"]) for t in spec["turns"]]
    with FakeModel(turns) as model:
        def fill(value: Any) -> Any:
            return json.loads(json.dumps(value).replace("{BASE}", model.base_url))

        for path, content in fill(spec["files"]).items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(json.dumps(content) if not isinstance(content, str) else content)
        proc = subprocess.run(fill(spec["argv"]), cwd=spec["cwd"], env=fill(spec["env"]), capture_output=True,
                              text=True, timeout=spec["timeout"], stdin=subprocess.DEVNULL)
        out = {"returncode": proc.returncode, "stdout": proc.stdout[-4000:], "stderr": proc.stderr[-4000:],
               "tool_results": model.tool_results(), "requests": model.requests, "errors": model.errors}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
