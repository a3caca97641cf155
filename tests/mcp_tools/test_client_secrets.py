"""Confidential clients of the built-in authorization server, over a socket: the secret is
shown once at registration, stored only as a hash, and checked at /token; expired rows are
refused whether or not they were deleted yet."""

from __future__ import annotations

import base64
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import httpx2
import pytest

from api.oauth.config import sha256_hex
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    AuthorizationCodeRecord,
    OAuthClientRecord,
    PendingAuthorization,
)
from tests.mcp_tools.conftest import (
    REDIRECT_URI,
    call_tool_raw,
    exchange,
    new_pkce,
    obtain_code,
    register,
)
from tests.mcp_tools.tokens import plant_token
from tests.served import Served

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth")]


def store_of(served: Served) -> SqliteOAuthStore:
    """The served process's own OAuth store (same SQLite file), to read and plant rows."""
    return SqliteOAuthStore(SqliteDatabase(served.data_dir / "frontdoor.sqlite3"))


def register_confidential(served: Served, method: str) -> dict[str, str]:
    response = httpx2.post(
        f"{served.base}/register",
        json={
            "client_name": "confidential tests",
            "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
        },
    )
    assert response.status_code == 201, response.text
    body: dict[str, str] = response.json()
    return body


def basic(client_id: str, secret: str) -> dict[str, str]:
    pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
    return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}


async def code_exchanged_with_basic(
    served: Served, headers: dict[str, str] | None = None
) -> httpx2.Response:
    """A new client_secret_basic client's code exchanged at /token with HTTP Basic alone (no
    client_id in the form), with `headers` besides."""
    client = register_confidential(served, "client_secret_basic")
    pkce = new_pkce()
    code = await obtain_code(served, client["client_id"], pkce)
    return httpx2.post(
        f"{served.base}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": pkce.verifier,
            "redirect_uri": REDIRECT_URI,
            "resource": f"{served.base}/mcp",
        },
        headers={**basic(client["client_id"], client["client_secret"]), **(headers or {})},
    )


def raw_client_row(served: Served, client_id: str) -> dict[str, object]:
    with sqlite3.connect(served.data_dir / "frontdoor.sqlite3") as conn:
        row = conn.execute(
            "SELECT doc FROM oauth_clients WHERE client_id = ?", (client_id,)
        ).fetchone()
    doc: dict[str, object] = json.loads(row[0])
    return doc


def database_bytes(served: Served) -> bytes:
    """The database file and its write-ahead log, as stored on disk."""
    files = sorted(Path(served.data_dir).glob("frontdoor.sqlite3*"))
    return b"".join(path.read_bytes() for path in files)


async def test_a_client_secret_post_client_gets_tokens_only_with_its_secret(
    served: Served,
) -> None:
    """DCR returns the secret once; /token refuses a missing or wrong one with 401
    invalid_client and issues tokens for the right one."""
    client = register_confidential(served, "client_secret_post")
    client_id, secret = client["client_id"], client["client_secret"]
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce)

    missing = exchange(served, client_id, code, pkce.verifier)
    wrong = exchange(served, client_id, code, pkce.verifier, client_secret=secret[::-1])
    right = exchange(served, client_id, code, pkce.verifier, client_secret=secret)

    assert len(secret) >= 32
    assert (missing.status_code, missing.json()["error"]) == (401, "invalid_client")
    assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
    assert right.status_code == 200, right.text
    assert call_tool_raw(served, right.json()["access_token"]).status_code == 200


async def test_a_client_secret_basic_client_authenticates_with_the_authorization_header(
    served: Served,
) -> None:
    """client_secret_basic: the secret in HTTP Basic works for the code and the refresh;
    the same secret in the form does not, since the client registered Basic."""
    client = register_confidential(served, "client_secret_basic")
    client_id, secret = client["client_id"], client["client_secret"]
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce)
    form = {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": code,
        "code_verifier": pkce.verifier,
        "redirect_uri": REDIRECT_URI,
        "resource": f"{served.base}/mcp",
    }

    in_form = httpx2.post(f"{served.base}/token", data={**form, "client_secret": secret})
    tokens = httpx2.post(f"{served.base}/token", data=form, headers=basic(client_id, secret))
    refreshed = httpx2.post(
        f"{served.base}/token",
        data={
            "grant_type": "refresh_token",
            "client_id": client_id,
            "refresh_token": tokens.json()["refresh_token"],
            "resource": f"{served.base}/mcp",
        },
        headers=basic(client_id, secret),
    )

    assert (in_form.status_code, in_form.json()["error"]) == (401, "invalid_client")
    assert tokens.status_code == 200, tokens.text
    assert refreshed.status_code == 200, refreshed.text


