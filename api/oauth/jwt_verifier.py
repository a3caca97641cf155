"""Bearer tokens from an external identity provider: JWTs checked against its JWKS with PyJWT.

Audience (the /mcp resource, or a configured audience), issuer, expiry and signature are
checked; scopes come from `scope` (space-separated) or `scp` (a list or a string), the staff
toolsets' only when the token is staff's (the configured claim, or a verified staff email:
domain/staff.py), whatever the provider granted. Keys that
cannot be fetched are the port's UnavailableError (503 temporarily_unavailable), not a
refused token.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio.to_thread
import httpx
import jwt
from mcp.server.auth.provider import AccessToken

from backends.ports import UnavailableError
from domain.staff import StaffDirectory, granted_scopes

logger = logging.getLogger(__name__)

ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]


class JwtTokenVerifier:
    """TokenVerifier for JWT access tokens signed by the IdP's JWKS keys."""

    def __init__(
        self,
        *,
        issuer: str,
        resource: str,
        audience: str | None = None,
        jwks_url: str | None = None,
        staff: StaffDirectory | None = None,
    ) -> None:
        self.issuer = issuer
        self.staff = staff or StaffDirectory()
        self.resource = resource
        self.audience = audience or resource
        self._jwks_url = jwks_url
        self._jwks: jwt.PyJWKClient | None = None

    async def verify_token(self, token: str) -> AccessToken | None:
        if self._jwks is None:
            # The first call fetches the JWKS (blocking I/O); later ones verify from the cache.
            return await anyio.to_thread.run_sync(self._verify, token)
        return self._verify(token)

    def _verify(self, token: str) -> AccessToken | None:
        try:
            key = self._keys().get_signing_key_from_jwt(token)
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=ALGORITHMS,
                audience=self.audience,
                issuer=self.issuer,
                options={"require": ["exp", "iss", "aud"]},
            )
        except (jwt.PyJWKClientConnectionError, httpx.HTTPError) as err:
            # The token may be fine: the provider's keys could not be fetched. A 401 would
            # send the agent's person through a new sign-in; 503 asks it to retry.
            logger.warning("identity provider keys unreachable: %s", type(err).__name__)
            raise UnavailableError("identity provider keys") from err
        except jwt.PyJWTError as err:
            logger.info("bearer token refused: %s", type(err).__name__)
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or claims.get("sub", "")),
            scopes=granted_scopes(_scopes(claims), staff=self.staff.has_claims(claims)),
            expires_at=int(claims["exp"]),
            # The audience was checked above, so the token is for this resource.
            resource=self.resource,
            subject=str(claims["sub"]) if "sub" in claims else None,
            claims={"iss": claims["iss"]},
        )

    def _keys(self) -> jwt.PyJWKClient:
        if self._jwks is None:
            self._jwks = jwt.PyJWKClient(
                self._jwks_url or _discover_jwks(self.issuer), cache_keys=True
            )
        return self._jwks


def _scopes(claims: dict[str, Any]) -> list[str]:
    raw = claims.get("scope", claims.get("scp", []))
    return raw.split() if isinstance(raw, str) else [str(s) for s in raw]


def _discover_jwks(issuer: str) -> str:
    """The jwks_uri from the issuer's RFC 8414 or OpenID metadata."""
    base = issuer.rstrip("/")
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
        response = httpx.get(base + path, timeout=5.0)
        try:
            metadata = response.json() if response.status_code == 200 else None
        except ValueError:
            metadata = None
        if isinstance(metadata, dict) and "jwks_uri" in metadata:
            return str(metadata["jwks_uri"])
    raise httpx.HTTPError(f"no jwks_uri published by {issuer}")
