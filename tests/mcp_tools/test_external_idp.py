"""External identity provider mode: OAUTH_ISSUER set, tokens are the IdP's RS256 JWTs.

The test starts its own issuer: a loopback server publishing RFC 8414 metadata and a JWKS,
and signs real JWTs with the matching private key.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.emulators import free_port
from tests.mcp_tools.conftest import call_tool_raw, json_documents, start_served
from tests.served import Served

pytestmark = pytest.mark.spec("mcp.oauth.external")


@dataclass(frozen=True)
class Issuer:
    url: str
    key: rsa.RSAPrivateKey
    kid: str = "test-key-1"

    def sign(self, **claims: Any) -> str:
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})


@dataclass(frozen=True)
class IdpMode:
    served: Served
    issuer: Issuer

    def token(self, **overrides: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": self.issuer.url,
            "aud": f"{self.served.base}/mcp",
            "sub": "user-42",
            "client_id": "idp-client",
            "scope": "openid email profile",
            "iat": now,
            "exp": now + 300,
            **overrides,
        }
        return self.issuer.sign(**{k: v for k, v in claims.items() if v is not None})


@pytest.fixture(scope="module")
def idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdpMode]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = {**RSAAlgorithm.to_jwk(key.public_key(), as_dict=True), "kid": "test-key-1", "use": "sig"}
    documents: dict[str, object] = {"/jwks.json": {"keys": [jwk]}}
    with json_documents(documents) as url:
        documents["/.well-known/oauth-authorization-server"] = {
            "issuer": url,
            "authorization_endpoint": f"{url}/authorize",
            "token_endpoint": f"{url}/token",
            "jwks_uri": f"{url}/jwks.json",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        }
        served = start_served(
            tmp_path_factory.mktemp("mcp-idp"),
            oauth_issuer=url,
            oauth_staff_claim="groups=growth-staff",
            staff_email_domains='["kestrel.example"]',
        )
        yield IdpMode(served, Issuer(url, key))
        served.proc.stop()


@pytest.mark.spec("mcp.discovery")
def test_the_resource_metadata_names_the_identity_provider(idp: IdpMode) -> None:
    """DESIGN MCP: with OAUTH_ISSUER set, the PRM's authorization server is the IdP."""
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        document = httpx2.get(f"{idp.served.base}{path}").json()

        assert document["resource"] == f"{idp.served.base}/mcp"
        assert document["authorization_servers"] == [idp.issuer.url]


def test_the_built_in_authorization_server_is_off(idp: IdpMode) -> None:
    """DESIGN MCP: the built-in routes are not served in external IdP mode."""
    for path in ("/.well-known/oauth-authorization-server", "/authorize", "/oauth/signin"):
        assert httpx2.get(f"{idp.served.base}{path}").status_code == 404, path
    assert httpx2.post(f"{idp.served.base}/register", json={}).status_code in (404, 405)


def test_a_jwt_signed_by_the_identity_provider_calls_a_tool(idp: IdpMode) -> None:
    """A valid RS256 JWT with the /mcp audience, the issuer and every scope is accepted."""
    response = call_tool_raw(idp.served, idp.token())

    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"]["company"]["name"]


def test_scopes_are_read_from_an_scp_list_too(idp: IdpMode) -> None:
    """Some IdPs put scopes in `scp` as a list."""
    token = idp.token(scope=None, scp=["openid", "email", "profile"])

    assert call_tool_raw(idp.served, token).status_code == 200


@pytest.mark.parametrize(
    ("case", "overrides"),
    [
        ("another audience", {"aud": "https://other.example/mcp"}),
        ("another issuer", {"iss": "https://evil.example"}),
        ("expired", {"exp": int(time.time()) - 60, "iat": int(time.time()) - 400}),
        ("no audience", {"aud": None}),
    ],
)
def test_a_jwt_with_the_wrong_claims_is_refused(
    idp: IdpMode, case: str, overrides: dict[str, Any]
) -> None:
    """Audience, issuer and expiry are checked."""
    assert call_tool_raw(idp.served, idp.token(**overrides)).status_code == 401, case


def test_a_jwt_signed_by_another_key_is_refused(idp: IdpMode) -> None:
    """The signature must verify against the IdP's JWKS."""
    forger = Issuer(idp.issuer.url, rsa.generate_private_key(public_exponent=65537, key_size=2048))
    forged = IdpMode(idp.served, forger).token()

    assert call_tool_raw(idp.served, forged).status_code == 401


def test_a_jwt_missing_a_scope_gets_403_with_the_scopes(idp: IdpMode) -> None:
    """MCP authorization: insufficient_scope names every needed scope."""
    response = call_tool_raw(idp.served, idp.token(scope="openid"))

    assert response.status_code == 403
    assert 'scope="openid email profile"' in response.headers["www-authenticate"]


def test_keys_the_identity_provider_cannot_serve_are_503_not_a_refused_token(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A JWKS that cannot be fetched says nothing about the token: 503 temporarily_unavailable
    with Retry-After, so the agent retries instead of sending its person to sign in again
    (a 401 invalid_token did)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    documents: dict[str, object] = {}
    with json_documents(documents) as url:
        documents["/.well-known/oauth-authorization-server"] = {
            "issuer": url,
            "jwks_uri": f"http://127.0.0.1:{free_port()}/jwks.json",  # nothing listens there
        }
        served = start_served(tmp_path_factory.mktemp("mcp-idp-down"), oauth_issuer=url)
        try:
            token = IdpMode(served, Issuer(url, key)).token()
            response = call_tool_raw(served, token)
        finally:
            served.proc.stop()

    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    assert response.json()["error"] == "temporarily_unavailable"


@pytest.mark.parametrize(
    ("case", "claims", "staff"),
    [
        ("the staff claim", {"groups": ["sales", "growth-staff"]}, True),
        ("a verified staff email", {"email": "lin@kestrel.example", "email_verified": True}, True),
        ("no staff claim", {"groups": ["sales"]}, False),
        (
            "an unverified staff email",
            {"email": "lin@kestrel.example", "email_verified": False},
            False,
        ),
    ],
)
def test_a_staff_scope_from_the_identity_provider_counts_only_on_a_staff_token(
    idp: IdpMode, case: str, claims: dict[str, Any], staff: bool
) -> None:
    """mcp.md Staff toolsets: OAUTH_STAFF_CLAIM (or a verified staff email) marks a staff
    token; any other keeps the public tools whatever scopes the provider granted."""
    token = idp.token(scope="openid email profile signals:read", **claims)

    response = call_tool_raw(idp.served, token, tool="hot_accounts")

    assert response.status_code == 200, case
    result = response.json()["result"]
    assert result.get("isError", False) is not staff, case
    if staff:
        assert result["structuredContent"]["accounts"] == [], case
    else:
        assert "insufficient_scope" in result["content"][0]["text"], case
