"""What the built-in authorization server answers to requests a client got wrong, over a
socket: RFC 6749 / 7591 / 7636 error codes, never a server_error, never a sign-in that can
only fail at the end."""

from __future__ import annotations

import re

import httpx2
import pytest

from tests.mcp_tools.conftest import (
    REDIRECT_URI,
    authorize_url,
    call_tool_raw,
    new_pkce,
    register,
)
from tests.mcp_tools.test_client_secrets import (
    basic,
    code_exchanged_with_basic,
    register_confidential,
)
from tests.served import Served

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]


def registration(served: Served, **metadata: object) -> httpx2.Response:
    return httpx2.post(
        f"{served.base}/register",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none", **metadata},
    )


@pytest.mark.parametrize("grant_type", ["password", "client_credentials", "implicit", "urn:x"])
async def test_a_grant_type_the_server_does_not_serve_is_unsupported_grant_type(
    served: Served, grant_type: str
) -> None:
    """RFC 6749 §5.2: unsupported_grant_type, not invalid_request in a parser's words."""
    client_id = register(served)

    response = httpx2.post(
        f"{served.base}/token",
        data={"grant_type": grant_type, "client_id": client_id, "username": "a"},
    )

    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"
    assert "authorization_code, refresh_token" in response.json()["error_description"]


async def test_a_token_request_without_a_grant_type_is_invalid_request(served: Served) -> None:
    response = httpx2.post(f"{served.base}/token", data={"client_id": register(served)})

    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_request",
        "error_description": "grant_type is required",
    }


async def test_a_client_may_authenticate_with_http_basic_alone(served: Served) -> None:
    """RFC 6749 §2.3.1: with client_secret_basic the client_id travels in the header; the
    form need not repeat it."""
    response = await code_exchanged_with_basic(served)

    assert response.status_code == 200, response.text
    assert call_tool_raw(served, response.json()["access_token"]).status_code == 200


async def test_http_basic_with_a_wrong_secret_is_still_invalid_client(served: Served) -> None:
    client = register_confidential(served, "client_secret_basic")

    response = httpx2.post(
        f"{served.base}/token",
        data={"grant_type": "refresh_token", "refresh_token": "fdr_x"},
        headers=basic(client["client_id"], "wrong"),
    )

    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


@pytest.mark.parametrize("path", ["/authorize", "/register", "/token", "/revoke"])
async def test_a_body_over_64_kib_is_413_invalid_request_at_every_oauth_endpoint(
    served: Served, path: str
) -> None:
    """A field past 1 MiB at /authorize answered 400 server_error and logged an ERROR."""
    response = httpx2.post(
        f"{served.base}{path}",
        data={"client_id": register(served), "state": "s" * 1_200_000},
    )

    assert response.status_code == 413
    assert response.json()["error"] == "invalid_request"


async def test_a_redirect_uri_with_a_fragment_is_refused_at_registration(served: Served) -> None:
    """RFC 6749 §3.1.2: the redirection endpoint URI must not include a fragment."""
    response = registration(served, redirect_uris=["https://app.example/cb#done"])

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"


async def test_a_grant_type_the_server_does_not_serve_is_refused_at_registration(
    served: Served,
) -> None:
    """RFC 7591 §2: the metadata lists authorization_code and refresh_token only."""
    response = registration(served, grant_types=["authorization_code", "implicit"])

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    assert "implicit" in response.json()["error_description"]


@pytest.mark.parametrize("name", ["Evil\x1b[31m app", "a\x00b", "x" * 201, "line\nbreak"])
async def test_a_client_name_the_consent_page_cannot_show_is_refused(
    served: Served, name: str
) -> None:
    response = registration(served, client_name=name)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    assert "client_name" in response.json()["error_description"]


async def test_a_printable_client_name_of_any_script_is_kept(served: Served) -> None:
    response = registration(served, client_name="Ağent — 助手 ✓")

    assert response.status_code == 201
    assert response.json()["client_name"] == "Ağent — 助手 ✓"


