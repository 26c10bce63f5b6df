"""Who is on the other end of a connection to the server, and how many connections each may hold.

On 127.0.0.1 every local user can connect. Linux says which user owns the client's end
(``/proc/net/tcp``, the ``uid`` column of the socket whose local address is our peer's): a
connection from another user is closed before one byte is read (it cannot present the token, and
must not cost the owner anything). Elsewhere (or when the table cannot be read) the peer's address
is the key, and the caps below still bound what any peer can hold.

On the unix socket the kernel gives the peer's credentials (``SO_PEERCRED``); the socket is 0600
in a 0700 directory, so only the owner gets there at all.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import threading

#: connections open at once, per listener
MAX_CONNECTIONS = 256
#: connections one peer (user, or address where users cannot be told apart) may hold
MAX_PER_PEER = 64


def _hex_endpoint(host: str, port: int) -> str | None:
    try:
        packed = socket.inet_pton(socket.AF_INET, host)
    except OSError:
        return None
    return f"{struct.unpack('<I', packed)[0]:08X}:{port:04X}"


def tcp_peer_uid(sock: socket.socket) -> int | None:
    """The uid owning the client end of a loopback TCP connection (Linux), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        peer = sock.getpeername()
        mine = sock.getsockname()
    except OSError:
        return None
    if sock.family != socket.AF_INET:
        return None
    want_local = _hex_endpoint(peer[0], peer[1])
    want_remote = _hex_endpoint(mine[0], mine[1])
    if want_local is None or want_remote is None:
        return None
    try:
        with open("/proc/net/tcp", encoding="ascii") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) > 7 and fields[1] == want_local and fields[2] == want_remote:
                    return int(fields[7])
    except (OSError, ValueError):
        return None
    return None


def unix_peer_uid(sock: socket.socket) -> int | None:
    so_peercred = getattr(socket, "SO_PEERCRED", None)
    if so_peercred is None:
        return None
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, so_peercred, struct.calcsize("3i"))
    except OSError:
        return None
    return int(struct.unpack("3i", creds)[1])


def peer_key(sock: socket.socket, address: object) -> tuple[str, int | None]:
    """(what the per-peer cap counts, the peer's uid if known)."""
    uid = unix_peer_uid(sock) if sock.family == socket.AF_UNIX else tcp_peer_uid(sock)
    if uid is not None:
        return f"uid:{uid}", uid
    return f"addr:{address[0] if isinstance(address, tuple) and address else 'unix'}", None


def own_uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


class Caps:
    """Counts open connections, in total and per peer."""

    def __init__(self, total: int = MAX_CONNECTIONS, per_peer: int = MAX_PER_PEER) -> None:
        self.total = total
        self.per_peer = per_peer
        self.open: dict[str, int] = {}
        self.count = 0
        self.lock = threading.Lock()

    def take(self, key: str) -> str | None:
        """None when the connection may stay (and is counted), else why not."""
        with self.lock:
            if self.count >= self.total:
                return f"too many connections ({self.total})"
            if self.open.get(key, 0) >= self.per_peer:
                return f"too many connections from one peer ({self.per_peer})"
            self.open[key] = self.open.get(key, 0) + 1
            self.count += 1
        return None

    def give(self, key: str) -> None:
        with self.lock:
            left = self.open.get(key, 0) - 1
            if left > 0:
                self.open[key] = left
            else:
                self.open.pop(key, None)
            self.count = max(0, self.count - 1)


def port_holder(port: int) -> str:
    """Who listens on 127.0.0.1:``port``, in words ("pid 123 (python3 ...), user alice"), as far as
    this user may see (Linux: ``/proc/net/tcp``; the pid only for processes we may inspect)."""
    owner: tuple[int, str] | None = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as fh:
                for line in fh:
                    fields = line.split()
                    if len(fields) > 9 and fields[3] == "0A" and fields[1].endswith(f":{port:04X}"):
                        owner = (int(fields[7]), fields[9])
                        break
        except (OSError, ValueError):
            continue
        if owner is not None:
            break
    if owner is None:
        return "another process"
    uid, inode = owner
    try:
        import pwd

        user = f"user {pwd.getpwuid(uid).pw_name}"
    except (ImportError, KeyError):
        user = f"uid {uid}"
    pid = _pid_of_socket(inode)
    if pid is None:
        return f"a process of {user}"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            command = fh.read(200).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        command = ""
    return f"pid {pid}" + (f" ({command})" if command else "") + f", {user}"


def _pid_of_socket(inode: str) -> int | None:
    want = f"socket:[{inode}]"
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == want:
                    return int(pid)
        except OSError:
            continue
    return None


def other_users() -> list[str]:
    """Other people with a login on this machine (uid >= 1000 and a login shell), for deciding
    whether a TCP port on 127.0.0.1 is private enough to carry the token."""
    try:
        import pwd
    except ImportError:
        return []
    me = own_uid()
    out = []
    for entry in pwd.getpwall():
        shell = entry.pw_shell or ""
        if entry.pw_uid >= 1000 and entry.pw_uid != me and entry.pw_uid != 65534 \
                and not shell.endswith(("nologin", "false")):
            out.append(entry.pw_name)
    return sorted(out)
