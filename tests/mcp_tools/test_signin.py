"""The built-in authorization server's forms and limits, in-process through the ASGI app."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest
from pydantic import ValidationError

from api.oauth.config import OAuthConfig
from api.rate_limits import WindowCounter
from api.tools.mcp_app import McpAsgiApp, McpConfig, create_mcp_asgi_app
from api.tools.mcp_paths import asgi_paths
from backends.content_files import load_catalog
from backends.embedded.mail import OutboxMailer
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.sqlite import SqliteDatabase
from frontdoor.mcp_wiring import mcp_config
from frontdoor.settings import Settings
from tests.mcp_tools.conftest import (
    REDIRECT_URI,
    json_documents,
    new_pkce,
    parse_forms,
    read_code,
)
from tests.mcp_tools.tokens import EMAIL, plant_token

pytestmark = [pytest.mark.anyio, pytest.mark.spec("mcp.oauth.signin")]
BASE = "http://localhost"
LIMITS = OAuthConfig(
    issuer=BASE,
    resource=f"{BASE}/mcp",
    registrations_per_hour=3,
    codes_per_email_and_address=2,
    codes_per_email=3,
    codes_per_address=4,
    codes_per_signin=2,
    code_attempts=3,
)
ATTACKER, PERSON = ("203.0.113.9", 40000), ("198.51.100.7", 40000)


@pytest.fixture
def outbox(tmp_path: Path) -> Path:
    return tmp_path / "outbox"


@pytest.fixture
def app(tmp_path: Path, outbox: Path) -> McpAsgiApp:
    store = SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3"))
    return create_mcp_asgi_app(
        McpConfig(base_url=BASE, oauth=LIMITS),
        catalog=load_catalog(Settings().content_dir),
        oauth_store=store,
        mailer=OutboxMailer(outbox),
        clock=lambda: datetime.now(UTC),
    )


def browser_at(app: McpAsgiApp, address: tuple[str, int]) -> httpx2.AsyncClient:
    """A browser of its own (cookies and all) at a client address."""
    transport = httpx2.ASGITransport(app=app.app, client=address)
    return httpx2.AsyncClient(transport=transport, base_url=BASE)


@pytest.fixture
def http(app: McpAsgiApp) -> httpx2.AsyncClient:
    return browser_at(app, ("127.0.0.1", 123))


async def register(http: httpx2.AsyncClient) -> httpx2.Response:
    return await http.post(
        "/register",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )


async def start_signin(
    http: httpx2.AsyncClient, client_id: str | None = None
) -> tuple[str, dict[str, str]]:
    """Register (unless `client_id` is given), hit /authorize and open the sign-in page: its
    URL and hidden fields."""
    client_id = client_id or (await register(http)).json()["client_id"]
    pkce = new_pkce()
    response = await http.get(
        "/authorize",
        params={
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": pkce.challenge,
            "code_challenge_method": "S256",
            "state": "s",
        },
    )
    page = await http.get(response.headers["location"])
    forms = parse_forms(page.text)
    hidden = {str(i["name"]): str(i["value"]) for i in forms.inputs if i.get("type") == "hidden"}
    return response.headers["location"], hidden


async def test_the_sign_in_page_is_a_plain_accessible_form(http: httpx2.AsyncClient) -> None:
    """DESIGN MCP: input[name=email][type=email] in a form that works without JavaScript."""
    _url, _hidden = await start_signin(http)
    page = await http.get(_url)

    forms = parse_forms(page.text)
    email = next(i for i in forms.inputs if i.get("name") == "email")
    assert page.headers["cache-control"] == "no-store"
    assert "<script" not in page.text
    assert forms.forms[0]["method"] == "post"
    assert (email["type"], email["id"], email["autocomplete"]) == ("email", "email", "email")
    assert '<label for="email">' in page.text
    assert '<html lang="en">' in page.text


async def test_a_form_post_without_the_sign_in_cookie_is_refused(
    http: httpx2.AsyncClient,
) -> None:
    """CSRF: the hidden token must match the cookie set by the sign-in page."""
    _url, hidden = await start_signin(http)
    http.cookies.clear()

    response = await http.post("/oauth/signin", data={**hidden, "email": EMAIL})

    assert response.status_code == 403


@pytest.mark.parametrize("csrf", ["\u00e9" * 32, "\u2603", "a\u00ff"])
async def test_a_csrf_value_that_is_not_ascii_is_refused_as_forged(
    http: httpx2.AsyncClient, csrf: str
) -> None:
    """CSRF: a form whose token is not ASCII is refused 403 like any forged form (the
    comparison raised, a 500 with a stack trace)."""
    _url, hidden = await start_signin(http)

    response = await http.post("/oauth/signin", data={**hidden, "csrf": csrf, "email": EMAIL})

    assert response.status_code == 403


async def test_two_sign_ins_open_at_once_in_one_browser_both_go_through(
    http: httpx2.AsyncClient,
) -> None:
    """CSRF: a person connecting two apps at the same moment has two sign-in pages open in one
    browser. Opening the second keeps the browser's sign-in cookie, so the first page's form
    still posts (it answered 403 "not sent from the sign-in page" once the second had opened)."""
    _first_url, first = await start_signin(http)
    _second_url, second = await start_signin(http)

    answers = [
        await http.post("/oauth/signin", data={**first, "email": EMAIL}),
        await http.post("/oauth/signin", data={**second, "email": "bo@example.com"}),
    ]

    assert [a.status_code for a in answers] == [303, 303]
    assert [a.headers["location"].split("?")[0] for a in answers] == ["/oauth/code"] * 2


async def test_the_code_form_allows_a_limited_number_of_wrong_codes(
    http: httpx2.AsyncClient, outbox: Path
) -> None:
    """Rate limit on code attempts: after the last wrong code the sign-in is over."""
    _url, hidden = await start_signin(http)
    sent = await http.post("/oauth/signin", data={**hidden, "email": EMAIL})
    page = await http.get(sent.headers["location"])
    code_input = next(i for i in parse_forms(page.text).inputs if i.get("name") == "code")
    right = read_code(outbox, EMAIL, set())
    wrong = f"{(int(right) + 1) % 10**6:06d}"

    statuses = [
        (await http.post("/oauth/code", data={**hidden, "code": wrong})).status_code
        for _ in range(LIMITS.code_attempts)
    ]
    after = await http.post("/oauth/code", data={**hidden, "code": right})

    assert code_input["autocomplete"] == "one-time-code"
    assert statuses == [400] * LIMITS.code_attempts
    assert after.status_code == 429


async def test_wrong_codes_sent_at_once_each_count_against_the_limit(
    http: httpx2.AsyncClient, outbox: Path
) -> None:
    """Rate limit on code attempts: guesses at someone's code posted in parallel (each read the
    sign-in before any counted) still get `code_attempts` tries in all, then the sign-in is
    over, so a burst cannot try more of the million codes than a person typing."""
    _url, hidden = await start_signin(http)
    await http.post("/oauth/signin", data={**hidden, "email": EMAIL})
    right = int(read_code(outbox, EMAIL, set()))
    guesses = [f"{(right + n) % 10**6:06d}" for n in range(1, 13)]

    answers = await asyncio.gather(
        *(http.post("/oauth/code", data={**hidden, "code": guess}) for guess in guesses)
    )
    after = await http.post("/oauth/code", data={**hidden, "code": f"{right:06d}"})

    compared = [a for a in answers if "That code is not right" in a.text]
    # The rest are refused without a compare: 429, or, for a guess that read the sign-in only
    # after the over-limit guess ended it, 400 "This sign-in has expired".
    refused = [a for a in answers if a not in compared]
    assert [a.status_code for a in compared] == [400] * LIMITS.code_attempts
    assert all(a.status_code == 429 or "This sign-in has expired" in a.text for a in refused), [
        (a.status_code, a.text[:200]) for a in refused
    ]
    assert (after.status_code, after.headers.get("location")) == (400, None)  # over: no consent


async def test_a_wrong_code_says_how_many_tries_are_left_in_plain_words(
    http: httpx2.AsyncClient,
) -> None:
    """A wrong code says "2 attempts left", then "1 attempt left", never "attempt(s)"."""
    _url, hidden = await start_signin(http)
    await http.post("/oauth/signin", data={**hidden, "email": EMAIL})

    pages = [
        (await http.post("/oauth/code", data={**hidden, "code": "000000"})).text
        for _ in range(LIMITS.code_attempts - 1)
    ]

    assert LIMITS.code_attempts == 3
    assert "That code is not right. 2 attempts left." in pages[0]
    assert "That code is not right. 1 attempt left." in pages[1]
    assert "(s)" not in "".join(pages)


async def test_one_address_cannot_use_up_a_persons_sign_in_codes(app: McpAsgiApp) -> None:
    """mcp.md Sign-in limits: codes to one email from one client address are limited on their
    own, so an address that mails a person codes until it is refused has not locked that
    person out: they still get a code from their own address."""
    attacker, person = browser_at(app, ATTACKER), browser_at(app, PERSON)
    client_id = (await register(attacker)).json()["client_id"]
    statuses = []
    for _ in range(LIMITS.codes_per_email_and_address + 2):
        _url, hidden = await start_signin(attacker, client_id)
        sent = await attacker.post("/oauth/signin", data={**hidden, "email": EMAIL})
        statuses.append(sent.status_code)

    _url, hidden = await start_signin(person)
    own = await person.post("/oauth/signin", data={**hidden, "email": EMAIL})

    assert statuses == [303] * LIMITS.codes_per_email_and_address + [429] * 2
    assert own.status_code == 303


async def test_codes_to_one_email_from_every_address_together_are_limited(
    app: McpAsgiApp,
) -> None:
    """mcp.md Sign-in limits: past the per-email ceiling (from all addresses together) a
    person gets no more codes this hour, so their mailbox cannot be flooded."""
    statuses = []
    for n in range(LIMITS.codes_per_email + 1):
        browser = browser_at(app, (f"192.0.2.{n + 1}", 40000))
        _url, hidden = await start_signin(browser)
        statuses.append(
            (await browser.post("/oauth/signin", data={**hidden, "email": EMAIL})).status_code
        )

    assert statuses == [303] * LIMITS.codes_per_email + [429]


async def test_one_pending_sign_in_sends_a_limited_number_of_codes(
    http: httpx2.AsyncClient,
) -> None:
    """mcp.md Sign-in limits: a pending sign-in sends a few codes ("Use another email
    address"), whatever addresses it is given; then the client starts again."""
    _url, hidden = await start_signin(http)

    statuses = [
        (
            await http.post("/oauth/signin", data={**hidden, "email": f"p{n}@example.com"})
        ).status_code
        for n in range(LIMITS.codes_per_signin + 1)
    ]

    assert statuses == [303] * LIMITS.codes_per_signin + [429]


async def test_codes_from_one_client_address_to_anyone_are_limited(
    http: httpx2.AsyncClient,
) -> None:
    """mcp.md Sign-in limits: one client address mailing codes to many people is refused past
    its own hourly allowance."""
    client_id = (await register(http)).json()["client_id"]
    statuses = []
    for n in range(LIMITS.codes_per_address + 1):
        _url, hidden = await start_signin(http, client_id)
        sent = await http.post("/oauth/signin", data={**hidden, "email": f"p{n}@example.com"})
        statuses.append(sent.status_code)

    assert statuses == [303] * LIMITS.codes_per_address + [429]


async def test_authorize_and_the_sign_in_pages_are_rate_limited_per_address(
    tmp_path: Path,
) -> None:
    """RATE_LIMIT_SIGNIN: requests to /authorize and the sign-in pages are counted per client
    address; past the limit 429 `rate_limited` with Retry-After, before a pending sign-in is
    stored; another address is not affected."""
    app = create_mcp_asgi_app(
        McpConfig(base_url=BASE, oauth=LIMITS),
        catalog=load_catalog(Settings().content_dir),
        oauth_store=SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3")),
        mailer=OutboxMailer(tmp_path / "outbox"),
        clock=lambda: datetime.now(UTC),
        signin_limit=WindowCounter(policy="signin", quota=4, window_seconds=60),
    )
    flooding, other = browser_at(app, ATTACKER), browser_at(app, PERSON)
    client_id = (await register(flooding)).json()["client_id"]

    url, _hidden = await start_signin(flooding, client_id)  # /authorize and the page: 2
    answers = [await flooding.get(url), await flooding.get(url), await flooding.get(url)]
    refused_authorize = await flooding.get("/authorize", params={"client_id": client_id})
    _url, hidden = await start_signin(other, client_id)

    assert [a.status_code for a in answers] == [200, 200, 429]
    assert refused_authorize.status_code == 429
    assert refused_authorize.json()["error"] == "rate_limited"
    assert int(refused_authorize.headers["retry-after"]) > 0
    assert "RateLimit-Policy" in refused_authorize.headers
    assert hidden["tx"]


async def test_registrations_are_rate_limited_per_address(http: httpx2.AsyncClient) -> None:
    """Rate limit on DCR: 429 with Retry-After past the hourly allowance."""
    responses = [await register(http) for _ in range(LIMITS.registrations_per_hour + 1)]

    assert [r.status_code for r in responses] == [201] * LIMITS.registrations_per_hour + [429]
    assert int(responses[-1].headers["retry-after"]) > 0


@pytest.mark.spec("mcp.discovery")
async def test_the_metadata_advertises_iss_public_clients_and_metadata_documents(
    http: httpx2.AsyncClient,
) -> None:
    """RFC 8414 metadata: iss parameter, `none` auth, CIMD, PKCE S256, exact issuer."""
    metadata = (await http.get("/.well-known/oauth-authorization-server")).json()

    assert metadata["issuer"] == BASE
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["client_id_metadata_document_supported"] is True
    assert "none" in metadata["token_endpoint_auth_methods_supported"]
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["registration_endpoint"] == f"{BASE}/register"
    assert metadata["revocation_endpoint"] == f"{BASE}/revoke"


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic", "none"])
async def test_a_registration_answer_is_never_kept_by_a_cache(
    http: httpx2.AsyncClient, method: str
) -> None:
    """RFC 7591 §3.2.1, RFC 6749 §5.1: the 201 of /register may hold a client_secret, so it
    carries Cache-Control: no-store and Pragma: no-cache."""
    response = await http.post(
        "/register", json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": method}
    )

    assert response.status_code == 201
    assert ("client_secret" in response.json()) == (method != "none")
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"


async def test_a_registered_client_always_gets_the_refresh_token_grant(
    http: httpx2.AsyncClient,
) -> None:
    """DESIGN MCP: DCR clients get the refresh_token grant."""
    response = await http.post(
        "/register",
        json={
            "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code"],
        },
    )

    assert response.status_code == 201
    assert "refresh_token" in response.json()["grant_types"]


