"""The SSRF guard on webhook targets: https only, and never a private, loopback, link-local,
multicast or reserved address, checked on registration and again at delivery time.

`check_target` resolves the host with the resolver passed in and answers the addresses the
caller must connect to (pinning them defeats DNS rebinding between check and connect).
Embedded mode may allow loopback receivers, over http too.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

__all__ = ["Resolver", "SafeTarget", "UnsafeTargetError", "check_target", "system_resolver"]

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
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


def check_target(
    url: str, *, allow_loopback: bool, resolve: Resolver, unresolved_ok: bool = False
) -> SafeTarget:
    """The target if it is safe to POST to. Raises: UnsafeTargetError.

    `unresolved_ok` (on registration) accepts a name that does not resolve yet: it is checked
    again, and must resolve, at every delivery. Documentation names (example.com, *.invalid)
    are accepted on registration unresolved and refused at delivery.
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
    if literal is not None:
        addresses = [str(literal)]
    elif loopback_name and not allow_loopback:
        raise UnsafeTargetError("the host is a loopback name")
    else:
        try:
            addresses = resolve(host, port)
        except OSError as err:
            if not unresolved_ok:
                raise UnsafeTargetError("the host does not resolve") from err
            addresses = []
        if not addresses and not unresolved_ok:
            raise UnsafeTargetError("the host does not resolve")
    for address in addresses:
        _check_address(
            ipaddress.ip_address(address.split("%", 1)[0]), allow_loopback=allow_loopback
        )
    return SafeTarget(url=parts, host=host, port=port, addresses=tuple(addresses))


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
    try:
        packed = socket.inet_aton(host)  # the lenient parser: 2130706433, 0x7f000001, 0177.1
    except OSError:
        return None
    return ipaddress.IPv4Address(packed)


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
