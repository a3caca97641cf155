"""The authorization server and /mcp refuse what a client got wrong the same way on both
backends: ids Firestore cannot take as document ids, and bodies it could not store, are an
OAuth error of RFC 6749 / 7591 shape, never a 500."""

from __future__ import annotations

import httpx
import pytest

pytestmark = [pytest.mark.emulator, pytest.mark.spec("mcp.oauth")]

REDIRECT_URI = "http://127.0.0.1:33418/callback"
# Firestore refuses these as document ids (InvalidArgument, or a path).
ODD_IDS = ["..", ".", "a/b", "__x__", "x" * 1600]


def register(http: httpx.Client) -> str:
    response = http.post(
        "/register",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    assert response.status_code == 201, response.text
    client_id: str = response.json()["client_id"]
    return client_id


@pytest.mark.parametrize("client_id", ODD_IDS)
def test_an_odd_client_id_is_an_unknown_client_at_authorize_token_and_revoke(
    http: httpx.Client, client_id: str
) -> None:
    authorize = http.get(
        "/authorize",
        params={
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            "code_challenge_method": "S256",
        },
    )
    token = http.post(
        "/token",
        data={"grant_type": "refresh_token", "client_id": client_id, "refresh_token": "x"},
    )
    revoke = http.post("/revoke", data={"client_id": client_id, "token": "x"})

    for answer in (authorize, token, revoke):
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"] == "invalid_client"


@pytest.mark.parametrize("secret", ODD_IDS)
def test_an_odd_code_refresh_token_or_bearer_token_is_refused_as_such(
    http: httpx.Client, secret: str
) -> None:
    client_id = register(http)

    code = http.post(
        "/token",
        data={
            "grant_type": "authorization_code",
            "client_id": client_id,
            "code": secret,
            "code_verifier": "v" * 43,
            "redirect_uri": REDIRECT_URI,
        },
    )
    refresh = http.post(
        "/token",
        data={"grant_type": "refresh_token", "client_id": client_id, "refresh_token": secret},
    )
    bearer = http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {secret}",
        },
    )

    assert (code.status_code, code.json()["error"]) == (400, "invalid_grant")
    assert (refresh.status_code, refresh.json()["error"]) == (400, "invalid_grant")
    assert bearer.status_code == 401


def test_a_registration_too_large_for_a_firestore_document_is_413_on_both_backends(
    http: httpx.Client,
) -> None:
    """A Firestore document holds at most 1 MiB; the server takes 64 KiB of metadata."""
    response = http.post(
        "/register",
        json={
            "redirect_uris": [REDIRECT_URI],
            "client_name": "a",
            "logo_uri": "https://a/" + "x" * 1_100_000,
        },
    )

    assert response.status_code == 413
    assert response.json()["error"] == "invalid_request"


@pytest.mark.parametrize("tx", ODD_IDS)
def test_an_odd_sign_in_id_is_an_expired_sign_in_on_each_page(http: httpx.Client, tx: str) -> None:
    """The sign-in forms send `tx` back as the browser has it: the page says the sign-in
    expired (400), on Firestore too."""
    for page in ("/oauth/signin", "/oauth/code", "/oauth/consent"):
        response = http.get(page, params={"tx": tx})

        assert response.status_code == 400, (page, response.text[:200])
        assert "expired" in response.text
