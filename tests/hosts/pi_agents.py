"""pi and oh-my-pi for the real-agent tests: where they are, how to point them at the fake model.

Both run in print mode (``-p``) with a throwaway ``HOME`` and agent directory
(``PI_CODING_AGENT_DIR``), so nothing of the user's own configuration is read or written.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .pins import PINS

PI = ("@mariozechner/pi-coding-agent", PINS["pi"], "pi")
OMP = ("@oh-my-pi/pi-coding-agent", PINS["omp"], "omp")
BUN = ("bun", "1.4.5", "bun")

#: the server command line the extension starts (what the tests look for in /proc)
SERVER_ARGV = [b"-m", b"agent_hooks_core", b"serve", b"--stdio"]


@dataclass
class Agent:
    host: str
    binary: Path
    #: extra PATH entries (omp needs bun)
    path: list[str] = field(default_factory=list)
    #: omp: its built-in providers, disabled so start-up does not go to the network
    disabled_providers: list[str] = field(default_factory=list)

    def configure(self, agent_dir: Path, base_url: str) -> None:
        """Register the fake model as provider ``fake`` in the agent directory."""
        provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "dummy",
                    "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}]}
        agent_dir.mkdir(parents=True, exist_ok=True)
        if self.host == "pi":
            provider["compat"] = {"supportsDeveloperRole": False, "supportsReasoningEffort": False}
            (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        else:  # YAML is a superset of JSON
            (agent_dir / "models.yml").write_text(json.dumps({"providers": {"fake": provider}}))
            (agent_dir / "config.yml").write_text(json.dumps({"disabledProviders": self.disabled_providers}))

    def env(self, home: Path, agent_dir: Path, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "AGENT_HOOKS_DEBUG"))}
        env.update({"HOME": str(home), "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1",
                    "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0", "NO_COLOR": "1",
                    "PATH": os.pathsep.join([*self.path, env.get("PATH", "")])})
        env.update(extra)
        return env

    def command(self, prompt: str) -> list[str]:
        return [str(self.binary), "-p", "--provider", "fake", "--model", "fake-model", prompt]


def make_agent(host: str, npm_tool: Callable[[str, str, str], Path]) -> Agent:
    if host == "pi":
        return Agent("pi", npm_tool(*PI))
    bun = npm_tool(*BUN)
    omp = npm_tool(*OMP)
    prefix = omp.parent.parent.parent  # <prefix>/node_modules/.bin/omp
    listing = subprocess.run(
        [str(bun), "-e", 'import { PROVIDER_DESCRIPTORS } from "@oh-my-pi/pi-catalog/provider-models";'
                         "console.log(JSON.stringify(PROVIDER_DESCRIPTORS.map((d) => d.providerId)))"],
        cwd=prefix, capture_output=True, text=True, timeout=120, check=True)
    return Agent("omp", omp, path=[str(bun.parent)], disabled_providers=json.loads(listing.stdout))


def server_pids(parent: int, python: Path) -> list[int]:
    """The ``agenthooks serve --stdio`` children of process ``parent`` run by ``python`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        state = stat.rsplit(")", 1)[1].split()[0]
        if ppid == parent and state != "Z" and argv[0] == bytes(python) and all(a in argv for a in SERVER_ARGV):
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Terminal:
    """An agent in its interactive TUI on a pseudo-terminal (120x40); ``expect`` reads the screen
    output, escape sequences stripped, until a pattern shows up or the deadline passes."""

    ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>]")

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(argv, cwd=cwd, env={**env, "TERM": "xterm-256color"}, stdin=slave,
                                     stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.output = b""

    @property
    def text(self) -> str:
        return self.ANSI.sub(b"", self.output).decode(errors="replace")

    def expect(self, pattern: str, timeout: float = 60) -> bool:
        import select
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.text):
                return True
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    return bool(re.search(pattern, self.text))
        return False

    def type(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        import signal

        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        os.close(self.master)
