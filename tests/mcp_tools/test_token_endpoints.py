"""What /token and /revoke decide for themselves, over a socket: client authentication by
HTTP Basic with its challenge (RFC 6749 §2.3.1, §5.2), the redirect URI sent again at /token
(§4.1.3) and a parameter sent twice (§3.1)."""

from __future__ import annotations

import httpx2
import pytest

from tests.mcp_tools.conftest import (
    REDIRECT_URI,
    call_tool_raw,
    exchange,
    new_pkce,
    obtain_code,
    register,
)
from tests.mcp_tools.test_client_secrets import basic, register_confidential
from tests.served import Served

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]


async def confidential_tokens(served: Served) -> tuple[dict[str, str], dict[str, str]]:
    """A new client_secret_basic client and the tokens of one sign-in."""
    client = register_confidential(served, "client_secret_basic")
    pkce = new_pkce()
    code = await obtain_code(served, client["client_id"], pkce)
    response = httpx2.post(
        f"{served.base}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": pkce.verifier,
            "redirect_uri": REDIRECT_URI,
            "resource": f"{served.base}/mcp",
        },
        headers=basic(client["client_id"], client["client_secret"]),
    )
    assert response.status_code == 200, response.text
    tokens: dict[str, str] = response.json()
    return client, tokens


async def test_a_basic_only_client_revokes_with_its_authorization_header_alone(
    served: Served,
) -> None:
    """RFC 7009 §2.1 by RFC 6749 §2.3.1: the client_id travels in HTTP Basic; the form holds
    only the token. A wrong secret ends nothing."""
    client, tokens = await confidential_tokens(served)
    form = {"token": tokens["refresh_token"]}

    wrong = httpx2.post(
        f"{served.base}/revoke", data=form, headers=basic(client["client_id"], "wrong")
    )
    still = call_tool_raw(served, tokens["access_token"]).status_code
    right = httpx2.post(
        f"{served.base}/revoke",
        data=form,
        headers=basic(client["client_id"], client["client_secret"]),
    )

    assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
    assert still == 200
    assert right.status_code == 200
    assert right.headers["cache-control"] == "no-store"
    assert call_tool_raw(served, tokens["access_token"]).status_code == 401


@pytest.mark.parametrize("path", ["/token", "/revoke"])
async def test_failed_http_basic_authentication_is_answered_with_a_basic_challenge(
    served: Served, path: str
) -> None:
    """RFC 6749 §5.2: a client that tried the Authorization header gets 401 with a
    WWW-Authenticate of the scheme it used; one that sent its secret in the form gets none."""
    client_id = register_confidential(served, "client_secret_basic")["client_id"]
    form = {"grant_type": "refresh_token", "refresh_token": "fdr_x", "token": "fda_x"}

    by_header = httpx2.post(f"{served.base}{path}", data=form, headers=basic(client_id, "wrong"))
    in_form = httpx2.post(
        f"{served.base}{path}", data={**form, "client_id": client_id, "client_secret": "wrong"}
    )

    assert (by_header.status_code, by_header.json()["error"]) == (401, "invalid_client")
    assert by_header.headers["www-authenticate"].startswith("Basic ")
    assert (in_form.status_code, in_form.json()["error"]) == (401, "invalid_client")
    assert "www-authenticate" not in in_form.headers


async def test_a_form_client_id_other_than_the_basic_one_is_invalid_client(
    served: Served,
) -> None:
    """Two client ids in one request: neither is trusted."""
    client = register_confidential(served, "client_secret_basic")

    response = httpx2.post(
        f"{served.base}/token",
        data={"grant_type": "refresh_token", "refresh_token": "x", "client_id": register(served)},
        headers=basic(client["client_id"], client["client_secret"]),
    )

    assert (response.status_code, response.json()["error"]) == (401, "invalid_client")


async def test_a_code_exchanged_with_another_redirect_uri_is_invalid_grant(
    served: Served,
) -> None:
    """RFC 6749 §4.1.3 and §5.2: the redirect_uri of /authorize must come back identical;
    another one is invalid_grant, and the code still exchanges once with the right one."""
    client_id = register(served)
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce)

    other = exchange(served, client_id, code, pkce.verifier, redirect_uri=REDIRECT_URI + "/x")
    right = exchange(served, client_id, code, pkce.verifier)

    assert (other.status_code, other.json()["error"]) == (400, "invalid_grant")
    assert right.status_code == 200, right.text


@pytest.mark.parametrize("path", ["/token", "/revoke", "/authorize"])
async def test_a_parameter_sent_twice_is_invalid_request_naming_it(
    served: Served, path: str
) -> None:
    """RFC 6749 §3.1: a parameter is sent at most once; a request with two `resource` or two
    `client_id` values is refused rather than read one way here and another way there."""
    client_id = register(served)
    body = (
        f"grant_type=refresh_token&refresh_token=x&token=x&client_id={client_id}"
        "&resource=https://a.example/mcp&resource=https://b.example/mcp"
    )

    response = httpx2.post(
        f"{served.base}{path}",
        content=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )

    assert (response.status_code, response.json()["error"]) == (400, "invalid_request")
    assert "resource" in response.json()["error_description"]
