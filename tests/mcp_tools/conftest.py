"""The served process on a free port, an OAuth-enabled official MCP client, and a headless browser.

Each server is `python -m frontdoor.serve` under granian, exactly as `make run` starts it,
with its own DATA_DIR so the embedded outbox holds only this server's sign-in codes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from tests.local_server import serving
from tests.probes import FIXED_KEYS
from tests.served import Served
from tests.served import start_served as served_with

REDIRECT_URI = "http://127.0.0.1:33418/callback"


def start_served(data_dir: Path, **env: str) -> Served:
    """tests.served.start_served with the tests' fixed keys (those of tests/conftest.py)."""
    return served_with(data_dir, **FIXED_KEYS, **env)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The built-in authorization server with default lifetimes; http CIMD allowed for tests.

    Every test of the session signs in from 127.0.0.1 here, so the per-address sign-in limits
    are lifted (their own tests run on servers of their own)."""
    server = start_served(
        tmp_path_factory.mktemp("mcp"),
        oauth_allow_http_cimd="true",
        rate_limit_signin="0",
        oauth_signin_codes_per_address="100000",
    )
    # The MCP side is built on its first request (seconds under load): build it first, so the
    # first test's requests meet their usual timeouts.
    httpx2.get(f"{server.base}/.well-known/oauth-authorization-server", timeout=120)
    yield server
    server.stop()


class MemoryStorage:
    """TokenStorage in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class _Forms(HTMLParser):
    """The forms of a page: action, hidden and named inputs, and submit buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, str | None]] = []
        self.inputs: list[dict[str, str | None]] = []
        self.buttons: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append(attributes)
        elif tag == "input":
            self.inputs.append(attributes)
        elif tag == "button":
            self.buttons.append(attributes)


def parse_forms(html: str) -> _Forms:
    parser = _Forms()
    parser.feed(html)
    return parser


def read_code(outbox: Path, email: str, seen: set[str]) -> str:
    """The six-digit code of the newest message to `email` not read before."""
    for path in sorted(outbox.glob("*.json"), reverse=True):
        message = json.loads(path.read_text(encoding="utf-8"))
        if message["to"].lower() == email.lower() and path.name not in seen:
            seen.add(path.name)
            match = re.search(r"\b(\d{6})\b", message["text"])
            assert match, message
            return match.group(1)
    raise AssertionError(f"no sign-in code for {email} in {outbox}")


@dataclass
class HeadlessBrowser:
    """Drives the sign-in, code and consent forms over HTTP, like a person without JavaScript."""

    served: Served
    # One address per sign-in: the per-address hourly limit would otherwise trip across tests.
    email: str = field(default_factory=lambda: f"ada+{secrets.token_hex(4)}@example.com")
    decision: str = "allow"
    # Staff toolsets (checkbox values) to untick on the consent page; the rest stay ticked.
    untick: frozenset[str] = frozenset()
    authorize_urls: list[str] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)
    _result: AuthorizationCodeResult | None = None
    _seen: set[str] = field(default_factory=set)

    async def redirect_handler(self, authorization_url: str) -> None:
        self.authorize_urls.append(authorization_url)
        self._result = await self.authorize(authorization_url)

    async def callback_handler(self) -> AuthorizationCodeResult:
        assert self._result is not None
        return self._result

    async def authorize(self, authorization_url: str) -> AuthorizationCodeResult:
        """From the /authorize URL to the redirect back to the client."""
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
            response = await http.get(authorization_url)
            assert response.status_code == 302, response.text
            signin = urljoin(authorization_url, response.headers["location"])
            page = await http.get(signin)
            self.pages["signin"] = page.text
            response = await self._submit(http, signin, page.text, {"email": self.email})
            code_url = urljoin(signin, response.headers["location"])
            page = await http.get(code_url)
            self.pages["code"] = page.text
            code = read_code(self.served.outbox, self.email, self._seen)
            response = await self._submit(http, code_url, page.text, {"code": code})
            consent_url = urljoin(code_url, response.headers["location"])
            page = await http.get(consent_url)
            self.pages["consent"] = page.text
            ticked = [
                str(i.get("value"))
                for i in parse_forms(page.text).inputs
                if i.get("type") == "checkbox"
                and "checked" in i
                and i.get("value") not in self.untick
            ]
            response = await self._submit(
                http, consent_url, page.text, {"decision": self.decision, "toolset": ticked}
            )
            target = response.headers["location"]
        query = {k: v[0] for k, v in parse_qs(urlsplit(target).query).items()}
        self.pages["redirect"] = target
        return AuthorizationCodeResult(
            code=query.get("code", ""), state=query.get("state"), iss=query.get("iss")
        )

    async def _submit(
        self,
        http: httpx2.AsyncClient,
        page_url: str,
        html: str,
        fields: dict[str, str | list[str]],
    ) -> httpx2.Response:
        forms = parse_forms(html)
        assert len(forms.forms) == 1, html
        data: dict[str, str | list[str]] = {
            str(i["name"]): str(i.get("value") or "")
            for i in forms.inputs
            if i.get("type") == "hidden"
        }
        data.update(fields)
        action = urljoin(page_url, str(forms.forms[0]["action"]))
        response = await http.post(action, data=data)
        assert response.status_code == 303, response.text
        return response


def oauth_provider(
    served: Served,
    browser: HeadlessBrowser,
    *,
    storage: MemoryStorage | None = None,
    client_metadata_url: str | None = None,
    scope: str | None = None,
) -> OAuthClientProvider:
    """The SDK's OAuth client for /mcp: a public client with a loopback redirect."""
    provider = OAuthClientProvider(
        server_url=f"{served.base}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="frontdoor e2e",
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="none",
            scope=scope,
        ),
        storage=storage or MemoryStorage(),
        redirect_handler=browser.redirect_handler,
        callback_handler=browser.callback_handler,
    )
    if client_metadata_url is not None:
        # The SDK client accepts only https CIMD URLs; the test's document server is
        # loopback http, which the server accepts here through OAUTH_ALLOW_HTTP_CIMD.
        provider.context.client_metadata_url = client_metadata_url
    return provider


