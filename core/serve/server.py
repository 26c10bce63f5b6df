"""The server's life: ``run`` (foreground), ``start`` (detached, returns once it answers), ``stop``,
``status``; and :func:`request`, a small HTTP client over the unix socket.

A server started with an idle exit (``--idle-exit SECONDS``, or ``--autostarted``: the per-event
command's background start, ``transports/autostart.py``) exits after that long without a request.
It is *kept* (the idle exit off for its lifetime) by any request over TCP and by a keep request
(``GET /status`` with :data:`KEEP_HEADER`: ``serve start`` and the fast client's
``--ensure-server``, whose http sessions rely on it). An autostarted server serves the unix socket
only until it is kept, then HTTP too; it also exits when its run directory or home is removed
(the temporary homes of tests).

One server per user and environment (``paths.identity``): a lock file held for the server's life
makes a second ``run`` refuse, and ``start`` idempotent. The unix socket is created 0600 inside a
0700 directory; HTTP binds 127.0.0.1 only (a busy port leaves the server on the socket alone, and
``status`` says so).
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import paths

if TYPE_CHECKING:
    from .httpserver import TCPServer, UnixServer

log = logging.getLogger("agent_hooks.serve")

START_TIMEOUT = 20.0
#: how often the server checks that its socket and pid file are still there
HEAL_SECONDS = 0.5
#: a ``GET /status`` with this header keeps the server (no idle exit from then on)
KEEP_HEADER = "X-Agent-Hooks-Keep"


class ServeError(Exception):
    """One line for the user (exit 2)."""


# -- talking to a running server -----------------------------------------------------------------


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect(self.unix_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def request(method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
            timeout: float = 5.0, sock: str | os.PathLike[str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one request over the unix socket; OSError when unreachable."""
    conn = _UnixConnection(str(sock or paths.socket_path()), timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    except http.client.HTTPException as exc:
        raise OSError(f"bad reply from the server: {exc}") from None
    finally:
        conn.close()


def status(timeout: float = 5.0, keep: bool = False) -> dict[str, Any] | None:
    """The running server's status, or None when none answers. ``keep``: turn its idle exit off
    for good (and serve HTTP, when it was autostarted): whoever asks relies on it."""
    try:
        code, _, body = request("GET", "/status", headers={KEEP_HEADER: "1"} if keep else None, timeout=timeout)
    except OSError:
        return None
    if code != 200:
        return None
    data = json.loads(body)
    return data if isinstance(data, dict) else None


# -- the server ----------------------------------------------------------------------------------


class Server:
    """Both listeners, the service, and the bookkeeping files."""

    def __init__(self, port: int | None = None, http_enabled: bool = True, idle_exit: float | None = None,
                 autostarted: bool = False) -> None:
        from .service import Service

        self.service = Service()
        self.port = paths.port() if port is None else port
        self.http_enabled = http_enabled
        self.stop_event = threading.Event()
        self.listeners: list[TCPServer | UnixServer] = []
        self.http_address: str | None = None
        self.http_problem: str | None = None
        self.socket_path = paths.socket_path()
        self._socket_id: tuple[int, int] | None = None
        self._lock_fd: int | None = None
        #: seconds without a request after which the server exits (None: never)
        self.idle_exit = idle_exit
        #: started by a per-event command: HTTP once kept; exits when its home is gone
        self.autostarted = autostarted
        self._http_when_kept = autostarted and http_enabled
        if autostarted:
            self.http_enabled = False
        self._last_request = time.monotonic()
        self._in_flight = 0
        self._keep_lock = threading.Lock()

    def status(self) -> dict[str, object]:
        data = self.service.status()
        data.update({"pid": os.getpid(), "socket": str(self.socket_path), "http": self.http_address,
                     "http_problem": self.http_problem, "python": sys.executable,
                     "version": _version(), "idle_exit": self.idle_exit, "autostarted": self.autostarted})
        return data

    def request_stop(self) -> None:
        self.stop_event.set()

    def touch(self, tcp: bool) -> None:
        """A request arrived (on TCP: an http host relies on this server, so it is kept); paired
        with :meth:`untouch` when it is answered."""
        with self._keep_lock:
            self._in_flight += 1
            self._last_request = time.monotonic()
        if tcp and self.idle_exit is not None:
            self.keep()

    def untouch(self) -> None:
        with self._keep_lock:
            self._in_flight -= 1
            self._last_request = time.monotonic()

    def keep(self) -> None:
        """No idle exit from now on; an autostarted server serves HTTP from now on too."""
        with self._keep_lock:
            if self.idle_exit is None and not self._http_when_kept:
                return
            if self.idle_exit is not None:
                log.info("kept: no idle exit")
            self.idle_exit = None
            if self._http_when_kept and not self.stop_event.is_set():
                self._http_when_kept = False
                self.http_enabled = True
                try:
                    tcp = self._bind_http()
                except ServeError as exc:
                    self.http_problem = str(exc)
                    log.error("%s", exc)
                    return
                self.listeners.append(tcp)
                threading.Thread(target=tcp.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True,
                                 name="agent-hooks-serve-http").start()
                log.info("serving HTTP on %s too", self.http_address)

    def _idle_out(self) -> str | None:
        """Why the server should exit now, or None."""
        if self.idle_exit is not None and not self._in_flight \
                and time.monotonic() - self._last_request > self.idle_exit:
            return f"no request for {self.idle_exit:g} s"
        if self.autostarted:
            for place in (self.socket_path.parent, os.environ.get("HOME"), os.environ.get("AGENT_HOOKS_HOME")):
                if place and not os.path.isdir(place):
                    return f"{place} is gone"
        return None

    def _lock(self) -> None:
        import fcntl

        fd = os.open(paths.lock_path(), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            pid = _read_pid()
            raise ServeError(f"a server is already running{f' (pid {pid})' if pid else ''}: "
                             "`agenthooks serve status`") from None
        self._lock_fd = fd

    def bind(self) -> None:
        """Take the lock, then the HTTP port, then the unix socket; start the workers. A taken
        HTTP port is an error naming who holds it: hosts configured for http would otherwise send
        the token to that process and take its answers."""
        from .workers import ENV_WORKERS, Workers

        self._lock()
        try:
            if self.http_enabled:
                self.listeners.append(self._bind_http())
            self.listeners.append(self._bind_unix())
            if os.environ.get(ENV_WORKERS, "").strip() != "0":
                self.service.workers = Workers()
            paths.pid_path().write_text(f"{os.getpid()}\n", encoding="ascii")
        except BaseException:
            self.close()
            raise

    def _bind_http(self) -> TCPServer:
        import errno

        from .httpserver import TCPServer
        from .paths import token

        try:
            tcp = TCPServer(("127.0.0.1", self.port), self.service, token() or "", self)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                from .peers import port_holder

                raise ServeError(
                    f"HTTP port 127.0.0.1:{self.port} is taken by {port_holder(self.port)}; set another "
                    f"with [serve] port in the settings or {paths.ENV_PORT}, or serve the unix socket "
                    "only (--no-http)") from None
            raise ServeError(f"cannot serve HTTP on 127.0.0.1:{self.port}: {exc.strerror or exc}") from None
        self.http_address = f"http://127.0.0.1:{tcp.server_address[1]}"
        return tcp

    def _bind_unix(self) -> UnixServer:
        from .httpserver import UnixServer

        try:
            self.socket_path.unlink()  # a stale socket: the lock says nobody serves it
        except FileNotFoundError:
            pass
        old = os.umask(0o177)
        try:
            unix = UnixServer(str(self.socket_path), self.service, self)
        finally:
            os.umask(old)
        os.chmod(self.socket_path, 0o600)
        self._socket_id = _file_id(self.socket_path)
        return unix

    def _heal(self) -> None:
        """A deleted (or replaced) socket file is made again, and a deleted pid file rewritten, so
        ``serve status``, ``serve start`` and ``doctor`` find the running server."""
        if _file_id(self.socket_path) != self._socket_id:
            log.warning("the socket %s was removed: made again", self.socket_path)
            stale = [s for s in self.listeners if not getattr(s, "tcp", False)]
            fresh = self._bind_unix()
            threading.Thread(target=fresh.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True,
                             name="agent-hooks-serve-unix").start()
            self.listeners = [s for s in self.listeners if s not in stale] + [fresh]
            for s in stale:
                s.shutdown()
                s.server_close()
        if not paths.pid_path().exists():
            paths.pid_path().write_text(f"{os.getpid()}\n", encoding="ascii")

    def serve(self) -> None:
        threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True,
                                    name=f"agent-hooks-serve-{i}") for i, s in enumerate(self.listeners)]
        for t in threads:
            t.start()
        log.info("serving on %s%s (pid %d)", self.socket_path,
                 f" and {self.http_address}" if self.http_address else "", os.getpid())
        try:
            while not self.stop_event.wait(HEAL_SECONDS):
                why = self._idle_out()
                if why is not None:
                    log.info("exiting: %s", why)
                    break
                try:
                    self._heal()
                except OSError as exc:
                    log.error("cannot restore the socket or pid file: %s", exc)
        finally:
            self.close()

    def close(self) -> None:
        for s in self.listeners:
            s.shutdown()
            s.server_close()
        self.listeners = []
        if self.service.workers is not None:
            self.service.workers.close()
        for p in (self.socket_path, paths.pid_path()):
            if p == self.socket_path and _file_id(p) != self._socket_id:
                continue  # not ours (a second server's, or gone)
            try:
                p.unlink()
            except OSError:
                pass
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        log.info("stopped")


