"""agent-hooks benchmarks: every figure is a ratio against a baseline measured in the same run.

    python benchmarks/run.py            # the full table (a few minutes); also `tox -e bench`
    python benchmarks/run.py --quick    # few iterations: checks that every row runs
    python benchmarks/run.py --json     # rows as JSON, for comparing runs

Machines here are noisy, so measurements of a figure and its baseline are interleaved and the
median of several rounds is reported. Rows:

B1  fire() of an observe hook (post_tool), 10 plugins      vs raw pluggy pm.hook.post_tool, same plugins
    whose handlers are declared ``cheap`` (no worker hand-off; the timeout still applies)
B1h the same, handlers not declared cheap (the walk on an abandonable worker thread)
B1f the floor of B1h: one hand-off to a waiting thread and back (two lock wake-ups, nothing else)
B1r fire("pre_tool") with the installed guard and audit   vs raw pluggy calling the same handlers
    (guard's pre_tool, audit's hook_called)
B2  fire("pre_tool"): validation, chain, reduction          vs raw pluggy pm.hook.pre_tool, same plugins
B3  afire("pre_tool") with async handlers                   vs B2's fire()
B4  `agenthooks claude-code`, a fresh process per event,    vs python -c "import json,sys; json.load(sys.stdin)"
    10 plugin distributions installed; PreToolUse; steady state: the first event of the run found
    no server and started one (transports/autostart.py), the following ones are relayed to it
B4n the same for PostToolUse
B4f the first event (no server: answered in its own process, then the server spawned)   vs B4c, CPU time
B4c the command with autostart off and no server: every event answered in its own process
    (PreToolUse in a forked worker): the floor of importing pluggy, the runtime and the plugins
B4cn B4c for PostToolUse (not gating: no fork)
B5  Runtime.from_settings() in a fresh process with 200     vs the same with none (difference in ms)
    extra distributions on sys.path (cached scan; cold too)
B6  `agenthooks chibi` (agent-hooks as a chibi plugin)      vs the same plugin fired in-process
B6b one chibi subprocess plugin                             vs the same logic as an in-process plugin
B7  agenthooks serve (benchmarks/b7_serve.py, if present)
G*  growth: fire("pre_tool") with 1/10/50 plugins; with 1 KB/100 KB/1 MB payloads

A benchmark module ``benchmarks/b<N>_*.py`` may add rows: it defines ``run(quick: bool) ->
list[dict]``, each dict with the keys of :class:`Row` (``name``, ``what``, ``value_s``,
``baseline``, ``baseline_s``; ``ratio``, ``target``, ``note`` optional).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable


@dataclass
class Row:
    name: str
    what: str
    value_s: float
    baseline: str
    baseline_s: float
    ratio: float | None = None
    target: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.ratio is None and self.baseline_s:
            self.ratio = self.value_s / self.baseline_s


# -- timing helpers --------------------------------------------------------------------------------


def per_call(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def interleaved(a: Callable[[], Any], b: Callable[[], Any], number: int, rounds: int) -> tuple[float, float]:
    """Median seconds per call of ``a`` and ``b``, measured in alternating rounds."""
    a(), b()  # warm up
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(per_call(a, number))
        tb.append(per_call(b, number))
    return statistics.median(ta), statistics.median(tb)


def run_process(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - start


def process_cpu(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``argv``: the CPU time of the process and what it
    waited for, not of a process it left running (the autostarted server)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = run_process(argv, stdin, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def interleaved_processes(a: tuple[list[str], bytes, dict[str, str]], b: tuple[list[str], bytes, dict[str, str]],
                          runs: int) -> tuple[float, float]:
    run_process(*a), run_process(*b)  # warm the page cache and any on-disk caches
    ta, tb = [], []
    for _ in range(runs):
        ta.append(run_process(*a))
        tb.append(run_process(*b))
    return statistics.median(ta), statistics.median(tb)


# -- plugins ----------------------------------------------------------------------------------------


def make_plugins(count: int, *, modify_every: int = 3, is_async: bool = False,
                 cheap: bool = False) -> list[tuple[str, Any]]:
    """``count`` plugin objects with an observe ``post_tool`` and a ``pre_tool`` that changes the
    arguments on every ``modify_every``-th plugin (so the chain and reduction do real work);
    ``cheap``: the ``post_tool`` handlers are declared cheap."""
    from agent_hooks_core import cheap as declare_cheap
    from agent_hooks_core import hookimpl

    plugins = []
    for i in range(count):
        modifies = i % modify_every == 0

        class Plugin:
            @hookimpl
            def post_tool(self, event: Any) -> None:
                return None

            if cheap:
                post_tool = declare_cheap(post_tool)

            if is_async:
                @hookimpl
                async def pre_tool(self, event: Any, _m: bool = modifies) -> Any:
                    return {"arguments": {**event["arguments"], "checked": True}} if _m else None
            else:
                @hookimpl
                def pre_tool(self, event: Any, _m: bool = modifies) -> Any:
                    return {"arguments": {**event["arguments"], "checked": True}} if _m else None

        plugins.append((f"p{i}", Plugin()))
    return plugins


def raw_pluggy(plugins: list[tuple[str, Any]]) -> Any:
    import pluggy
    from agent_hooks_core.hookspecs import specs
    from agent_hooks_core.hookspecs.markers import PROJECT

    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(specs)
    for name, plugin in plugins:
        pm.register(plugin, name=name)
    return pm


def runtime(plugins: list[tuple[str, Any]], **kw: Any) -> Any:
    from agent_hooks_core import Runtime

    return Runtime(plugins=plugins, **kw)


PRE_TOOL = {"tool_name": "shell_exec", "arguments": {"command": "pytest -q"}, "tool_call_id": "t1"}
POST_TOOL = {"tool_name": "shell_exec", "arguments": {"command": "pytest -q"}, "output": "3 passed"}


# -- B1-B3: in-process fire --------------------------------------------------------------------------


def _ping_pong() -> Callable[[], None]:
    """One job handed to a parked thread and its completion awaited, as the worker hand-off does
    (timeouts.run_watched) without anything else: what any abandonable worker costs per call."""
    import threading

    go, done = threading.Lock(), threading.Lock()
    go.acquire()
    done.acquire()

    def loop() -> None:
        while True:
            go.acquire()
            done.release()

    threading.Thread(target=loop, daemon=True).start()

    def call() -> None:
        go.release()
        done.acquire()

    return call


def bench_fire(quick: bool) -> list[Row]:
    number, rounds = (200, 3) if quick else (5000, 9)
    plugins = make_plugins(10)
    rt, pm = runtime(plugins), raw_pluggy(plugins)
    cheap_plugins = make_plugins(10, cheap=True)
    crt, cpm = runtime(cheap_plugins), raw_pluggy(cheap_plugins)
    import warnings

    warnings.simplefilter("ignore")  # pluggy warns that ctx is not passed: the raw call skips it

    fire_obs, raw_obs = interleaved(lambda: crt.fire("post_tool", dict(POST_TOOL)),
                                    lambda: cpm.hook.post_tool(event=dict(POST_TOOL)), number, rounds)
    fire_handoff, raw_handoff = interleaved(lambda: rt.fire("post_tool", dict(POST_TOOL)),
                                            lambda: pm.hook.post_tool(event=dict(POST_TOOL)), number, rounds)
    hand_off, raw_floor = interleaved(_ping_pong(), lambda: pm.hook.post_tool(event=dict(POST_TOOL)), number, rounds)
    fire_pre, raw_pre = interleaved(lambda: rt.fire("pre_tool", dict(PRE_TOOL)),
                                    lambda: pm.hook.pre_tool(event=dict(PRE_TOOL)), number, rounds)

    art = runtime(make_plugins(10, is_async=True))

    async def many() -> float:
        await art.afire("pre_tool", dict(PRE_TOOL))
        start = time.perf_counter()
        for _ in range(number):
            await art.afire("pre_tool", dict(PRE_TOOL))
        return (time.perf_counter() - start) / number

    afires, fires = [], []
    for _ in range(rounds):
        afires.append(asyncio.run(many()))
        fires.append(per_call(lambda: rt.fire("pre_tool", dict(PRE_TOOL)), number))
    return [
        Row("B1", "fire(post_tool), observe, 10 plugins, handlers declared cheap (timeout kept)", fire_obs,
            "raw pluggy pm.hook.post_tool", raw_obs, target="<= 2x"),
        Row("B1h", "the same, handlers not declared cheap (worker hand-off)", fire_handoff,
            "raw pluggy pm.hook.post_tool", raw_handoff),
        Row("B1f", "B1h's floor: a bare hand-off to a waiting thread and back (2 lock wake-ups)", hand_off,
            "raw pluggy pm.hook.post_tool", raw_floor),
        Row("B2", "fire(pre_tool), chain + validation + reduction, 10 plugins", fire_pre,
            "raw pluggy pm.hook.pre_tool", raw_pre, target="<= 3x"),
        Row("B3", "afire(pre_tool), 10 async handlers", statistics.median(afires), "B2 fire (sync handlers)",
            statistics.median(fires)),
    ]


def bench_realistic(quick: bool) -> list[Row]:
    """B1r: fire(pre_tool) with the installed guard and audit plugins, against raw pluggy calling
    the same plugins' handlers for that call (guard's pre_tool, then audit's hook_called record)."""
    number, rounds = (50, 3) if quick else (1000, 9)
    os.environ["AGENT_HOOKS_PLUGINS"] = "guard,audit"
    try:
        from agent_hooks_core import Runtime
        from agent_hooks_core.event import HookEvent
        from agent_hooks_core.runtime import BRIDGE_GATE_TIMEOUT

        rt = Runtime.from_settings(gate_timeout=BRIDGE_GATE_TIMEOUT)  # timed, as the transports run it
    finally:
        os.environ.pop("AGENT_HOOKS_PLUGINS", None)
    names = [n for n in ("guard", "audit") if rt.pm.get_plugin(n) is not None]
    if names != ["guard", "audit"]:
        return [Row("B1r", f"fire(pre_tool), guard + audit: n/a (installed: {', '.join(names) or 'neither'})",
                    0.0, "", 0.0)]
    pm = raw_pluggy([(n, rt.pm.get_plugin(n)) for n in names])
    guard_ctx, audit_ctx = rt.context("guard"), rt.context("audit")
    outcome = rt.fire("pre_tool", dict(PRE_TOOL))

    def raw() -> None:
        pm.hook.pre_tool(event=HookEvent("pre_tool", dict(PRE_TOOL)), ctx=guard_ctx)
        pm.hook.hook_called(outcome=outcome, ctx=audit_ctx)

    fire, base = interleaved(lambda: rt.fire("pre_tool", dict(PRE_TOOL)), raw, number, rounds)
    return [Row("B1r", "fire(pre_tool), the installed guard (cheap handlers) and audit (a SQLite record per call)",
                fire, "raw pluggy: guard's pre_tool + audit's hook_called", base, target="<= 2x")]


