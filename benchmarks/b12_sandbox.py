"""agent-hooks-sandbox rows for ``benchmarks/run.py``.

S1  a shell command run inside bubblewrap, as the hook rewrites it (``true``, then ``make -n``-like
    ``ls`` of the project), from the host's shell          vs the same command unsandboxed
    target: the sandbox adds at most 10 ms per command
S1c bubblewrap's floor: the same namespaces, /dev, /proc and /tmp, no policy mounts, no prelude
    (what any bubblewrap sandbox costs here: S1 minus S1c is the policy's own share)
S2  the rewrite itself: fire("pre_tool") with the sandbox  vs fire("pre_tool") with no plugin
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from typing import Any


def _shell(command: str, cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", command], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def run(quick: bool) -> list[dict[str, Any]]:
    import agent_hooks_sandbox
    from agent_hooks_core import Runtime
    from agent_hooks_sandbox.policy import build, find_program, resolve
    from agent_hooks_sandbox.probe import check

    program = find_program("bwrap")
    why, isolation = check(program, fresh=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ah-bench-sandbox-") as project:
        os.makedirs(os.path.join(project, ".agent-hooks"))
        config = resolve(None)
        if why is None:
            floor = " ".join([program or "bwrap", *isolation, "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev",
                              "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/sh", "-c", "true"])
            for label, command in (("S1", "true"), ("S1b", "ls -la"), ("S1c", "true")):
                wrapped = floor if label == "S1c" else build(config, project, command, bwrap=program).command_line()
                _shell(wrapped, project), _shell(command, project)
                runs = 5 if quick else 40
                boxed, plain = [], []
                for _ in range(runs):
                    boxed.append(_shell(wrapped, project))
                    plain.append(_shell(command, project))
                b, p = statistics.median(boxed), statistics.median(plain)
                what = ("`true` inside bubblewrap's namespaces alone (no policy mounts, no prelude)" if label == "S1c"
                        else f"`{command}` inside bubblewrap (the hook's rewrite)")
                rows.append({"name": label, "what": what,
                             "value_s": b, "baseline": f"`{command}` unsandboxed", "baseline_s": p,
                             "target": "<= +10 ms", "note": f"sandbox setup {(b - p) * 1e3:.1f} ms"})
        else:
            rows.append({"name": "S1", "what": f"sandbox: n/a ({why})", "value_s": 0.0, "baseline": "",
                         "baseline_s": 0.0})
        boxed_rt = Runtime(plugins=[("sandbox", agent_hooks_sandbox)], cwd=project)
        bare_rt = Runtime(plugins=[], cwd=project)
        payload = {"tool_name": "Bash", "arguments": {"command": "make test"}}
        number = 20 if quick else 300
        boxed_rt.fire("pre_tool", payload), bare_rt.fire("pre_tool", payload)
        tb, tp = [], []
        for _ in range(3 if quick else 7):
            start = time.perf_counter()
            for _ in range(number):
                boxed_rt.fire("pre_tool", payload)
            tb.append((time.perf_counter() - start) / number)
            start = time.perf_counter()
            for _ in range(number):
                bare_rt.fire("pre_tool", payload)
            tp.append((time.perf_counter() - start) / number)
        rows.append({"name": "S2", "what": "fire(pre_tool) rewriting a command for the sandbox",
                     "value_s": statistics.median(tb), "baseline": "fire(pre_tool), no plugin",
                     "baseline_s": statistics.median(tp)})
    return rows
