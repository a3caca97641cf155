"""Client authentication at /token and /revoke (RFC 6749 §2.3.1): a public client by its
`client_id` alone; a confidential one by the secret it registered to send, in the form
(`client_secret_post`) or in HTTP Basic (`client_secret_basic`), checked against the stored
hash. Any failure is 401 `invalid_client`, with a Basic challenge when Basic was tried
(RFC 6749 §5.2)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from urllib.parse import unquote_plus

from api.oauth.clients import RegisteredClient, secret_matches
from api.oauth.provider import BuiltinOAuthProvider
from api.oauth.refusals import OAuthError

BASIC_CHALLENGE = 'Basic realm="oauth"'


@dataclass(frozen=True)
class Credentials:
    """What a request says about its client: the id, and a secret by the way it came."""

    client_id: str
    posted_secret: str | None
    basic_secret: str | None
    basic_tried: bool


def credentials_of(form: dict[str, str], authorization: str) -> Credentials:
    """The client credentials of a /token or /revoke request. Raises: OAuthError (401)."""
    basic_tried = authorization[:6].lower() == "basic "
    basic_id = basic_secret = None
    if basic_tried:
        basic_id, basic_secret = _basic_pair(authorization[6:].strip())
    posted_id = form.get("client_id")
    if basic_id is not None and posted_id is not None and posted_id != basic_id:
        raise _refused("the client_id in the form is not the one in HTTP Basic", basic_tried)
    client_id = basic_id or posted_id
    if not client_id:
        raise _refused("client_id is required (in the form or in HTTP Basic)", basic_tried)
    return Credentials(client_id, form.get("client_secret"), basic_secret, basic_tried)


async def authenticate(
    provider: BuiltinOAuthProvider, credentials: Credentials
) -> RegisteredClient:
    """The client, once its credentials hold. Raises: OAuthError (401 invalid_client)."""
    basic = credentials.basic_tried
    known = await provider.find_client(credentials.client_id)
    if known is None:
        raise _refused("unknown client_id; register again", basic)
    client = known.client
    method = client.token_endpoint_auth_method or "client_secret_post"
    if method == "none":
        return client
    secret = {
        "client_secret_post": credentials.posted_secret,
        "client_secret_basic": credentials.basic_secret,
    }.get(method)
    if secret is None:
        where = "in HTTP Basic" if method == "client_secret_basic" else "as client_secret"
        raise _refused(f"this client sends its secret {where} ({method})", basic)
    if known.secret_hash is None or not secret_matches(secret, known.secret_hash):
        raise _refused("wrong client secret", basic)
    expires = client.client_secret_expires_at
    if expires and expires < provider.clock().timestamp():
        raise _refused("the client secret has expired; register again", basic)
    return client


def _basic_pair(encoded: str) -> tuple[str, str]:
    """HTTP Basic's id and secret, each form-encoded inside (RFC 6749 §2.3.1)."""
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError, binascii.Error) as err:
        raise _refused("the HTTP Basic credentials do not decode", True) from err
    client_id, colon, secret = decoded.partition(":")
    if not colon or not client_id:
        raise _refused("HTTP Basic holds no client_id:secret pair", True)
    return unquote_plus(client_id), unquote_plus(secret)


def _refused(description: str, basic_tried: bool) -> OAuthError:
    headers = {"WWW-Authenticate": BASIC_CHALLENGE} if basic_tried else None
    return OAuthError(401, "invalid_client", description, headers=headers)
