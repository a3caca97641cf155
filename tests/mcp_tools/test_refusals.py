"""What the tool server and its authorization server refuse, each case on its own, over a socket."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from tests.mcp_tools.conftest import (
    HeadlessBrowser,
    access_token,
    authorize_url,
    call_tool_raw,
    exchange,
    new_pkce,
    obtain_code,
    refresh,
    register,
)
from tests.mcp_tools.tokens import plant_token
from tests.served import Served

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]


def store_of(served: Served) -> SqliteOAuthStore:
    """The served process's own OAuth store (same SQLite file), to plant tokens."""
    return SqliteOAuthStore(SqliteDatabase(served.data_dir / "frontdoor.sqlite3"))


def error_of(response: httpx2.Response) -> str:
    error: str = response.json()["error"]
    return error


def redirect_query(response: httpx2.Response) -> dict[str, str]:
    assert response.status_code in (302, 303), response.text
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["location"]).query).items()}


async def test_a_call_without_a_token_gets_401_pointing_at_the_resource_metadata(
    served: Served,
) -> None:
    """DESIGN MCP: the 401 alone tells an agent where to discover how to authorize."""
    response = call_tool_raw(served, None)

    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert (
        f'resource_metadata="{served.base}/.well-known/oauth-protected-resource/mcp"' in challenge
    )


async def test_a_tampered_token_is_refused(served: Served) -> None:
    """A token that differs by one character from an issued one is not accepted."""
    token = (await access_token(served))["access_token"]

    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")

    assert call_tool_raw(served, token).status_code == 200
    assert call_tool_raw(served, tampered).status_code == 401


async def test_an_expired_token_is_refused(served: Served) -> None:
    """Access tokens are short-lived; past expiry they stop working."""
    plant_token(
        store_of(served),
        "fda_expired-token-0001",
        resource=f"{served.base}/mcp",
        expires_at=datetime.now(UTC) - timedelta(minutes=5),
    )

    assert call_tool_raw(served, "fda_expired-token-0001").status_code == 401


async def test_a_token_for_another_resource_is_refused(served: Served) -> None:
    """RFC 8707: a token bound to another resource is not accepted at /mcp."""
    plant_token(
        store_of(served),
        "fda_other-resource-0001",
        resource="https://other.example/mcp",
        expires_at=datetime.now(UTC) + timedelta(hours=1),
    )

    assert call_tool_raw(served, "fda_other-resource-0001").status_code == 401


async def test_another_resource_is_refused_at_authorize_and_at_token(served: Served) -> None:
    """RFC 8707: `resource` is checked at /authorize and again at /token."""
    client_id = register(served)
    pkce = new_pkce()
    at_authorize = httpx2.get(
        authorize_url(served, client_id, pkce, resource="https://other.example/mcp")
    )
    code = await obtain_code(served, client_id, pkce)

    at_token = exchange(
        served, client_id, code, pkce.verifier, resource="https://other.example/mcp"
    )

    assert (at_authorize.status_code, error_of(at_authorize)) == (400, "invalid_target")
    assert at_token.status_code == 400
    assert error_of(at_token) == "invalid_target"


async def test_a_reused_code_is_refused_and_revokes_what_it_bought(served: Served) -> None:
    """Codes are single-use; a replay also revokes the tokens of the first exchange."""
    client_id = register(served)
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce)

    first = exchange(served, client_id, code, pkce.verifier)
    second = exchange(served, client_id, code, pkce.verifier)

    assert first.status_code == 200
    assert second.status_code == 400
    assert error_of(second) == "invalid_grant"
    assert call_tool_raw(served, first.json()["access_token"]).status_code == 401


async def test_a_wrong_pkce_verifier_is_refused(served: Served) -> None:
    """PKCE: the verifier must hash to the challenge sent at /authorize."""
    client_id = register(served)
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce)

    response = exchange(served, client_id, code, new_pkce().verifier)

    assert response.status_code == 400
    assert error_of(response) == "invalid_grant"


async def test_plain_pkce_is_refused(served: Served) -> None:
    """PKCE S256 only: `plain` is refused invalid_request, shown rather than redirected."""
    client_id = register(served)
    pkce = new_pkce()

    response = httpx2.get(authorize_url(served, client_id, pkce, code_challenge_method="plain"))

    assert (response.status_code, error_of(response)) == (400, "invalid_request")
    assert "location" not in response.headers


async def test_a_redirect_uri_that_does_not_match_is_refused_without_redirecting(
    served: Served,
) -> None:
    """Exact redirect URI matching: an unregistered URI gets an error page, never a redirect."""
    client_id = register(served)

    responses = [
        httpx2.get(authorize_url(served, client_id, new_pkce(), redirect_uri=uri))
        for uri in (
            "https://evil.example/callback",
            "http://127.0.0.1:33418/callback/",
            "http://127.0.0.1:33418/other",
        )
    ]

    assert [r.status_code for r in responses] == [400, 400, 400]
    assert all("location" not in r.headers for r in responses)