async def test_a_registration_with_a_plain_http_redirect_is_refused(
    http: httpx2.AsyncClient,
) -> None:
    """Redirect URIs must be https or loopback http."""
    response = await http.post(
        "/register",
        json={"redirect_uris": ["http://evil.example/cb"], "token_endpoint_auth_method": "none"},
    )

    assert (response.status_code, response.json()["error"]) == (400, "invalid_redirect_uri")


async def test_browser_clients_may_call_mcp_across_origins(http: httpx2.AsyncClient) -> None:
    """CORS on /mcp: the MCP headers are allowed, the challenge and session headers exposed."""
    response = await http.options(
        "/mcp",
        headers={
            "Origin": "http://localhost:6274",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )
    challenge = await http.post("/mcp", json={}, headers={"Origin": "http://localhost:6274"})

    assert response.status_code == 200
    assert "authorization" in response.headers["access-control-allow-headers"].lower()
    assert "www-authenticate" in challenge.headers["access-control-expose-headers"].lower()


async def test_a_metadata_document_naming_another_client_id_is_refused(tmp_path: Path) -> None:
    """CIMD: the document's client_id must be its own URL; otherwise the client is unknown."""
    documents: dict[str, object] = {}
    with json_documents(documents) as origin:
        client_id = f"{origin}/client.json"
        documents["/client.json"] = {
            "client_id": f"{origin}/someone-else.json",
            "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "none",
        }
        store = SqliteOAuthStore(SqliteDatabase(tmp_path / "cimd.sqlite3"))
        config = replace(LIMITS, allow_http_loopback_cimd=True)
        asgi = create_mcp_asgi_app(
            McpConfig(base_url=BASE, oauth=config),
            catalog=load_catalog(Settings().content_dir),
            oauth_store=store,
            mailer=OutboxMailer(tmp_path / "outbox"),
            clock=lambda: datetime.now(UTC),
        )
        transport = httpx2.ASGITransport(app=asgi.app)
        async with httpx2.AsyncClient(transport=transport, base_url=BASE) as client:
            response = await client.get(
                "/authorize",
                params={
                    "response_type": "code",
                    "client_id": client_id,
                    "redirect_uri": REDIRECT_URI,
                    "code_challenge": new_pkce().challenge,
                    "code_challenge_method": "S256",
                },
            )

    assert (response.status_code, response.json()["error"]) == (401, "invalid_client")


async def tools_list_statuses(
    tmp_path: Path, config: McpConfig, variants: list[dict[str, str]]
) -> list[int]:
    """The status of an authorized tools/list on /mcp of an app built from `config`, once
    with each set of extra headers."""
    store = SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3"))
    asgi = create_mcp_asgi_app(
        config,
        catalog=load_catalog(Settings().content_dir),
        oauth_store=store,
        mailer=OutboxMailer(tmp_path / "outbox"),
        clock=lambda: datetime.now(UTC),
    )
    headers = {
        "Authorization": "Bearer " + plant_token(store, "fda_statuses", resource=f"{BASE}/mcp"),
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    transport = httpx2.ASGITransport(app=asgi.app)
    async with (
        asgi.mcp.session_manager.run(),
        httpx2.AsyncClient(transport=transport, base_url=BASE) as client,
    ):
        return [
            (await client.post("/mcp", json=body, headers={**headers, **extra})).status_code
            for extra in variants
        ]


async def test_configured_hosts_are_served_and_others_refused(tmp_path: Path) -> None:
    """ALLOWED_HOSTS: /mcp answers for the base URL's host and the configured ones only."""
    config = McpConfig(
        base_url=BASE, allowed_hosts=("tools.example.com",), local=False, oauth=LIMITS
    )
    hosts = ("localhost", "tools.example.com", "tools.example.com:443", "evil.example")

    statuses = await tools_list_statuses(tmp_path, config, [{"Host": host} for host in hosts])

    assert statuses == [200, 200, 200, 421]


async def test_browser_origins_other_than_our_own_are_refused_unless_configured(
    tmp_path: Path,
) -> None:
    """MCP_ALLOWED_ORIGINS: /mcp takes requests without Origin (agents) and from its own
    origin; a browser page elsewhere gets 403 unless its origin is configured."""
    settings = Settings(public_base_url=BASE, mcp_allowed_origins=["https://app.example.com/"])
    config = replace(mcp_config(settings), local=False, oauth=LIMITS)
    origins = [
        {},
        {"Origin": BASE},
        {"Origin": "https://app.example.com"},
        {"Origin": "https://evil.example"},
    ]

    statuses = await tools_list_statuses(tmp_path, config, origins)

    assert config.allowed_origins == ("https://app.example.com",)
    assert statuses == [200, 200, 200, 403]


@pytest.mark.parametrize(
    "origin", ["app.example.com", "https://app.example.com/path", "ftp://app.example.com", "*"]
)
def test_an_allowed_origin_that_is_not_an_origin_is_refused_at_startup(origin: str) -> None:
    """A value that no browser would send as Origin is a configuration mistake."""
    with pytest.raises(ValidationError, match="is not an origin"):
        Settings(mcp_allowed_origins=[origin])


@pytest.mark.parametrize("external", [False, True], ids=["built-in", "external IdP"])
def test_the_paths_routed_before_the_sdk_loads_are_exactly_the_built_apps_paths(
    tmp_path: Path, external: bool
) -> None:
    """The served process routes api.tools.mcp_paths to the ASGI side before building it (the SDK
    loads on first use), so the list must equal the routes of the app built in each mode."""
    config = McpConfig(
        base_url=BASE,
        oauth=None if external else LIMITS,
        external_issuer="https://idp.example" if external else None,
        jwks_url="https://idp.example/jwks" if external else None,
    )
    asgi = create_mcp_asgi_app(
        config,
        catalog=load_catalog(Settings().content_dir),
        oauth_store=SqliteOAuthStore(SqliteDatabase(tmp_path / "oauth.sqlite3")),
        mailer=OutboxMailer(tmp_path / "outbox"),
        clock=lambda: datetime.now(UTC),
    )

    assert asgi.paths == asgi_paths(builtin_authorization_server=not external)
