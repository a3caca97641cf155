"""SPEC.md "Public read" and "Tool server" over HTTP, in both modes."""

from __future__ import annotations

import httpx
import pytest

from tests.acceptance.conftest import Service

pytestmark = pytest.mark.emulator


@pytest.mark.spec("public.company")
@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("/api/public/v1/company", "company"),
        ("/api/public/v1/blog", "posts"),
        ("/api/public/v1/research", "experiments"),
        ("/api/public/v1/careers", "roles"),
    ],
)
def test_public_reads_answer_ok_with_their_payload_and_open_cors(
    http: httpx.Client, path: str, key: str
) -> None:
    """SPEC Public read: 200 `{ok: true, <payload>}`, no key, open CORS."""
    response = http.get(path)

    assert response.status_code == 200
    assert response.json()["ok"] is True
    assert key in response.json()
    assert response.headers["access-control-allow-origin"] == "*"


@pytest.mark.spec("public.research.detail")
def test_an_unknown_slug_answers_404_with_exactly_error_and_slug(http: httpx.Client) -> None:
    """SPEC Error: the public read 404 body is `{error, slug}`."""
    response = http.get("/api/public/v1/research/no-such-experiment")

    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "slug": "no-such-experiment"}


@pytest.mark.spec("public.company")
def test_a_repeated_read_with_the_etag_answers_304(http: httpx.Client) -> None:
    """DESIGN Public reads: a strong ETag; If-None-Match gives 304."""
    first = http.get("/api/public/v1/careers")

    again = http.get("/api/public/v1/careers", headers={"If-None-Match": first.headers["etag"]})

    assert first.headers["etag"].startswith('"')
    assert again.status_code == 304
    assert again.content == b""


@pytest.mark.spec("mcp.auth")
def test_mcp_without_a_token_answers_401_pointing_at_the_resource_metadata(
    http: httpx.Client, service: Service
) -> None:
    """SPEC Tool server; DESIGN MCP: 401 with WWW-Authenticate resource_metadata."""
    response = http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )

    assert response.status_code == 401
    metadata = f'resource_metadata="{service.base_url}/.well-known/oauth-protected-resource/mcp"'
    assert metadata in response.headers["www-authenticate"]


@pytest.mark.spec("mcp.discovery")
def test_both_well_known_documents_describe_the_protected_mcp_resource(
    http: httpx.Client, service: Service
) -> None:
    """SPEC Authentication: RFC 8414 and RFC 9728 discovery documents."""
    server = http.get("/.well-known/oauth-authorization-server")
    resource = http.get("/.well-known/oauth-protected-resource")

    assert server.status_code == 200
    assert server.json()["issuer"].rstrip("/") == service.base_url
    assert {"openid", "email", "profile"} <= set(server.json()["scopes_supported"])
    assert resource.status_code == 200
    assert resource.json()["resource"] == f"{service.base_url}/mcp"