@asynccontextmanager
async def mcp_client(served: Served, auth: OAuthClientProvider) -> AsyncIterator[Client]:
    """The official client over a real socket with OAuth."""
    async with (
        httpx2.AsyncClient(auth=auth, timeout=30) as http,
        Client(streamable_http_client(f"{served.base}/mcp", http_client=http)) as client,
    ):
        yield client


# --- raw OAuth steps, for the refusal tests ---------------------------------------------


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str


def new_pkce() -> Pkce:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return Pkce(verifier, base64.urlsafe_b64encode(digest).decode().rstrip("="))


def register(served: Served, redirect_uri: str = REDIRECT_URI) -> str:
    """DCR for a public client; its client_id."""
    response = httpx2.post(
        f"{served.base}/register",
        json={
            "client_name": "refusal tests",
            "redirect_uris": [redirect_uri],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        },
    )
    assert response.status_code == 201, response.text
    client_id: str = response.json()["client_id"]
    return client_id


def authorize_url(served: Served, client_id: str, pkce: Pkce, **overrides: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "state": "state-1",
        "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
        "scope": "openid email profile",
        "resource": f"{served.base}/mcp",
        **overrides,
    }
    return f"{served.base}/authorize?{urlencode(params)}"


async def obtain_code(served: Served, client_id: str, pkce: Pkce, **overrides: str) -> str:
    """A code through the real sign-in pages."""
    result = await HeadlessBrowser(served).authorize(
        authorize_url(served, client_id, pkce, **overrides)
    )
    return result.code


def exchange(
    served: Served, client_id: str, code: str, verifier: str, **extra: str
) -> httpx2.Response:
    return httpx2.post(
        f"{served.base}/token",
        data={
            "grant_type": "authorization_code",
            "client_id": client_id,
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": REDIRECT_URI,
            "resource": f"{served.base}/mcp",
            **extra,
        },
    )


def refresh(served: Served, client_id: str, refresh_token: str) -> httpx2.Response:
    return httpx2.post(
        f"{served.base}/token",
        data={
            "grant_type": "refresh_token",
            "client_id": client_id,
            "refresh_token": refresh_token,
            "resource": f"{served.base}/mcp",
        },
    )


async def access_token(served: Served, **overrides: str) -> dict[str, str]:
    """A fresh token response for a newly registered client, plus its client_id."""
    client_id = register(served)
    pkce = new_pkce()
    code = await obtain_code(served, client_id, pkce, **overrides)
    response = exchange(served, client_id, code, pkce.verifier)
    assert response.status_code == 200, response.text
    return {**response.json(), "client_id": client_id}


def call_tool_raw(
    served: Served, token: str | None, *, host: str | None = None, tool: str = "get_company_info"
) -> httpx2.Response:
    """One stateless tools/call POST, as the bench and a plain HTTP agent send it."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
    }
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if host is not None:
        headers["Host"] = host
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {}},
    }
    return httpx2.post(f"{served.base}/mcp", json=body, headers=headers)


@contextmanager
def json_documents(documents: dict[str, object]) -> Iterator[str]:
    """A loopback HTTP server answering GET path -> JSON document; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            document = documents.get(self.path)
            body = json.dumps(document).encode()
            self.send_response(200 if document is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield url
