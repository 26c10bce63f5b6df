"""B10: a one-tool-call session of the real Claude Code, per transport, for ``benchmarks/run.py``.

``claude -p`` (the pinned version the host tests install, from their npm cache) against the
scripted Messages API of ``tests/hosts/fake_anthropic.py``: one Bash tool call, then a final
answer. Every row is the median wall time of a whole session against the same session with a bare
shell hook (``sh -c 'cat >/dev/null'``) on the same events, sessions interleaved:

B10      the default install (``agenthooks install claude-code``: http hooks, the SessionStart
         starter; the server already running)                                  target: <= +0.3 s
B10c     ``--transport client`` (the fast client, the server running)
B10p     ``--transport command`` (a process per event)

Skipped (one row saying why) when the Claude Code binary is not in the host tests' npm cache:
``tox -e hosts`` fills it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VERSION = "2.1.330"
BARE = {"type": "command", "command": "/bin/sh", "args": ["-c", "cat >/dev/null"], "timeout": 60}


def _claude() -> Path | None:
    base = os.environ.get("AGENT_HOOKS_NPM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agent-hooks-tests", "npm")
    exe = Path(base) / f"@anthropic-ai+claude-code@{VERSION}" / "node_modules" / ".bin" / "claude"
    return exe if exe.exists() else None


def _fake() -> Any:
    # the fake model is a module of the tests.hosts package (it imports the shared fakemodel base)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.hosts.fake_anthropic import FakeAnthropic

    return FakeAnthropic


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Home:
    """A temp HOME with its own agent-hooks home, port and Claude Code settings."""

    def __init__(self, name: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"ah-b10{name}-", dir="/tmp"))
        (self.dir / "project").mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_HOOKS", "CLAUDE"))}
        self.env.update(HOME=str(self.dir), AGENT_HOOKS_HOME=str(self.dir / "ah"), NO_PROXY="127.0.0.1,localhost",
                        AGENT_HOOKS_SERVE_PORT=str(_free_port()))

    def agenthooks(self, *args: str) -> None:
        subprocess.run([sys.executable, "-m", "agent_hooks_core", *args], env=self.env, check=True,
                       capture_output=True, timeout=120)

    def settings(self) -> Path:
        return self.dir / ".claude" / "settings.json"

    def close(self) -> None:
        subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "stop"], env=self.env,
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


def _session(claude: Path, fake_cls: Any, home: Home) -> float:
    with fake_cls("echo hi") as fake:
        env = {**home.env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        start = time.perf_counter()
        proc = subprocess.run([str(claude), "-p", "go", "--allowedTools", "Bash"], cwd=home.dir / "project", env=env,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        took = time.perf_counter() - start
        if proc.returncode != 0 or len(fake.tool_results()) != 1:
            raise RuntimeError(f"the session failed: {(proc.stderr or proc.stdout)[-300:]}")
        return took


def run(quick: bool) -> list[dict[str, Any]]:
    claude = _claude()
    if claude is None:
        return [{"name": "B10", "what": "real Claude Code session: n/a (run `tox -e hosts` once to fetch it)",
                 "value_s": 0.0, "baseline": "", "baseline_s": 0.0}]
    from agent_hooks_core.bridges import claude_code_install as cc

    fake_cls = _fake()
    bare = Home("bare")
    bare.settings().parent.mkdir(parents=True)
    bare.settings().write_text(json.dumps({"hooks": {
        e: [{**({"matcher": "*"} if e in cc.TOOL_EVENTS else {}), "hooks": [BARE]}] for e in cc.EVENTS}}))
    homes = {"B10": (Home("default"), []), "B10c": (Home("client"), ["--transport", "client"]),
             "B10p": (Home("command"), ["--transport", "command"])}
    what = {"B10": "real Claude Code, one tool call, default install (http; server up)",
            "B10c": "the same, --transport client (server up)", "B10p": "the same, --transport command"}
    rows: list[dict[str, Any]] = []
    try:
        for home, args in homes.values():
            home.agenthooks("install", "claude-code", *args)
            if "command" not in args:
                home.agenthooks("serve", "start")
        runs = 1 if quick else 5
        times: dict[str, list[float]] = {name: [] for name in homes}
        base: list[float] = []
        _session(claude, fake_cls, bare)  # warm the binary's own caches
        for _ in range(runs):
            base.append(_session(claude, fake_cls, bare))
            for name, (home, _) in homes.items():
                times[name].append(_session(claude, fake_cls, home))
        t_base = statistics.median(base)
        for name in homes:
            t = statistics.median(times[name])
            rows.append({"name": name, "what": what[name], "value_s": t, "baseline": "bare sh hook on the same events",
                         "baseline_s": t_base, "target": "<= +0.3 s" if name == "B10" else "",
                         "note": f"{t - t_base:+.2f} s"})
    finally:
        for home, _ in homes.values():
            home.close()
        bare.close()
    return rows


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(f"{row['name']:5} {row['value_s']:7.2f} s  {row.get('baseline', ''):34} {row.get('baseline_s', 0):7.2f} s  "
              f"{row.get('note', '')}")
