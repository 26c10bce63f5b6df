"""A private runtime directory for the warm server the fast client starts, stopped afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def private_server(monkeypatch) -> Iterator[str]:
    """``XDG_RUNTIME_DIR`` pointed at a short fresh directory (unix socket paths are short); any
    server started in it is stopped at the end."""
    run = tempfile.mkdtemp(prefix="ah-", dir="/tmp")
    os.chmod(run, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", run)
    try:
        yield run
    finally:
        subprocess.run([sys.executable, "-m", "agent_hooks_core", "serve", "stop"], capture_output=True,
                       timeout=60, env={**os.environ, "XDG_RUNTIME_DIR": run})
        shutil.rmtree(run, ignore_errors=True)
