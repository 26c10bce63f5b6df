"""B13: the first look-up of agent-hooks' control plane in a per-event process, for ``benchmarks/run.py``.

The guard asks ``agent_hooks_core.controlplane`` whether a path is protected. Building that set
imports every host installer and reads the installed distributions (~100 ms); the built set is
kept in the cache directory, so a later process reads it back. Each row runs a fresh interpreter
that has imported what a per-event process already holds (the settings module) and times its
first ``covering`` call: with the stored set, against the same call with nothing stored (the
build), measured in the same run. Target: at most 5 ms.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_CHILD = r"""
import json, os, sys, time
import agent_hooks_core.settings as settings
from agent_hooks_core import controlplane
settings.user_dir(); settings.cache_dir()
if sys.argv[2] == "build":
    controlplane.clear_cache()
start = time.perf_counter()
controlplane.covering(".agent-hooks/settings.toml", cwd=sys.argv[1])
print(json.dumps(time.perf_counter() - start))
"""


def _first_lookup(project: Path, env: dict[str, str], mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(project), mode], capture_output=True, text=True,
                         check=True, env=env)
    return float(json.loads(out.stdout))


def run(quick: bool) -> list[dict[str, Any]]:
    tmp = Path(tempfile.mkdtemp(prefix="ah-b13-"))
    project = tmp / "project"
    (project / ".agent-hooks").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
    env["AGENT_HOOKS_HOME"] = str(tmp / "home")
    n = 3 if quick else 9
    built = statistics.median(_first_lookup(project, env, "build") for _ in range(n))
    _first_lookup(project, env, "build")  # leaves the set stored
    stored = statistics.median(_first_lookup(project, env, "stored") for _ in range(n))
    return [{"name": "B13", "what": "first control-plane look-up in a new process, set stored",
             "value_s": stored, "baseline": "same, set built", "baseline_s": built, "target": "<= 5 ms",
             "note": ""}]


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(f"{row['what']}: {row['value_s'] * 1e3:.2f} ms (built: {row['baseline_s'] * 1e3:.1f} ms)")