# -- installed plugin distributions on a sys.path directory ----------------------------------------


def make_site(root: Path, plugins: int, others: int) -> Path:
    """A directory of ``plugins`` agent-hooks plugin distributions and ``others`` plain ones."""
    site = root / f"site-{plugins}-{others}"
    if site.exists():  # made by an earlier row of this run
        return site
    site.mkdir()
    for i in range(plugins):
        mod = f"ahbench_plugin_{i}"
        (site / f"{mod}.py").write_text(textwrap.dedent("""
            from agent_hooks_core import hookimpl

            @hookimpl
            def pre_tool(event):
                if "rm -rf /" in str(event.arguments.get("command", "")):
                    return {"block": True, "reason": "no"}
                return None

            @hookimpl
            def post_tool(event):
                return None
            """))
        info = site / f"ahbench_plugin_{i}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ahbench-plugin-{i}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[agent_hooks]\nbench{i} = {mod}\n")
    for i in range(others):
        info = site / f"ahbench_other_{i}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ahbench-other-{i}\nVersion: 1.0\n")
        if i % 2:
            (info / "entry_points.txt").write_text(f"[console_scripts]\nother{i} = os:getcwd\n")
    compile_bytecode(site)
    past = time.time() - 3600  # older than discovery's racy window, so scans are cached
    for path in [site, *site.iterdir()]:
        os.utime(path, (past, past))
    return site