@pytest.mark.parametrize("challenge", ["abc", "=" * 43, "a" * 44, "a" * 128])
async def test_a_code_challenge_that_no_verifier_can_meet_is_refused_at_authorize(
    served: Served, challenge: str
) -> None:
    """RFC 7636 §4.2: an S256 challenge is 43 base64url characters; anything else would send
    the person through sign-in for a code that /token must refuse."""
    client_id = register(served)

    response = httpx2.get(authorize_url(served, client_id, new_pkce(), code_challenge=challenge))

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert "code_challenge" in response.json()["error_description"]


@pytest.mark.parametrize("who", ["unknown client", "no client_id", "wrong secret"])
async def test_revocation_by_a_client_that_fails_authentication_is_401_invalid_client(
    served: Served, who: str
) -> None:
    """RFC 7009 §2.2.1 answers failed client authentication as RFC 6749 §5.2 does:
    invalid_client, as /token does (the SDK said unauthorized_client)."""
    client = register_confidential(served, "client_secret_post")
    form = {
        "unknown client": {"client_id": "no-such-client"},
        "no client_id": {},
        "wrong secret": {"client_id": client["client_id"], "client_secret": "wrong"},
    }[who]

    response = httpx2.post(f"{served.base}/revoke", data={"token": "fda_x", **form})

    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"
    assert int(response.headers["content-length"]) == len(response.content)


async def test_a_public_client_revokes_without_authentication_trouble(served: Served) -> None:
    response = httpx2.post(
        f"{served.base}/revoke", data={"token": "fda_unknown", "client_id": register(served)}
    )

    assert response.status_code == 200


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_an_unknown_client_is_401_invalid_client_at_authorize_by_get_or_post(
    served: Served, method: str
) -> None:
    """mcp.md Errors: an unknown client registers again; a POSTed /authorize (RFC 6749 §3.1
    allows it) answered 400 invalid_request."""
    params = {
        "response_type": "code",
        "client_id": "no-such-client",
        "redirect_uri": REDIRECT_URI,
        "code_challenge": new_pkce().challenge,
        "code_challenge_method": "S256",
        "state": "s-1",
    }

    if method == "GET":
        response = httpx2.get(f"{served.base}/authorize", params=params)
    else:
        response = httpx2.post(f"{served.base}/authorize", data=params)

    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


async def test_a_posted_authorization_request_of_a_known_client_goes_to_sign_in(
    served: Served,
) -> None:
    params = {
        "response_type": "code",
        "client_id": register(served),
        "redirect_uri": REDIRECT_URI,
        "code_challenge": new_pkce().challenge,
        "code_challenge_method": "S256",
        "state": "s-1",
    }

    response = httpx2.post(f"{served.base}/authorize", data=params)

    assert response.status_code == 302
    assert "/oauth/signin?tx=" in response.headers["location"]


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_code_challenge_without_its_method_is_refused_at_authorize(
    served: Served, method: str
) -> None:
    """RFC 7636 §4.3: a missing code_challenge_method means `plain`, which OAuth 2.1 and the
    MCP authorization spec forbid; it is refused, not read as S256."""
    params = {
        "response_type": "code",
        "client_id": register(served),
        "redirect_uri": REDIRECT_URI,
        "code_challenge": new_pkce().challenge,
        "state": "s-1",
        "resource": f"{served.base}/mcp",
    }

    if method == "GET":
        response = httpx2.get(f"{served.base}/authorize", params=params)
    else:
        response = httpx2.post(f"{served.base}/authorize", data=params)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert "code_challenge_method" in response.json()["error_description"]
    assert "S256" in response.json()["error_description"]


async def test_a_code_challenge_without_its_method_for_a_redirect_uri_not_registered_is_400(
    served: Served,
) -> None:
    """The refusal never redirects to an address the client did not register."""
    params = {
        "response_type": "code",
        "client_id": register(served),
        "redirect_uri": "https://attacker.example/cb",
        "code_challenge": new_pkce().challenge,
        "state": "s-1",
    }

    response = httpx2.get(f"{served.base}/authorize", params=params)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


