"""URL checks: scheme, embedded credentials, deny and allow lists.

List entries are host names (matching the host and its sub-domains: ``example.com`` covers
``api.example.com``), ``*.example.com`` (sub-domains only), IP addresses, CIDR networks
(``10.0.0.0/8``) or URL prefixes (``https://example.com/private/``). Hosts are compared after
normalization: lower case, trailing dot removed, IPv4 in any of the forms a resolver accepts
(``0xA9FEA9FE``, ``2852039166``, ``169.254.43518``) and IPv4-mapped IPv6.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

_NUMERIC_HOST = re.compile(r"^[0-9a-fx.]+$", re.IGNORECASE)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        addr = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        if not _NUMERIC_HOST.match(host) or not any(c.isdigit() for c in host):
            return None
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, ValueError):
            return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


class UrlRules:
    def __init__(self, deny: list[str], allow: list[str], schemes: list[str], deny_credentials: bool) -> None:
        self.deny = [self._entry(e) for e in deny if e.strip()]
        self.allow = [self._entry(e) for e in allow if e.strip()]
        self.schemes = {s.lower().rstrip(":") for s in schemes}
        self.deny_credentials = deny_credentials

    @staticmethod
    def _entry(entry: str) -> tuple[str, object]:
        e = entry.strip().lower()
        if "://" in e:
            return ("prefix", e)
        if "/" in e:
            try:
                return ("net", ipaddress.ip_network(e, strict=False))
            except ValueError:
                return ("prefix", "https://" + e)
        ip = _ip(e)
        if ip is not None:
            return ("ip", ip)
        if e.startswith("*."):
            return ("sub", e[2:].rstrip("."))
        return ("host", e.rstrip("."))

    @staticmethod
    def _matches(entry: tuple[str, object], host: str, ip: object, url: str) -> bool:
        kind, value = entry
        if kind == "host":
            return host == value or host.endswith("." + str(value))
        if kind == "sub":
            return host.endswith("." + str(value))
        if kind == "ip":
            return ip is not None and ip == value
        if kind == "net":
            return ip is not None and ip in value  # type: ignore[operator]
        return url.startswith(str(value))

    def check(self, url: str) -> str | None:
        """Why ``url`` may not be fetched, or None."""
        text = url.strip()
        if "://" not in text and not text.lower().startswith(("file:", "data:", "javascript:")):
            text = "https://" + text
        try:
            parts = urlsplit(text)
            host = (parts.hostname or "").rstrip(".").lower()
        except ValueError:
            return f"unparsable URL {url!r}"
        scheme = parts.scheme.lower()
        if self.schemes and scheme not in self.schemes:
            return f"URL scheme {scheme}: is not allowed ({url})"
        if self.deny_credentials and (parts.username or parts.password):
            return f"URL carries credentials ({parts.hostname})"
        ip = _ip(host) if host else None
        normalized = f"{scheme}://{host}{':' + str(parts.port) if parts.port else ''}{parts.path or '/'}"
        for entry in self.deny:
            if self._matches(entry, host, ip, normalized):
                return f"URL host {host} is on the deny list"
        if self.allow and not any(self._matches(e, host, ip, normalized) for e in self.allow):
            return f"URL host {host} is not on the allow list"
        return None

