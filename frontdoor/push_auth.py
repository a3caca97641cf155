"""Pub/Sub push authentication for the worker targets: the OIDC token Pub/Sub attaches.

Cloud Run's IAM already admits only the invoker account; this check is the second lock:
Google-signed (JWKS), issued by accounts.google.com for our audience, for the push service
account, with a verified email. It is configured in production and off only in emulated mode
(the Pub/Sub emulator sends no token: notes/gcp-emulators.md §2).
"""

from __future__ import annotations

import logging
from typing import Any

import jwt
from werkzeug.exceptions import Forbidden, Unauthorized

logger = logging.getLogger(__name__)

GOOGLE_ISSUERS = ["https://accounts.google.com", "accounts.google.com"]
GOOGLE_JWKS_URL = "https://www.googleapis.com/oauth2/v3/certs"


class PushVerifier:
    """Checks `Authorization: Bearer <OIDC token>` of a push request."""

    def __init__(
        self,
        *,
        audience: str,
        service_account: str | None,
        jwks_url: str = GOOGLE_JWKS_URL,
        issuers: list[str] | None = None,
    ) -> None:
        self._audience = audience
        self._service_account = service_account
        self._issuers = issuers or GOOGLE_ISSUERS
        self._jwks = jwt.PyJWKClient(jwks_url, cache_keys=True)

    def verify(self, authorization: str | None) -> dict[str, Any]:
        """The token's claims. Raises: Unauthorized (no or bad token), Forbidden (other account)."""
        if not authorization or authorization[:7].lower() != "bearer ":
            raise Unauthorized("push request without a bearer token")
        token = authorization[7:].strip()
        try:
            key = self._jwks.get_signing_key_from_jwt(token)
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=["RS256"],
                audience=self._audience,
                issuer=self._issuers,
                options={"require": ["exp", "iat", "iss", "aud"]},
            )
        except jwt.PyJWTError as err:
            logger.warning("push token refused: %s", type(err).__name__)
            raise Unauthorized("push token refused") from err
        if self._service_account and (
            claims.get("email") != self._service_account or claims.get("email_verified") is not True
        ):
            logger.warning("push token of another account refused")
            raise Forbidden("push token of another account")
        return claims
