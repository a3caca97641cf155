"""OAuth clients of the built-in authorization server: DCR records and Client ID Metadata Documents.

A client's redirect URIs match exactly, except that a loopback redirect may use any port
(RFC 8252 §7.3), which the SDK's own client model does not allow. A Client ID Metadata
Document is an https URL used as `client_id`; its JSON is fetched, checked and cached.
A registered client's secret is stored only as its sha256 (see secret_matches).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlsplit

import anyio.to_thread
import httpx
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl, ValidationError

from domain.staff import STAFF_SCOPES

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "[::1]", "::1", "localhost"})
MAX_DOCUMENT_BYTES = 5 * 1024


class RegisteredClient(OAuthClientInformationFull):
    """A client record whose loopback redirect URIs match on any port, and which may ask for
    the staff toolsets' scopes whatever it registered with: those are granted by who the
    person is (domain/staff.py), and a client registered before it needed them can step up."""

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        if requested_scope is None:
            return None
        staff = [s for s in requested_scope.split(" ") if s in STAFF_SCOPES]
        others = " ".join(s for s in requested_scope.split(" ") if s not in STAFF_SCOPES)
        checked = super().validate_scope(others) if others else []
        return [*(checked or []), *staff]

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is not None and any(
            same_loopback_redirect(str(registered), str(redirect_uri))
            for registered in self.redirect_uris or ()
        ):
            return redirect_uri
        return super().validate_redirect_uri(redirect_uri)


@dataclass(frozen=True)
class KnownClient:
    """A client as the store knows it: its record, and the sha256 of its secret if it has one
    (the secret itself is shown once, at registration, and kept nowhere)."""

    client: RegisteredClient
    secret_hash: str | None = None


def secret_matches(presented: str, secret_hash: str) -> bool:
    """Whether a presented client secret is the one whose sha256 is stored (constant time)."""
    digest = hashlib.sha256(presented.encode()).hexdigest()
    return hmac.compare_digest(digest.encode(), secret_hash.encode())


def same_loopback_redirect(registered: str, requested: str) -> bool:
    """True when both are http loopback URIs that differ at most in their port."""
    a, b = urlsplit(registered), urlsplit(requested)
    return (
        a.scheme == b.scheme == "http"
        and a.hostname in LOOPBACK_HOSTS
        and a.hostname == b.hostname
        and (a.path or "/") == (b.path or "/")
        and a.query == b.query
        and not b.fragment
        and b.username is None
    )


def is_metadata_document_url(client_id: str, *, allow_http_loopback: bool) -> bool:
    """Whether a client_id is a Client ID Metadata Document URL we may fetch."""
    parts = urlsplit(client_id)
    if parts.path in ("", "/") or parts.fragment or parts.username or parts.password:
        return False
    if parts.scheme == "https":
        return True
    return allow_http_loopback and parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS


class MetadataDocumentError(Exception):
    """The Client ID Metadata Document could not be fetched or is not acceptable."""


Resolver = Callable[[str, int], Awaitable[Sequence[str]]]


async def system_addresses(host: str, port: int) -> list[str]:
    """The addresses the system resolver gives `host` (in a worker thread: it blocks)."""
    infos = await anyio.to_thread.run_sync(
        partial(socket.getaddrinfo, host, port, proto=socket.IPPROTO_TCP)
    )
    return [str(info[4][0]) for info in infos]


async def fetch_metadata_document(
    client_id: str,
    *,
    default_scope: str,
    allow_loopback: bool,
    timeout: float = 5.0,
    resolve: Resolver = system_addresses,
) -> RegisteredClient:
    """Fetch and check the document at `client_id`. Raises: MetadataDocumentError.

    The host is resolved once and the connection made to the address that was checked, with
    the name kept in `Host` and in TLS (SNI and the certificate check): resolving again to
    connect would let a name that answers a public address to the check and a private one to
    the connection (DNS rebinding) reach this service's own network.
    """
    parts = urlsplit(client_id)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = await _checked_address(host, port, allow_loopback=allow_loopback, resolve=resolve)
    literal = f"[{address}]" if ":" in address else address
    pinned = parts._replace(netloc=f"{literal}:{port}").geturl()
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as http:
            response = await http.get(
                pinned,
                headers={"Accept": "application/json", "Host": parts.netloc},
                extensions=extensions,
            )
    except httpx.HTTPError as err:
        raise MetadataDocumentError("client metadata document unreachable") from err
    return _checked_document(client_id, response, default_scope=default_scope)


def _checked_document(
    client_id: str, response: httpx.Response, *, default_scope: str
) -> RegisteredClient:
    if response.status_code != 200 or len(response.content) > MAX_DOCUMENT_BYTES:
        raise MetadataDocumentError("client metadata document not served")
    try:
        doc = json.loads(response.content)
    except ValueError as err:
        raise MetadataDocumentError("client metadata document is not JSON") from err
    if not isinstance(doc, dict) or doc.get("client_id") != client_id:
        raise MetadataDocumentError("client metadata document names another client_id")
    if doc.get("client_secret") or doc.get("token_endpoint_auth_method", "none") != "none":
        raise MetadataDocumentError("a metadata document client is public (auth method none)")
    try:
        return RegisteredClient.model_validate(
            {
                **doc,
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "scope": doc.get("scope") or default_scope,
            }
        )
    except ValidationError as err:
        raise MetadataDocumentError("client metadata document is not valid") from err


async def _checked_address(host: str, port: int, *, allow_loopback: bool, resolve: Resolver) -> str:
    """The one address to connect to: every address the host resolves to must be public
    (or loopback, in local runs and tests), never private or link-local (SSRF)."""
    try:
        addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in await resolve(host, port)]
    except (OSError, ValueError) as err:
        raise MetadataDocumentError("client_id host does not resolve") from err
    if not addresses or not all(
        a.is_global or (allow_loopback and a.is_loopback) for a in addresses
    ):
        raise MetadataDocumentError("client_id host is not a public address")
    return str(addresses[0])