def _last_error(log_file: Path, since: int) -> str | None:
    """The last ``agenthooks: error:`` line the server wrote to its log after offset ``since``
    (why it did not start)."""
    try:
        with open(log_file, "rb") as fh:
            fh.seek(max(since, os.fstat(fh.fileno()).st_size - 8192))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    errors = [line[len("agenthooks: error: "):] for line in tail.splitlines() if line.startswith("agenthooks: error: ")]
    return errors[-1] if errors else None


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _version() -> str:
    from .. import __version__

    return str(__version__)


def _read_pid() -> int | None:
    try:
        return int(paths.pid_path().read_text().strip())
    except (OSError, ValueError):
        return None


def setup_logging(verbose: bool = False) -> Path:
    from logging.handlers import RotatingFileHandler

    path = paths.log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=1 << 20, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger("agent_hooks")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return path


def run(port: int | None = None, http_enabled: bool = True, verbose: bool = False,
        ready: Callable[[Server], object] | None = None, idle_exit: float | None = None,
        autostarted: bool = False) -> int:
    """Serve in the foreground until ``serve stop``, SIGTERM or SIGINT (or its idle exit). Returns
    the exit code."""
    try:
        setup_logging(verbose)
        server = Server(port, http_enabled, idle_exit, autostarted)
        server.bind()
    except (paths.RunDirError, ServeError) as exc:
        log.error("cannot serve: %s", exc)  # an autostarted server's stderr is /dev/null: the log says why
        raise ServeError(str(exc)) from None
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda *_: server.request_stop())
    if ready is not None:
        ready(server)
    server.serve()
    return 0


