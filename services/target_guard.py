"""The SSRF guard on webhook targets: https only, and never a private, loopback, link-local,
multicast or reserved address, checked on registration and again at delivery time.

`check_target` resolves the host once with the resolver passed in and answers the addresses
the caller must connect to (pinning them defeats DNS rebinding between check and connect).
IP literals are read in every spelling a resolver accepts (short dotted `127.1`, decimal, hex,
octal, IPv4-mapped and other IPv6 forms that carry an IPv4 address), so none slips past as a
name. A local run on a loopback bind may allow loopback receivers, over http too
(`allow_loopback`, decided by the wiring); this service's own origins are never a target.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

__all__ = [
    "Resolver",
    "SafeTarget",
    "UnresolvedTargetError",
    "UnsafeTargetError",
    "check_target",
    "is_loopback_host",
    "system_resolver",
]

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# One part of a BSD inet_aton address: decimal, 0-prefixed octal or 0x-prefixed hex.
_NUMBER_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$")
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
# RFC 2606 / 6761 names for documentation: accepted on registration without a lookup (the docs'
# examples register them) and never contacted, so an example can never send data anywhere.
_DOCUMENTATION_NAMES = frozenset({"example.com", "example.net", "example.org"})
_DOCUMENTATION_SUFFIXES = (".example", ".invalid", ".example.com", ".example.net", ".example.org")


class UnsafeTargetError(ValueError):
    """The URL may not be a webhook target; `reason` says why (safe to show the partner)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnresolvedTargetError(UnsafeTargetError):
    """The host has no address now (DNS may answer later): a delivery retries it."""


@dataclass(frozen=True)
class SafeTarget:
    """A checked target: the parsed URL and the addresses it resolved to, all allowed."""

    url: SplitResult
    host: str
    port: int
    addresses: tuple[str, ...]


def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses from the system resolver. Raises: OSError when it has none."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def is_loopback_host(host: str) -> bool:
    """True when `host` (a listen address or a URL's host) is a loopback name or address."""
    name = host.strip("[]").rstrip(".").lower()
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    literal = _ip_literal(name)
    return literal is not None and _is_loopback(literal)


def check_target(
    url: str,
    *,
    allow_loopback: bool,
    resolve: Resolver,
    unresolved_ok: bool = False,
    own_origins: tuple[tuple[str, int], ...] = (),
) -> SafeTarget:
    """The target if it is safe to POST to. Raises: UnsafeTargetError (UnresolvedTargetError
    when the name has no address).

    `unresolved_ok` (on registration) accepts a name that does not resolve yet: it is checked
    again, and must resolve, at every delivery. Documentation names (example.com, *.invalid)
    are accepted on registration unresolved and refused at delivery. `own_origins` are this
    service's (host, port) pairs: a target there (its internal routes included) is refused,
    a loopback one matching any loopback address on that port.
    """
    parts = _parse(url)
    host = (parts.hostname or "").rstrip(".").lower()
    literal = _ip_literal(host)
    loopback_name = host in _LOOPBACK_NAMES or host.endswith(".localhost")
    may_be_loopback = allow_loopback and (
        loopback_name or (literal is not None and _is_loopback(literal))
    )
    if parts.scheme != "https" and not (parts.scheme == "http" and may_be_loopback):
        raise UnsafeTargetError("the URL must use https")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if host in _DOCUMENTATION_NAMES or host.endswith(_DOCUMENTATION_SUFFIXES):
        if not unresolved_ok:
            raise UnsafeTargetError("the host is a reserved documentation name")
        return SafeTarget(url=parts, host=host, port=port, addresses=())
    if _is_own_origin(host, [literal] if literal is not None else [], port, own_origins):
        raise UnsafeTargetError("the host is this service itself")
    if literal is not None:
        addresses = [str(literal)]
    elif loopback_name and not allow_loopback:
        raise UnsafeTargetError("the host is a loopback name")
    else:
        try:
            addresses = resolve(host, port)
        except UnicodeError as err:  # the IDNA codec refuses the name (an empty or long label)
            raise UnsafeTargetError("the host name is malformed") from err
        except OSError as err:
            if not unresolved_ok:
                raise UnresolvedTargetError("the host does not resolve") from err
            addresses = []
        if not addresses and not unresolved_ok:
            raise UnresolvedTargetError("the host does not resolve")
    ips = [ipaddress.ip_address(address.split("%", 1)[0]) for address in addresses]
    if _is_own_origin(host, ips, port, own_origins):
        raise UnsafeTargetError("the host is this service itself")
    for ip in ips:
        _check_address(ip, allow_loopback=allow_loopback)
    return SafeTarget(url=parts, host=host, port=port, addresses=tuple(addresses))


def _is_own_origin(
    host: str, ips: list[IpAddress], port: int, own_origins: tuple[tuple[str, int], ...]
) -> bool:
    """True when the target is one of this service's origins, in any spelling of its host."""
    names = {host} | {str(_unmapped(ip)) for ip in ips}
    loopback = is_loopback_host(host) or any(_is_loopback(ip) for ip in ips)
    for own_host, own_port in own_origins:
        if own_port != port:
            continue
        literal = _ip_literal(own_host)
        if own_host in names or (literal is not None and str(_unmapped(literal)) in names):
            return True
        if loopback and is_loopback_host(own_host):
            return True
    return False


def _unmapped(ip: IpAddress) -> IpAddress:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _parse(url: str) -> SplitResult:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018  # raises ValueError on a malformed port
    except ValueError as err:
        raise UnsafeTargetError("the URL is malformed") from err
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UnsafeTargetError("the URL must be an absolute https URL")
    if parts.username is not None or parts.password is not None:
        raise UnsafeTargetError("the URL may not carry credentials")
    return parts


def _ip_literal(host: str) -> IpAddress | None:
    """An IP in any form a resolver accepts (dotted, decimal, hex, octal, short), or None."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    number = _ipv4_number(host)
    return None if number is None else ipaddress.IPv4Address(number)


def _ipv4_number(host: str) -> int | None:
    """The 32-bit value of an IPv4 address in BSD inet_aton's grammar (what getaddrinfo reads
    as an address, not a name): one to four parts, each decimal, octal (0177) or hex (0x7f),
    the last filling the bytes left (127.1 is 127.0.0.1, 2130706433 too); None otherwise."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(_NUMBER_PART.match(part) for part in parts):
        return None
    values = [_part_value(part) for part in parts]
    *head, last = values
    if any(value > 0xFF for value in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    number = 0
    for value in head:
        number = number << 8 | value
    return number << (8 * (4 - len(head))) | last


def _part_value(part: str) -> int:
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    return int(part, 8) if part.startswith("0") else int(part)


def _is_loopback(ip: IpAddress) -> bool:
    return ip.is_loopback or (
        isinstance(ip, ipaddress.IPv6Address)
        and bool(ip.ipv4_mapped and ip.ipv4_mapped.is_loopback)
    )


def _embedded_ipv4(ip: IpAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _check_address(ip: IpAddress, *, allow_loopback: bool) -> None:
    inner = _embedded_ipv4(ip)
    if inner is not None:
        _check_address(inner, allow_loopback=allow_loopback)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            return
    if ip.is_loopback:
        if allow_loopback:
            return
        raise UnsafeTargetError("the host is a loopback address")
    if ip.is_multicast:
        raise UnsafeTargetError("the host is a multicast address")
    if ip.is_link_local:
        raise UnsafeTargetError("the host is a link-local address")
    if ip.is_private or ip.is_reserved or ip.is_unspecified or not ip.is_global:
        raise UnsafeTargetError("the host is a private or reserved address")