async def test_a_loopback_redirect_may_use_another_port(served: Served) -> None:
    """RFC 8252 §7.3: loopback redirect URIs match on any port."""
    client_id = register(served)
    pkce = new_pkce()
    other_port = "http://127.0.0.1:50123/callback"

    result = await HeadlessBrowser(served).authorize(
        authorize_url(served, client_id, pkce, redirect_uri=other_port)
    )
    response = exchange(served, client_id, result.code, pkce.verifier, redirect_uri=other_port)

    assert response.status_code == 200, response.text


async def test_an_unknown_client_gets_401_invalid_client(served: Served) -> None:
    """DESIGN MCP: an unknown client gets 401 invalid_client, so it registers again."""
    at_authorize = httpx2.get(authorize_url(served, "no-such-client", new_pkce()))
    at_token = exchange(served, "no-such-client", "code", new_pkce().verifier)

    assert (at_authorize.status_code, error_of(at_authorize)) == (401, "invalid_client")
    assert (at_token.status_code, error_of(at_token)) == (401, "invalid_client")


async def test_a_host_not_allowed_is_refused(served: Served) -> None:
    """DNS rebinding protection: /mcp answers only for the configured hosts."""
    token = (await access_token(served))["access_token"]

    response = call_tool_raw(served, token, host="evil.example")

    assert response.status_code == 421


async def test_a_token_without_every_scope_gets_403_naming_the_scopes(served: Served) -> None:
    """MCP authorization: 403 insufficient_scope carries `scope=` for step-up."""
    token = (await access_token(served, scope="openid"))["access_token"]

    response = call_tool_raw(served, token)

    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="openid email profile"' in challenge
    assert "resource_metadata=" in challenge


async def test_a_refresh_retried_at_once_gets_the_same_successor_and_reuse_ends_the_grant(
    served: Served,
) -> None:
    """mcp.md Tokens: a refresh token is replaced when exchanged; the same exchange retried at
    once answers the same successor; presented after that successor was used, it ends the
    whole grant."""
    tokens = await access_token(served)
    client_id = tokens["client_id"]

    second = refresh(served, client_id, tokens["refresh_token"])
    again = refresh(served, client_id, tokens["refresh_token"])
    third = refresh(served, client_id, second.json()["refresh_token"])
    replayed = refresh(served, client_id, tokens["refresh_token"])

    assert [r.status_code for r in (second, again, third)] == [200, 200, 200]
    assert again.json() == second.json()
    assert (replayed.status_code, error_of(replayed)) == (400, "invalid_grant")
    assert call_tool_raw(served, third.json()["access_token"]).status_code == 401


async def test_a_revoked_token_stops_working_with_its_whole_grant(served: Served) -> None:
    """RFC 7009 revocation: revoking the refresh token also ends its access token."""
    tokens = await access_token(served)

    response = httpx2.post(
        f"{served.base}/revoke",
        data={"token": tokens["refresh_token"], "client_id": tokens["client_id"]},
    )

    assert response.status_code == 200
    assert call_tool_raw(served, tokens["access_token"]).status_code == 401
    assert refresh(served, tokens["client_id"], tokens["refresh_token"]).status_code == 400


async def test_a_person_who_denies_consent_sends_the_client_access_denied(served: Served) -> None:
    """Consent: deny returns to the client with access_denied, its state and iss."""
    client_id = register(served)
    browser = HeadlessBrowser(served, decision="deny")

    result = await browser.authorize(authorize_url(served, client_id, new_pkce()))

    query = parse_qs(urlsplit(browser.pages["redirect"]).query)
    assert result.code == ""
    assert query["error"] == ["access_denied"]
    assert (result.state, result.iss) == ("state-1", served.base)


async def test_another_client_can_neither_use_refresh_nor_revoke_what_a_client_was_given(
    served: Served,
) -> None:
    """RFC 6749 §4.1.3, §6 and RFC 7009 §2.1: codes and tokens are bound to the client they
    were issued to. Client B presenting client A's code (verifier and all), refresh token or
    tokens to revoke gets nothing and ends nothing: A's code still exchanges once, and A's
    tokens keep working."""
    a, b = register(served), register(served)
    pkce = new_pkce()
    code = await obtain_code(served, a, pkce)

    b_code = exchange(served, b, code, pkce.verifier)
    a_tokens = exchange(served, a, code, pkce.verifier)
    tokens = a_tokens.json()
    b_refresh = refresh(served, b, tokens["refresh_token"])
    b_revokes = [
        httpx2.post(f"{served.base}/revoke", data={"token": tokens[kind], "client_id": b})
        for kind in ("access_token", "refresh_token")
    ]

    assert (b_code.status_code, error_of(b_code)) == (400, "invalid_grant")
    assert a_tokens.status_code == 200
    assert (b_refresh.status_code, error_of(b_refresh)) == (400, "invalid_grant")
    assert [r.status_code for r in b_revokes] == [200, 200]  # RFC 7009: no hint either way
    assert call_tool_raw(served, tokens["access_token"]).status_code == 200
    assert refresh(served, a, tokens["refresh_token"]).status_code == 200