def compile_bytecode(*dirs: Path) -> None:
    """Write .pyc files, as ``pip install`` does: with PYTHONDONTWRITEBYTECODE set (common in
    containers) an editable checkout would otherwise be recompiled by every bridge process."""
    import compileall

    for d in dirs:
        compileall.compile_dir(str(d), quiet=2)


def installed_code() -> list[Path]:
    """The directories of agent_hooks_core and the first-party plugins, wherever installed."""
    import agent_hooks_core

    dirs = [Path(agent_hooks_core.__file__).parent]
    for name in ("agent_hooks_core.hookspecs", "agent_hooks_guard", "agent_hooks_audit"):
        spec = importlib.util.find_spec(name)
        if spec and spec.submodule_search_locations:
            dirs.extend(Path(p) for p in spec.submodule_search_locations)
    return dirs


def bench_env(home: Path, site: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_HOOKS")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: the .pyc files are written and used
    env["AGENT_HOOKS_HOME"] = str(home)
    paths = [str(site)] if site else []
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [os.environ.get("PYTHONPATH")])])
    env["AGENT_HOOKS_PLUGINS"] = ",".join(f"bench{i}" for i in range(10)) if site else ""
    return env


# -- B4: the Claude Code bridge ---------------------------------------------------------------------

CC_EVENT = {"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "npm test", "description": "Run tests"}, "tool_use_id": "toolu_01"}


def bench_bridge(quick: bool, tmp: Path) -> list[Row]:
    runs = 5 if quick else 25
    site = make_site(tmp, 10, 0)
    home = tmp / "home-b4"
    home.mkdir()
    env = bench_env(home, site)
    stdin = json.dumps(CC_EVENT).encode()
    post = json.dumps({**CC_EVENT, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "ok"}}).encode()
    command = [PY, "-m", "agent_hooks_core", "claude-code"]
    bare = [PY, "-c", "import json,sys; json.load(sys.stdin)"]
    # B4c: the per-event process alone, as before autostart (no server, none started)
    off = {**env, "AGENT_HOOKS_SERVE_AUTOSTART": "0"}
    out = subprocess.run(command, input=stdin, env=off, capture_output=True, check=False)
    note = "" if out.returncode == 0 else f"bridge exit {out.returncode}: {out.stderr.decode()[:80]}"
    t_inproc, t_bare = interleaved_processes((command, stdin, off), (bare, stdin, off), runs)
    t_inproc_post, t_bare_post = interleaved_processes((command, post, off), (bare, post, off), runs)
    floor = ("the floor: importing pluggy, the runtime, the bridge and 10 plugins in a fresh process "
             "(docs/performance.md)")
    rows = [Row("B4c", "the same command with autostart off and no server: answered in its own process "
                "(forked worker)", t_inproc, "python -c json.load(stdin)", t_bare, note=note or floor),
            Row("B4cn", "B4c for PostToolUse (not gating: no fork)", t_inproc_post, "python -c json.load(stdin)",
                t_bare_post)]
    return bench_autostarted(runs, home, env, command, bare, stdin, post) + rows


