"""OAuth clients of the built-in authorization server: DCR records and Client ID Metadata Documents.

A client's redirect URIs match exactly, except that a loopback redirect may use any port
(RFC 8252 §7.3), which the SDK's own client model does not allow. A Client ID Metadata
Document is an https URL used as `client_id`; its JSON is fetched, checked and cached.
A registered client's secret is stored only as its sha256 (see secret_for_authenticator).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from urllib.parse import unquote, urlsplit

import httpx
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl, ValidationError

from domain.staff import STAFF_SCOPES

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "[::1]", "::1", "localhost"})
MAX_DOCUMENT_BYTES = 5 * 1024

# The client secrets sent with the current /token or /revoke request, by auth method; the
# route wrapper in api.tools.mcp_app sets it from the form and the Authorization header.
presented_client_secrets: ContextVar[Mapping[str, str] | None] = ContextVar(
    "presented_client_secrets", default=None
)


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


def secrets_in_request(form: Mapping[str, Sequence[str]], authorization: str) -> dict[str, str]:
    """The client secrets a /token or /revoke request carries, by auth method: the form's
    `client_secret` and HTTP Basic's password, read the way the SDK's ClientAuthenticator
    reads them."""
    found: dict[str, str] = {}
    posted = form.get("client_secret") or ()
    if posted and posted[0]:
        found["client_secret_post"] = posted[0]
    if authorization.startswith("Basic "):
        try:
            decoded = base64.b64decode(authorization[6:]).decode("utf-8")
        except (ValueError, UnicodeDecodeError, binascii.Error):
            return found
        _, colon, password = decoded.partition(":")
        if colon:
            found["client_secret_basic"] = unquote(password)
    return found


def basic_client_id(authorization: str) -> str | None:
    """The client_id of an `Authorization: Basic` header (RFC 6749 §2.3.1: form-encoded,
    then base64), or None when there is none or it does not decode."""
    if not authorization.startswith("Basic "):
        return None
    try:
        decoded = base64.b64decode(authorization[6:], validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError, binascii.Error):
        return None
    client_id, colon, _ = decoded.partition(":")
    return unquote(client_id) if colon and client_id else None


def secret_for_authenticator(auth_method: str | None, secret_hash: str | None) -> str | None:
    """The `client_secret` to hand the SDK's ClientAuthenticator for a stored client.

    It compares the secret it reads from the request with the client's `client_secret`, and
    we keep only a hash: so the presented secret when its hash matches (constant time), an
    unguessable stand-in when it does not (the SDK then refuses: required or invalid), and
    None for a client without a secret.
    """
    if secret_hash is None:
        return None
    presented = (presented_client_secrets.get() or {}).get(auth_method or "")
    if presented is not None and hmac.compare_digest(
        hashlib.sha256(presented.encode()).hexdigest(), secret_hash
    ):
        return presented
    return "unverified:" + secrets.token_hex(32)


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


async def fetch_metadata_document(
    client_id: str, *, default_scope: str, allow_loopback: bool, timeout: float = 5.0
) -> RegisteredClient:
    """Fetch and check the document at `client_id`. Raises: MetadataDocumentError."""
    host = urlsplit(client_id).hostname or ""
    if not allow_loopback and not _public_host(host):
        raise MetadataDocumentError("client_id host is not a public address")
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as http:
            response = await http.get(client_id, headers={"Accept": "application/json"})
    except httpx.HTTPError as err:
        raise MetadataDocumentError("client metadata document unreachable") from err
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


def _public_host(host: str) -> bool:
    """Refuse to fetch from private, loopback or link-local addresses (SSRF)."""
    try:
        infos = socket.getaddrinfo(host, 443, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    return all(ipaddress.ip_address(info[4][0]).is_global for info in infos)
