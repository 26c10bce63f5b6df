"""agent-hooks-sandbox rows for ``benchmarks/run.py``.

Every command below runs from the host's shell (``/bin/sh -c``), all of them once per round in a
shuffled order (interleaved: a load change hits every row alike), in a fresh project with no host
configuration directories (the sandbox seals a dozen; the empty mount points bubblewrap makes for
them are removed between runs, untimed, as post_tool does after a command). Each row's time is the
median wall time; its note has the fastest run and the median CPU time of the processes it started
(user + system, from ``getrusage``: what the machine's load changes least).

S1  `true` as the hook rewrites it (flock holding the lock, bubblewrap, the prelude)  vs `true` unsandboxed
    target: the sandbox adds at most 10 ms per command
S1b `ls -la` as the hook rewrites it                                                  vs `ls -la` unsandboxed
S1c bubblewrap's floor: the same namespaces, /dev, /proc and /tmp, no policy mounts, no prelude
    (what any bubblewrap sandbox costs here: S1 minus S1c is the policy's own share)
S1d S1 without flock (bubblewrap run directly: nothing keeps another sandbox's clean-up off its mounts)
S1e S1d with each empty directory a tmpfs remounted read-only (bubblewrap without --perms, and this
    plugin before it used --perms)
S1f S1 with the network shared (network = "on": no network namespace)
S2  the rewrite itself: fire("pre_tool") with the sandbox                        vs fire("pre_tool") with no plugin
"""

from __future__ import annotations

import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any


def _shell(command: str, cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of everything it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", command], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def _variants(project: str, other: str, program: str, isolation: list[str]) -> dict[str, tuple[str, str, str, str]]:
    """name -> (what, command line, the unsandboxed command it is compared with, where it runs)."""
    import shlex

    from agent_hooks_sandbox.policy import build, resolve

    config = resolve(None)
    floor = shlex.join([program, *isolation, "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                        "/proc", "--tmpfs", "/tmp", "--", "/bin/sh", "-c", "true"])

    def line(command: str, where: str, **kw: Any) -> str:
        return build({**config, **kw}, where, command, bwrap=program, isolation=isolation).command_line()

    def bare(where: str, perms: bool) -> str:
        return shlex.join(build(config, where, "true", bwrap=program, isolation=isolation, perms=perms).bwrap)

    return {
        "S1": ("`true` inside bubblewrap (the hook's rewrite)", line("true", project), "true", project),
        "S1b": ("`ls -la` inside bubblewrap (the hook's rewrite)", line("ls -la", project), "ls -la", project),
        "S1c": ("`true` inside bubblewrap's namespaces alone (no policy mounts, no prelude)", floor, "true", project),
        "S1d": ("S1 without flock (bubblewrap run directly)", bare(other, True), "true", other),
        "S1e": ("S1d with each empty directory a tmpfs remounted read-only", bare(other, False), "true", other),
        "S1f": ("S1 with network = \"on\" (no network namespace)", line("true", project, network="on"), "true",
                project),
    }


def run(quick: bool) -> list[dict[str, Any]]:
    import agent_hooks_sandbox
    from agent_hooks_core import Runtime
    from agent_hooks_sandbox.policy import find_program
    from agent_hooks_sandbox.probe import check

    program = find_program("bwrap")
    why, isolation = check(program, fresh=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ah-bench-sandbox-") as project, \
            tempfile.TemporaryDirectory(prefix="ah-bench-sandbox-") as other:
        for where in (project, other):
            os.makedirs(os.path.join(where, ".agent-hooks"))
        if why is None and program is not None:
            variants = _variants(project, other, program, isolation)
            runs = {name: (line, where) for name, (_, line, _, where) in variants.items()}
            runs.update({base: (base, project) for _, _, base, _ in variants.values()})
            for line, where in runs.values():  # warm the page cache
                _tidy(project), _tidy(other), _shell(line, where)
            wall: dict[str, list[float]] = {k: [] for k in runs}
            cpu: dict[str, list[float]] = {k: [] for k in runs}
            order = list(runs)
            for _ in range(5 if quick else 40):
                random.shuffle(order)
                for key in order:
                    _tidy(project), _tidy(other)
                    w, c = _shell(*runs[key])
                    wall[key].append(w)
                    cpu[key].append(c)
            _tidy(project), _tidy(other)
            for name, (what, _, base, _) in variants.items():
                b, p = statistics.median(wall[name]), statistics.median(wall[base])
                cb, cp = statistics.median(cpu[name]), statistics.median(cpu[base])
                fastest = (min(wall[name]) - min(wall[base])) * 1e3
                rows.append({"name": name, "what": what, "value_s": b, "baseline": f"`{base}` unsandboxed",
                             "baseline_s": p, "target": "<= +10 ms" if name in ("S1", "S1b") else "",
                             "note": f"adds {(b - p) * 1e3:.1f} ms median, {fastest:.1f} ms fastest, "
                                     f"{(cb - cp) * 1e3:.1f} ms CPU"})
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


def _tidy(where: str) -> None:
    """Remove the empty mount points a run left (rmdir: nothing else), as post_tool does."""
    for entry in os.listdir(where):
        if entry == ".agent-hooks":
            continue
        try:
            os.rmdir(os.path.join(where, entry))
        except OSError:
            pass


if __name__ == "__main__":
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    for row in run("--quick" in sys.argv):
        print(f"{row['name']:4} {row['what']}: {row['value_s'] * 1e3:.2f} ms vs {row['baseline_s'] * 1e3:.2f} ms"
              f"{' (' + row['note'] + ')' if row.get('note') else ''}")