async def test_no_client_secret_is_stored_in_plain_text(served: Served) -> None:
    """The stored row holds the secret's sha256 and nothing of the secret; the database
    files on disk do not contain it at all."""
    client = register_confidential(served, "client_secret_post")
    secret = client["client_secret"]

    row = raw_client_row(served, client["client_id"])

    assert row["secret_hash"] == sha256_hex(secret)
    assert secret not in json.dumps(row)
    assert "client_secret" not in json.loads(str(row["information"]))
    assert secret.encode() not in database_bytes(served)


async def test_a_plain_secret_from_an_older_data_file_is_hashed_when_the_client_returns(
    served: Served,
) -> None:
    """Rows written before hashing keep working: the first lookup verifies the secret,
    stores its hash and drops the plain copy."""
    information = {
        "client_id": "legacy-confidential",
        "client_secret": "legacy-secret-" + "x" * 40,
        "client_secret_expires_at": 0,
        "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "client_secret_post",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "scope": "openid email profile",
    }
    store_of(served).save_client(
        OAuthClientRecord(
            client_id="legacy-confidential",
            information=json.dumps(information),
            created_at=datetime.now(UTC),
        )
    )
    secret = str(information["client_secret"])

    wrong = exchange(served, "legacy-confidential", "no-such-code", "v" * 43, client_secret="no")
    right = exchange(served, "legacy-confidential", "no-such-code", "v" * 43, client_secret=secret)
    row = raw_client_row(served, "legacy-confidential")

    assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
    # Authenticated, so the unknown code is what is refused.
    assert (right.status_code, right.json()["error"]) == (400, "invalid_grant")
    assert row["secret_hash"] == sha256_hex(secret)
    assert secret not in json.dumps(row)


async def test_expired_codes_refresh_tokens_and_sign_ins_are_refused_before_deletion(
    served: Served,
) -> None:
    """Rows past `expires_at` still in the store (Firestore TTL lags, the SQLite purge
    runs later) are refused like absent ones."""
    client_id = register(served)
    past = datetime.now(UTC) - timedelta(seconds=5)
    store = store_of(served)
    pkce = new_pkce()
    store.add_code(
        AuthorizationCodeRecord(
            code_hash=sha256_hex("expired-code"),
            client_id=client_id,
            subject="ada@example.com",
            scopes=("openid", "email", "profile"),
            code_challenge=pkce.challenge,
            redirect_uri=REDIRECT_URI,
            redirect_uri_provided_explicitly=True,
            resource=f"{served.base}/mcp",
            expires_at=past,
        )
    )
    plant_token(
        store,
        "fdr_expired",
        resource=f"{served.base}/mcp",
        kind="refresh",
        client_id=client_id,
        grant_id="expired-grant",
        expires_at=past,
    )
    store.save_pending(
        PendingAuthorization(
            tx_id="expired-tx", client_id=client_id, request="{}", csrf_hash="", expires_at=past
        )
    )

    code = exchange(served, client_id, "expired-code", pkce.verifier)
    refreshed = httpx2.post(
        f"{served.base}/token",
        data={
            "grant_type": "refresh_token",
            "client_id": client_id,
            "refresh_token": "fdr_expired",
            "resource": f"{served.base}/mcp",
        },
    )
    signin = httpx2.get(f"{served.base}/oauth/signin", params={"tx": "expired-tx"})

    assert (code.status_code, code.json()["error"]) == (400, "invalid_grant")
    assert (refreshed.status_code, refreshed.json()["error"]) == (400, "invalid_grant")
    assert signin.status_code == 400
    assert "expired" in signin.text


@pytest.mark.parametrize(
    "authorization", ["Basic !!!not-base64", "Basic " + "é" * 8, "Basic bm9jb2xvbg=="]
)
async def test_a_malformed_basic_header_is_401_not_a_server_error(
    served: Served, authorization: str
) -> None:
    """Bad base64, non-ASCII, no colon: refused as client authentication, never a 500."""
    client_id = register_confidential(served, "client_secret_basic")["client_id"]

    response = httpx2.post(
        f"{served.base}/token",
        data={"grant_type": "refresh_token", "client_id": client_id, "refresh_token": "x"},
        headers={b"Authorization": authorization.encode("utf-8")},
    )

    assert (response.status_code, response.json()["error"]) == (401, "invalid_client")


async def test_a_confidential_client_revokes_with_its_secret(served: Served) -> None:
    """/revoke authenticates like /token: the wrong secret is refused, the right one ends
    the grant."""
    client = register_confidential(served, "client_secret_post")
    client_id, secret = client["client_id"], client["client_secret"]
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce)
    tokens = exchange(served, client_id, code, pkce.verifier, client_secret=secret).json()
    form = {"token": tokens["access_token"], "client_id": client_id}

    wrong = httpx2.post(f"{served.base}/revoke", data={**form, "client_secret": "wrong"})
    still = call_tool_raw(served, tokens["access_token"]).status_code
    right = httpx2.post(f"{served.base}/revoke", data={**form, "client_secret": secret})

    assert wrong.status_code == 401
    assert still == 200
    assert right.status_code == 200
    assert call_tool_raw(served, tokens["access_token"]).status_code == 401