def start(timeout: float = START_TIMEOUT, extra: list[str] | None = None) -> tuple[bool, dict[str, Any]]:
    """(started now?, status): start a detached server unless one answers already."""
    import subprocess

    from ..transports.client import isolation_flags, python

    # a server someone starts for good is kept for good
    keep = not {"--idle-exit", "--autostarted"} & set(extra or [])
    current = status(keep=keep)
    if current is not None:
        return False, current
    log_file = paths.log_path()
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(os.devnull, "rb") as devnull, open(log_file, "ab") as out:
        logged = out.seek(0, os.SEEK_END)
        proc = subprocess.Popen([python(), *isolation_flags(), "-m", "agent_hooks_core", "serve", "run",
                                 *(extra or [])], stdin=devnull, stdout=out, stderr=out,
                                start_new_session=True, cwd="/")
    until = time.monotonic() + timeout
    delay = 0.01
    while time.monotonic() < until:
        current = status(timeout=1.0, keep=keep)
        if current is not None:
            return True, current
        code = proc.poll()
        if code is not None:
            again = status(timeout=1.0, keep=keep)  # lost a race with another start: that one serves
            if again is not None:
                return False, again
            why = _last_error(log_file, logged)
            if why is not None and why.startswith("a server is already running"):
                continue  # it holds the lock: its socket is back within HEAL_SECONDS
            raise ServeError(why or f"the server exited ({code}) before answering; see {log_file}")
        time.sleep(delay)  # waiting for another process to come up: bounded by timeout
        delay = min(delay * 2, 0.2)
    raise ServeError(f"the server did not answer within {timeout:g} s; see {log_file}")


def stop(timeout: float = 10.0) -> int | None:
    """Stop the running server; its pid, or None when none was running."""
    pid = _read_pid()
    try:
        request("POST", "/shutdown", timeout=2.0)
    except OSError:
        if pid is None or not _alive(pid):
            return None
        os.kill(pid, signal.SIGTERM)
    until = time.monotonic() + timeout
    while pid is not None and _alive(pid) and time.monotonic() < until:
        time.sleep(0.05)  # waiting for another process to exit: bounded by timeout
    if pid is not None and _alive(pid):
        os.kill(pid, signal.SIGKILL)
    return pid or -1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # our own child that has exited but not been reaped counts as gone
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True