@pytest.mark.parametrize(
    "wrong",
    [
        {"code_challenge": "abc"},
        {"code_challenge_method": "plain"},
        {"scope": "openid admin"},
        {"resource": "https://other.example/mcp"},
        {"response_type": "token"},
    ],
    ids=["challenge", "plain", "scope", "resource", "response_type"],
)
async def test_an_authorize_error_is_shown_never_redirected_to_a_registered_uri(
    served: Served, wrong: dict[str, str]
) -> None:
    """RFC 9700 §4.11.2: anyone may register a client with any https redirect URI, so an
    /authorize link with an error in it would make this server bounce a person to that site
    (an open redirect). No person has confirmed the redirect URI before consent: the error is
    answered here, 400 with `error`, and only consent sends the person back."""
    phishing = "https://phish.example/landing"
    client_id = register(served, redirect_uri=phishing)

    response = httpx2.get(
        authorize_url(served, client_id, new_pkce(), redirect_uri=phishing, **wrong)
    )

    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.json()["error"] in {
        "invalid_request",
        "invalid_scope",
        "invalid_target",
        "unsupported_response_type",
    }
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/token", "POST"),
        ("GET", "/register", "POST"),
        ("GET", "/revoke", "POST"),
        ("PUT", "/authorize", "GET"),
        ("POST", "/.well-known/oauth-authorization-server", "GET"),
        ("POST", "/.well-known/oauth-protected-resource/mcp", "GET"),
    ],
)
async def test_a_method_an_oauth_endpoint_does_not_take_is_405_in_the_oauth_error_shape(
    served: Served, method: str, path: str, allowed: str
) -> None:
    """mcp.md Errors: OAuth endpoints answer in the RFC 6749 shape; a wrong method as well,
    with the methods it takes in `Allow` (RFC 9110 §15.5.6)."""
    response = httpx2.request(method, f"{served.base}{path}")

    assert response.status_code == 405
    assert allowed in response.headers["allow"]
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "error": "invalid_request",
        "error_description": f"{method} is not allowed on {path}; allowed: "
        + response.headers["allow"],
    }


ERROR_DESCRIPTION = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*")


@pytest.mark.parametrize("wrong", ["challenge", "method", "fragment", "two fields"])
async def test_an_error_description_holds_only_the_characters_rfc_6749_allows(
    served: Served, wrong: str
) -> None:
    """RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2: error_description is printable ASCII
    without `"` and `\\`; a client may refuse or mangle anything else."""
    if wrong == "fragment":
        response = registration(served, redirect_uris=["https://agent.example/cb#x"])
        description = response.json()["error_description"]
    else:
        overrides = {"code_challenge": "abc"} if wrong == "challenge" else {}
        url = authorize_url(served, register(served), new_pkce(), **overrides)
        if wrong == "method":
            url = url.replace("&code_challenge_method=S256", "")
        if wrong == "two fields":  # the SDK joins its parser's messages with newlines
            url = url.replace("response_type=code&", "").replace("&code_challenge=", "&x=")
        response = httpx2.get(url)
        description = response.json()["error_description"]

    assert ERROR_DESCRIPTION.fullmatch(description), description


@pytest.mark.parametrize("endpoint", ["token", "register", "authorize"])
async def test_a_json_refusal_names_every_field_in_the_characters_rfc_6749_allows(
    served: Served, endpoint: str
) -> None:
    """RFC 6749 §5.2 and RFC 7591 §3.2.2 hold a JSON error_description to the same characters:
    the SDK joined its parser's messages with newlines; each field is still named."""
    if endpoint == "token":
        response = httpx2.post(
            f"{served.base}/token",
            data={"grant_type": "authorization_code", "client_id": register(served)},
        )
        fields: tuple[str, ...] = ("code", "code_verifier")
    elif endpoint == "register":
        response = httpx2.post(
            f"{served.base}/register", json={"redirect_uris": "x", "grant_types": 5}
        )
        fields = ("redirect_uris", "grant_types")
    else:  # no redirect URI to send the error to: it is shown to the person
        response = httpx2.get(f"{served.base}/authorize", params={"state": "s-1"})
        fields = ("client_id", "response_type", "code_challenge")

    assert response.status_code == 400
    description = response.json()["error_description"]
    assert ERROR_DESCRIPTION.fullmatch(description), description
    assert all(field in description for field in fields)