class _Autostarted:
    """The server B4's command starts in ``home`` (the bench's AGENT_HOOKS_HOME): found, waited for
    and stopped through the same run directory."""

    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.run, self.env = home / "run", env

    def sock(self) -> Path | None:
        found = sorted(self.run.glob("serve-*.sock"))
        return found[0] if found else None

    def status(self) -> dict[str, Any] | None:
        from agent_hooks_core.serve.server import request

        sock = self.sock()
        try:
            code, _, body = request("GET", "/status", sock=sock, timeout=5.0) if sock else (0, {}, b"")
        except OSError:
            return None
        return dict(json.loads(body)) if code == 200 else None

    def wait(self, timeout: float = 60.0) -> dict[str, Any]:
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            st = self.status()
            if st is not None:
                return st
            time.sleep(0.05)  # another process's start-up, bounded by timeout
        raise RuntimeError("the autostarted server did not come up")

    def stop(self) -> None:
        subprocess.run([PY, "-m", "agent_hooks_core", "serve", "stop"], env=self.env, capture_output=True,
                       check=False, timeout=60)
        for stamp in self.run.glob("autostart-*.stamp"):
            stamp.unlink()  # the next cold event may start one again


def bench_autostarted(runs: int, home: Path, env: dict[str, str], command: list[str], bare: list[str],
                      stdin: bytes, post: bytes) -> list[Row]:
    """B4f: the first event with no server (answered in its process, which then starts the server),
    against B4c's in-process answer, interleaved; B4/B4n: the events after it, relayed."""
    off = {**env, "AGENT_HOOKS_SERVE_AUTOSTART": "0"}
    srv = _Autostarted(home, env)
    firsts, inprocs = [], []
    try:
        srv.stop()
        for _ in range(max(2, runs // 5)):
            firsts.append(process_cpu(command, stdin, env))
            srv.wait()
            srv.stop()
            inprocs.append(process_cpu(command, stdin, off))
        run_process(command, stdin, env)
        before = int(srv.wait()["events"])
        out = subprocess.run(command, input=stdin, env=env, capture_output=True, check=False)
        st = srv.status() or {}
        note = "" if out.returncode == 0 and int(st.get("events", -1)) == before + 1 else \
            f"not relayed (exit {out.returncode}): {out.stderr.decode()[:80]}"
        t_pre, t_bare = interleaved_processes((command, stdin, env), (bare, stdin, env), runs)
        t_post, t_bare_post = interleaved_processes((command, post, env), (bare, post, env), runs)
    finally:
        srv.stop()
    # CPU time: on a loaded machine the wall time of one cold run is mostly other processes' load
    t_first, t_base = statistics.median(c for _, c in firsts), statistics.median(c for _, c in inprocs)
    wall = statistics.median(w for w, _ in firsts) - statistics.median(w for w, _ in inprocs)
    return [Row("B4", "agenthooks claude-code as installed, 10 plugins, PreToolUse, steady state: relayed to the "
                "server the first event started", t_pre, "python -c json.load(stdin)", t_bare, target="<= 2x",
                note=note),
            Row("B4n", "the same, PostToolUse", t_post, "python -c json.load(stdin)", t_bare_post),
            Row("B4f", "the first event (no server: answered in its process, which then starts one), CPU time",
                t_first, "B4c (autostart off), interleaved, CPU time", t_base,
                note=f"{(t_first - t_base) * 1e3:+.1f} ms CPU (the spawn); {wall * 1e3:+.1f} ms wall"),
            ]


# -- B5: start-up with many installed distributions -------------------------------------------------

STARTUP = ("import time; t = time.perf_counter(); from agent_hooks_core import Runtime; "
           "rt = Runtime.from_settings(); print(time.perf_counter() - t)")


def _startup(env: dict[str, str]) -> float:
    out = subprocess.run([PY, "-c", STARTUP], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def bench_startup(quick: bool, tmp: Path) -> list[Row]:
    runs = 3 if quick else 15
    crowded = make_site(tmp, 10, 190)
    empty = tmp / "site-empty"
    empty.mkdir()
    past = time.time() - 3600  # a fresh directory is within discovery's racy window: never cached
    os.utime(empty, (past, past))
    home_a, home_b = tmp / "home-b5a", tmp / "home-b5b"
    home_a.mkdir(), home_b.mkdir()
    env_a, env_b = bench_env(home_a, crowded), bench_env(home_b, empty)
    env_b["AGENT_HOOKS_PLUGINS"] = env_a["AGENT_HOOKS_PLUGINS"]  # same selection, nothing to find
    cold_a = _startup(env_a)  # first run: scans and writes the cache
    cold_b = _startup(env_b)
    ta, tb = [], []
    for _ in range(runs):
        ta.append(_startup(env_a))
        tb.append(_startup(env_b))
    a, b = statistics.median(ta), statistics.median(tb)
    return [
        Row("B5", "from_settings() + import, 200 extra dists (10 plugins), cached scan", a,
            "no extra dists", b, target="<= +20 ms", note=f"+{(a - b) * 1000:.1f} ms"),
        Row("B5c", "the same, first run (cold: scan + cache write)", cold_a, "no extra dists, cold", cold_b,
            note=f"+{(cold_a - cold_b) * 1000:.1f} ms"),
    ]


# -- B6: chibi both ways ----------------------------------------------------------------------------

CHIBI_PLUGIN = ROOT / "tests" / "dialects" / "chibi_plugins" / "seed001" / "safety_guard"
INPROC_SAFETY = ROOT / "examples" / "hooks" / "safety_guard.py"
CHIBI_PAYLOAD = {"tool_name": "shell_exec", "arguments": {"command": "ls -la"}, "tool_call_id": "t1"}


def bench_chibi(quick: bool, tmp: Path) -> list[Row]:
    from agent_hooks_core import Runtime
    from agent_hooks_core.dialects.chibi_plugins import load_directory

    runs, number = (5, 20) if quick else (21, 200)
    site = make_site(tmp, 10, 0)
    home = tmp / "home-b6"
    home.mkdir()
    env = bench_env(home, site)
    env["CHIBI_HOOK"] = "pre_tool"
    stdin = json.dumps(CHIBI_PAYLOAD).encode()
    as_plugin = ([PY, "-m", "agent_hooks_core", "chibi"], stdin, env)
    # the same plugins in-process, imported from the same directory
    sys.path.insert(0, str(site))
    rt = Runtime(plugins=[(f"bench{i}", importlib.import_module(f"ahbench_plugin_{i}")) for i in range(10)])
    t_proc = statistics.median(run_process(*as_plugin) for _ in range(runs))
    t_inproc = statistics.median(per_call(lambda: rt.fire("pre_tool", dict(CHIBI_PAYLOAD), dialect="chibi"), number)
                                 for _ in range(5))
    sys.path.remove(str(site))

    chibi_dir = tmp / "chibi"
    chibi_dir.mkdir()
    (chibi_dir / "safety_guard").write_bytes(CHIBI_PLUGIN.read_bytes())
    (chibi_dir / "safety_guard").chmod(0o755)
    sub_rt = Runtime(plugins=[])
    load_directory(sub_rt, chibi_dir)
    spec = importlib.util.spec_from_file_location("bench_safety_guard", INPROC_SAFETY)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    in_rt = Runtime(plugins=[("safety_guard", module)])
    t_sub, t_in = interleaved(lambda: sub_rt.fire("pre_tool", dict(CHIBI_PAYLOAD)),
                              lambda: in_rt.fire("pre_tool", dict(CHIBI_PAYLOAD)), max(1, number // 20), runs)
    return [
        Row("B6", "agenthooks chibi as a chibi plugin (process), 10 plugins", t_proc,
            "the same plugins fired in-process", t_inproc),
        Row("B6b", "one chibi subprocess plugin (seed 001 safety_guard)", t_sub,
            "the same logic in-process (examples/hooks)", t_in),
    ]


# -- growth -----------------------------------------------------------------------------------------


def bench_growth(quick: bool) -> list[Row]:
    number = 50 if quick else 2000
    rows = []
    base = None
    for count in (1, 10, 50):
        rt = runtime(make_plugins(count))
        t = statistics.median(per_call(lambda r=rt: r.fire("pre_tool", dict(PRE_TOOL)), number) for _ in range(5))
        base = base or t
        rows.append(Row(f"G{count}p", f"fire(pre_tool), {count} plugins", t, "1 plugin", base))
    rt = runtime(make_plugins(10))
    base = None
    for label, size in (("1KB", 1 << 10), ("100KB", 100 << 10), ("1MB", 1 << 20)):
        payload = {**PRE_TOOL, "arguments": {"command": "x" * size}}
        n = max(5, number // (1 + size // 4096))
        t = statistics.median(per_call(lambda p=payload: rt.fire("pre_tool", dict(p)), n) for _ in range(5))
        base = base or t
        rows.append(Row(f"G{label}", f"fire(pre_tool), 10 plugins, {label} payload", t, "1 KB payload", base))
    return rows


# -- extra benchmark modules ------------------------------------------------------------------------


def extra_rows(quick: bool) -> list[Row]:
    rows: list[Row] = []
    for path in sorted(HERE.glob("b[0-9]*_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            rows.extend(Row(**row) for row in module.run(quick))
        except Exception as exc:  # a broken extra benchmark is a row, not a crash of the table
            rows.append(Row(path.stem, f"failed: {exc}", 0.0, "", 0.0))
    if not any(r.name.startswith("B7") for r in rows):
        rows.append(Row("B7", "agenthooks serve: n/a (not built)", 0.0, "", 0.0))
    return rows


# -- output -----------------------------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    if seconds == 0:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.1f} ms"


def table(rows: list[Row]) -> str:
    head = ["row", "what", "time", "baseline", "baseline time", "ratio", "target", "note"]
    body = [[r.name, r.what, fmt_time(r.value_s), r.baseline, fmt_time(r.baseline_s),
             f"{r.ratio:.2f}x" if r.ratio else "-", r.target, r.note] for r in rows]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--only", default="", help="comma-separated groups: fire,bridge,startup,chibi,growth,extra")
    args = parser.parse_args(argv)
    groups = set(filter(None, args.only.split(","))) or {"fire", "bridge", "startup", "chibi", "growth", "extra"}
    rows: list[Row] = []
    compile_bytecode(*installed_code())
    with tempfile.TemporaryDirectory(prefix="ah-bench-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["AGENT_HOOKS_HOME"] = str(tmp / "home-inproc")
        os.environ.pop("AGENT_HOOKS_PLUGINS", None)
        if "fire" in groups:
            rows += bench_fire(args.quick)
            rows += bench_realistic(args.quick)
        if "bridge" in groups:
            rows += bench_bridge(args.quick, tmp)
        if "startup" in groups:
            rows += bench_startup(args.quick, tmp)
        if "chibi" in groups:
            rows += bench_chibi(args.quick, tmp)
        if "growth" in groups:
            rows += bench_growth(args.quick)
        if "extra" in groups:
            rows += extra_rows(args.quick)
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(f"agent-hooks benchmarks ({'quick' if args.quick else 'full'}; Python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs)\n")
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
