"""The staff toolsets on /mcp, through the built-in sign-in with the official Python client:
who may grant them, what the consent page offers, what a token carries, and that each staff
tool answers what the Signal API or the Content API answers for the same data."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from backends.embedded.keys import SqliteKeyStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import Scope
from services.keys import issue_key
from tests.conftest import INGEST_KEY, SIGNALS_KEY
from tests.emulators import REPO
from tests.mcp_tools.conftest import (
    HeadlessBrowser,
    MemoryStorage,
    mcp_client,
    oauth_provider,
    start_served,
)
from tests.mcp_tools.test_clean_log import inspector, log_problems
from tests.polling import wait_for
from tests.served import Served

pytestmark = pytest.mark.anyio

PUBLIC_TOOLS = {
    "get_company_info",
    "list_experiments",
    "get_experiment",
    "list_blog_posts",
    "list_careers",
    "get_career",
}
SIGNAL_TOOLS = {"hot_accounts", "account_story", "person_story", "search_signals"}
PAGE_READ_TOOLS = {"list_pages", "page_funnel"}
DRAFT_TOOLS = {"draft_page_from_brief"}
STAFF_TOOLS = SIGNAL_TOOLS | PAGE_READ_TOOLS | DRAFT_TOOLS
SIGN_IN = {"openid", "email", "profile"}
ALL_SCOPES = "openid email profile signals:read pages:read pages:draft"
UNTICK_ALL = frozenset({"signals:read", "pages:read", "pages:draft"})
SIGNALS = "/api/public/v1/signals"
PAGES = "/api/public/content/pages"
TS_SESSION = REPO / "tools" / "inspector" / "staff_session.mjs"
TS_CLIENT = REPO / "tools" / "inspector" / "node_modules" / "@modelcontextprotocol" / "client"


@pytest.fixture(scope="module")
def staffed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Staff are kestrel.example addresses and one outside address; a few touches stored."""
    server = start_served(
        tmp_path_factory.mktemp("mcp-staff"),
        staff_email_domains='["kestrel.example"]',
        staff_emails='["grace@partner.example"]',
        # Every sign-in of this module comes from 127.0.0.1 within a minute or two.
        rate_limit_signin="0",
        log_level="INFO",  # the staff actions' records
        oauth_signin_codes_per_address="100000",
    )
    now = datetime.now(UTC)
    events = [
        {
            "source": "crm",
            "row_id": f"staff-{i}",
            "type": kind,
            "occurred_at": (now - timedelta(minutes=10 - i)).isoformat(),
            "person": {"email": "ada@hooli.com", "name": "Ada Lovelace"},
            "page": {"url": "https://kestrel.example/pricing", "title": "Pricing"},
        }
        for i, kind in enumerate(["page_view", "article_read", "book_call"])
    ]
    answer = httpx2.post(
        f"{server.base}{SIGNALS}/events",
        json={"events": events},
        headers={"x-api-key": INGEST_KEY},
    )
    assert answer.status_code == 202, answer.text
    wait_for(
        lambda: len(rest(server, SIGNALS, {"email": "ada@hooli.com"})["events"]) == 3,
        what="the three touches stored",
    )
    yield server
    server.stop()


def rest(served: Served, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx2.get(f"{served.base}{path}", params=params, headers={"x-api-key": SIGNALS_KEY})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def content_key(served: Served, partner: str, scope: Scope = "content") -> dict[str, str]:
    """A key issued into the served process's own key store, as `frontdoor keys issue` does."""
    store = SqliteKeyStore(SqliteDatabase(served.data_dir / "frontdoor.sqlite3"))
    raw, _record = issue_key(keys=store, partner=partner, scope=scope, now=datetime.now(UTC))
    return {"x-api-key": raw}


def brief(slug: str, **changes: Any) -> dict[str, Any]:
    """A generation brief as POST generate takes it."""
    return {
        "slug": slug,
        "topic": "A pipeline audit for revenue teams",
        "icp": "RevOps leads at Series B SaaS companies",
        "goal": "Book an audit call with teams whose funnel reporting disagrees with the CRM",
        "offer": "A two-week review of tracking and funnel conversion. You keep the written plan.",
        **changes,
    }


def new_slug() -> str:
    return f"staff-draft-{secrets.token_hex(4)}"


def staff_browser(served: Served, **kwargs: Any) -> HeadlessBrowser:
    return HeadlessBrowser(served, email=f"lin+{secrets.token_hex(4)}@kestrel.example", **kwargs)


async def test_a_staff_person_grants_the_signal_toolset_and_each_tool_answers_the_rest_body(
    staffed: Served,
) -> None:
    """A staff sign-in keeps every toolset ticked: the token carries each scope, tools/list
    shows the staff tools beside the public six, and each signal tool answers the Signal API's
    body."""
    browser, storage = staff_browser(staffed), MemoryStorage()

    async with mcp_client(staffed, oauth_provider(staffed, browser, storage=storage)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        hot = await client.call_tool("hot_accounts", {})
        account = await client.call_tool("account_story", {"domain": "Hooli.com"})
        person = await client.call_tool("person_story", {"email": "ada@hooli.com"})
        found = await client.call_tool("search_signals", {"domain": "hooli.com", "limit": 2})

    assert storage.tokens is not None
    assert storage.tokens.scope is not None
    assert set(storage.tokens.scope.split()) == set(ALL_SCOPES.split())
    assert 'name="toolset"' in browser.pages["consent"]
    assert listed == PUBLIC_TOOLS | STAFF_TOOLS
    assert hot.structured_content == rest(staffed, f"{SIGNALS}/accounts", {"sort": "score"})
    assert account.structured_content == rest(staffed, f"{SIGNALS}/accounts/hooli.com")
    assert person.structured_content == rest(staffed, f"{SIGNALS}/people/ada@hooli.com")
    newest = rest(staffed, SIGNALS, {"domain": "hooli.com"})["events"][:2]
    assert found.structured_content is not None
    assert [e["type"] for e in found.structured_content["events"]] == ["book_call", "article_read"]
    assert found.structured_content["events"] == newest
    assert found.structured_content["has_more"] is True


async def test_an_unticked_toolset_is_absent_and_its_tools_answer_insufficient_scope(
    staffed: Served,
) -> None:
    """Unticked at consent: the token lacks the staff scopes, no staff tool is listed, a
    call named in the 2026-07-28 headers is HTTP 403 insufficient_scope naming the scope to ask
    for, and a handshake-era call is an error result naming it."""
    browser, storage = staff_browser(staffed, untick=UNTICK_ALL), MemoryStorage()

    async with mcp_client(staffed, oauth_provider(staffed, browser, storage=storage)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
    assert storage.tokens is not None
    bearer = {"Authorization": f"Bearer {storage.tokens.access_token}"}
    async with (
        httpx2.AsyncClient(headers=bearer, timeout=30) as http,
        Client(
            streamable_http_client(f"{staffed.base}/mcp", http_client=http), mode="legacy"
        ) as legacy,
    ):
        refused = await legacy.call_tool("hot_accounts", {})
    raw = httpx2.post(
        f"{staffed.base}/mcp",
        headers={
            **bearer,
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "hot_accounts",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "hot_accounts"},
        },
    )

    assert set((storage.tokens.scope or "").split()) == SIGN_IN
    assert listed == PUBLIC_TOOLS
    assert raw.status_code == 403
    challenge = raw.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="openid email profile signals:read"' in challenge
    assert "resource_metadata=" in challenge
    assert refused.is_error
    assert "insufficient_scope" in refused.content[0].text  # type: ignore[union-attr]
    assert "signals:read" in refused.content[0].text  # type: ignore[union-attr]


async def test_a_staff_person_who_granted_only_public_tools_steps_up_when_an_agent_needs_one(
    staffed: Served,
) -> None:
    """The SDK client's step-up: a person who unticked the signal toolset, then an agent that
    calls hot_accounts: the 403 insufficient_scope sends the person through consent again for
    the scope named, and the call then succeeds."""
    browser = staff_browser(staffed, untick=UNTICK_ALL)

    async with mcp_client(staffed, oauth_provider(staffed, browser)) as client:
        first = {t.name for t in (await client.list_tools()).tools}
        browser.untick = frozenset()  # this time the person allows it
        hot = await client.call_tool("hot_accounts", {"limit": 1})

    assert first == PUBLIC_TOOLS
    assert len(browser.authorize_urls) == 2
    assert "signals%3Aread" in browser.authorize_urls[1]
    assert not hot.is_error
    assert hot.structured_content is not None
    assert hot.structured_content["accounts"][0]["domain"] == "hooli.com"


@pytest.mark.parametrize("email", ["ada@example.com", "grace@partner.example.org"])
async def test_someone_who_is_not_staff_asking_for_staff_scopes_gets_the_public_tools(
    staffed: Served, email: str
) -> None:
    """RFC 6749 section 3.3: the server grants fewer scopes than asked and says so; the consent
    page offers no staff toolset and says why."""
    browser, storage = HeadlessBrowser(staffed, email=email), MemoryStorage()

    async with mcp_client(
        staffed, oauth_provider(staffed, browser, storage=storage, scope=ALL_SCOPES)
    ) as client:
        listed = {t.name for t in (await client.list_tools()).tools}

    assert storage.tokens is not None
    assert set((storage.tokens.scope or "").split()) == SIGN_IN
    assert listed == PUBLIC_TOOLS
    assert 'name="toolset"' not in browser.pages["consent"]
    assert "only for" in browser.pages["consent"]


async def test_a_named_staff_address_outside_the_staff_domains_is_staff(staffed: Served) -> None:
    """STAFF_EMAILS names people one by one, whatever their domain."""
    browser, storage = HeadlessBrowser(staffed, email="Grace@Partner.example"), MemoryStorage()

    async with mcp_client(
        staffed, oauth_provider(staffed, browser, storage=storage, scope=ALL_SCOPES)
    ) as client:
        listed = {t.name for t in (await client.list_tools()).tools}

    assert listed == PUBLIC_TOOLS | STAFF_TOOLS


def test_the_protected_resource_metadata_lists_the_staff_scopes(staffed: Served) -> None:
    """RFC 9728 scopes_supported: the sign-in scopes and each staff toolset's."""
    document = httpx2.get(f"{staffed.base}/.well-known/oauth-protected-resource/mcp").json()

    assert document["scopes_supported"] == ALL_SCOPES.split()


def typescript_session(
    served: Served, email: str, *, untick: str = "", calls: list[Any] | None = None
) -> dict[str, Any]:
    """One session of the official TypeScript client (tools/inspector/staff_session.mjs)."""
    node = shutil.which("node")
    assert node is not None, "node ships with the machine image"
    assert TS_CLIENT.exists(), "`make setup` installs tools/inspector's packages"
    done = subprocess.run(  # noqa: S603  # our own script, on the machine's node
        [
            node,
            str(TS_SESSION),
            served.base,
            str(served.outbox),
            email,
            untick,
            json.dumps(calls or []),
        ],
        cwd=TS_SESSION.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_typescript_client_gets_the_staff_tools_with_rest_equal_answers(
    staffed: Served,
) -> None:
    """The official TypeScript SDK client through the same sign-in: signals:read and
    pages:draft granted (pages:read unticked), their tools listed, each answering the REST body
    for the same data; list_pages absent and refused."""
    slug = new_slug()
    calls = [
        ["hot_accounts", {}],
        ["account_story", {"domain": "hooli.com"}],
        ["person_story", {"email": "ada@hooli.com"}],
        ["draft_page_from_brief", {"brief": brief(slug)}],
        ["list_pages", {}],
    ]

    session = typescript_session(
        staffed,
        f"lin+{secrets.token_hex(4)}@kestrel.example",
        untick="pages:read",
        calls=calls,
    )

    assert set(session["scope"].split()) == SIGN_IN | {"signals:read", "pages:draft"}
    assert set(session["tools"]) == PUBLIC_TOOLS | SIGNAL_TOOLS | DRAFT_TOOLS
    results = session["results"]
    assert results["hot_accounts"]["structuredContent"] == rest(
        staffed, f"{SIGNALS}/accounts", {"sort": "score"}
    )
    assert results["account_story"]["structuredContent"] == rest(
        staffed, f"{SIGNALS}/accounts/hooli.com"
    )
    assert results["person_story"]["structuredContent"] == rest(
        staffed, f"{SIGNALS}/people/ada@hooli.com"
    )
    drafted = results["draft_page_from_brief"]["structuredContent"]
    stored = httpx2.get(f"{staffed.base}{PAGES}/{slug}", headers=content_key(staffed, "ops"))
    assert stored.status_code == 200, stored.text
    assert drafted["page"] == stored.json()["page"]
    assert drafted["page"]["status"] == "draft"
    assert results["list_pages"]["isError"] is True
    assert "insufficient_scope" in results["list_pages"]["text"]


def test_the_typescript_client_of_a_person_who_unticked_the_toolset_lists_no_staff_tool(
    staffed: Served,
) -> None:
    """Unticked with the TypeScript client too: the token and the tool list stay public."""
    email = f"lin+{secrets.token_hex(4)}@kestrel.example"

    session = typescript_session(staffed, email, untick=",".join(UNTICK_ALL))

    assert set(session["scope"].split()) == SIGN_IN
    assert set(session["tools"]) == PUBLIC_TOOLS


async def test_a_staff_draft_is_the_draft_rest_generate_answers_for_the_same_brief_and_not_live(
    staffed: Served,
) -> None:
    """Staff who grant signals:read and pages:draft (pages:read unticked): the draft tool's
    page, warnings and notes are POST generate's for the same brief, the page is a draft that
    is not live at /p/{slug} and whose preview link renders it; list_pages is absent and
    refused."""
    slug = new_slug()
    browser = staff_browser(staffed, untick=frozenset({"pages:read"}))
    storage = MemoryStorage()

    async with mcp_client(staffed, oauth_provider(staffed, browser, storage=storage)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        hot = await client.call_tool("hot_accounts", {})
        drafted = await client.call_tool("draft_page_from_brief", {"brief": brief(slug)})
    generated = httpx2.post(
        f"{staffed.base}{PAGES}/generate", json=brief(slug), headers=content_key(staffed, "ops")
    )
    assert storage.tokens is not None
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {storage.tokens.access_token}"}, timeout=30
        ) as http,
        Client(
            streamable_http_client(f"{staffed.base}/mcp", http_client=http), mode="legacy"
        ) as legacy,
    ):
        refused = await legacy.call_tool("list_pages", {})
    challenged = httpx2.post(
        f"{staffed.base}/mcp",
        headers={
            "Authorization": f"Bearer {storage.tokens.access_token}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "page_funnel",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "page_funnel", "arguments": {"slug": slug}},
        },
    )

    assert listed == PUBLIC_TOOLS | SIGNAL_TOOLS | DRAFT_TOOLS
    assert hot.structured_content == rest(staffed, f"{SIGNALS}/accounts", {"sort": "score"})
    assert not drafted.is_error, drafted.content
    draft = drafted.structured_content
    assert draft is not None
    assert generated.status_code == 201, generated.text
    same = generated.json()
    assert draft["page"] == same["page"]
    assert (draft["warnings"], draft["notes"]) == (same["warnings"], same["notes"])
    assert draft["page"]["status"] == "draft"
    assert draft["page"]["partner"] == "ops"
    assert draft["page"]["gate"]["passed"] is True
    assert httpx2.get(f"{staffed.base}/p/{slug}").status_code == 404
    preview = httpx2.get(draft["page"]["preview_url"])
    assert preview.status_code == 200
    assert draft["page"]["title"] in preview.text
    assert refused.is_error
    assert "pages:read" in refused.content[0].text  # type: ignore[union-attr]
    assert challenged.status_code == 403
    assert 'error="insufficient_scope"' in challenged.headers["www-authenticate"]
    assert (
        'scope="openid email profile signals:read pages:draft pages:read"'
        in challenged.headers["www-authenticate"]
    )


async def test_list_pages_answers_what_the_content_api_lists_to_a_content_admin_key(
    staffed: Served,
) -> None:
    """pages:read: list_pages with and without filters is GET /api/public/content/pages as a
    content_admin key lists it, every partner's pages included."""
    own = content_key(staffed, f"acme-{secrets.token_hex(3)}")
    generated = httpx2.post(f"{staffed.base}{PAGES}/generate", json=brief(new_slug()), headers=own)
    assert generated.status_code == 201, generated.text
    partner = generated.json()["page"]["partner"]
    admin = content_key(staffed, "ops", "content_admin")

    async with mcp_client(staffed, oauth_provider(staffed, staff_browser(staffed))) as client:
        everything = await client.call_tool("list_pages", {})
        theirs = await client.call_tool(
            "list_pages", {"status": "draft", "partner": partner, "limit": 1}
        )
        bad_cursor = await client.call_tool("list_pages", {"cursor": "not-a-cursor"})

    listed = httpx2.get(f"{staffed.base}{PAGES}", headers=admin)
    filtered = httpx2.get(
        f"{staffed.base}{PAGES}",
        params={"status": "draft", "partner": partner, "limit": 1},
        headers=admin,
    )
    assert everything.structured_content == listed.json()
    assert theirs.structured_content == filtered.json()
    assert [p["partner"] for p in filtered.json()["pages"]] == [partner]
    assert bad_cursor.is_error


async def test_the_draft_tool_never_publishes_nor_replaces_a_live_page(staffed: Served) -> None:
    """A brief asking to publish, and a slug whose page is live, are tool errors naming the
    field; the live page stays as it was."""
    ops = content_key(staffed, "ops")
    live = new_slug()
    made = httpx2.post(
        f"{staffed.base}{PAGES}/generate", json=brief(live, publish=True), headers=ops
    )
    assert made.status_code == 201, made.text

    async with mcp_client(staffed, oauth_provider(staffed, staff_browser(staffed))) as client:
        publishing = await client.call_tool(
            "draft_page_from_brief", {"brief": brief(new_slug(), publish=True)}
        )
        over_live = await client.call_tool("draft_page_from_brief", {"brief": brief(live)})

    assert publishing.is_error
    assert '"field": "publish"' in publishing.content[0].text  # type: ignore[union-attr]
    assert over_live.is_error
    assert '"code": "page_live"' in over_live.content[0].text  # type: ignore[union-attr]
    assert httpx2.get(f"{staffed.base}/p/{live}").status_code == 200


async def test_a_staff_draft_with_variants_stores_them_as_drafts_of_the_page(
    staffed: Served,
) -> None:
    """The draft tool takes the brief's `variants` as POST generate does: the result's job
    names them, they are stored on the page, and nothing is live."""
    slug = new_slug()

    async with mcp_client(staffed, oauth_provider(staffed, staff_browser(staffed))) as client:
        drafted = await client.call_tool(
            "draft_page_from_brief", {"brief": brief(slug, variants=2)}
        )

    assert not drafted.is_error, drafted.content
    assert drafted.structured_content is not None
    job_variants = drafted.structured_content["job"]["variants"]
    assert [(v["id"], v["status"]) for v in job_variants] == [("b", "written")]
    stored = httpx2.get(
        f"{staffed.base}{PAGES}/{slug}/variants", headers=content_key(staffed, "ops")
    )
    assert [v["id"] for v in stored.json()["variants"]] == ["b"]
    assert httpx2.get(f"{staffed.base}/p/{slug}").status_code == 404


def log_entries(served: Served) -> list[dict[str, Any]]:
    """The served process's JSON log records so far."""
    entries = []
    for line in served.proc.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


async def test_a_staff_draft_is_logged_with_the_person_s_email_as_actor(staffed: Served) -> None:
    """Who did what: the tool call and the draft's job are logged with the person's email."""
    email, slug = f"lin+{secrets.token_hex(4)}@kestrel.example", new_slug()
    browser = HeadlessBrowser(staffed, email=email)

    async with mcp_client(staffed, oauth_provider(staffed, browser)) as client:
        drafted = await client.call_tool("draft_page_from_brief", {"brief": brief(slug)})

    assert not drafted.is_error, drafted.content
    assert drafted.structured_content is not None
    job_id = drafted.structured_content["job"]["id"]

    def records() -> list[tuple[str, str | None, str | None]]:
        return [
            (e.get("message", ""), e.get("actor"), e.get("job_id"))
            for e in log_entries(staffed)
            if e.get("actor") == email
        ]

    wait_for(lambda: len(records()) >= 2, what="the staff records in the log")
    assert records() == [
        ("staff tool draft_page_from_brief called", email, None),
        (f"staff draft of {slug} started as job {job_id}", email, job_id),
    ]


async def test_page_funnel_answers_the_content_api_stats_of_the_same_page(
    staffed: Served,
) -> None:
    """pages:read: page_funnel is GET .../pages/{slug}/stats for the same page and range, by
    day or not; an unknown slug and a refused range are tool errors."""
    slug, admin = new_slug(), content_key(staffed, "ops", "content_admin")
    made = httpx2.post(
        f"{staffed.base}{PAGES}/generate", json=brief(slug, publish=True), headers=admin
    )
    assert made.status_code == 201, made.text
    for visitor in ("visitor-ana", "visitor-ana", "visitor-ben"):
        beacon = {
            "type": "page_view",
            "id": secrets.token_hex(8),
            "page": {"path": f"/p/{slug}"},
            "properties": {"visitor_id": visitor},
        }
        sent = httpx2.post(
            f"{staffed.base}/api/public/v1/collect",
            json=beacon,
            headers={"Origin": staffed.base},
        )
        assert sent.status_code == 202, sent.text

    def rest_stats(**query: Any) -> dict[str, Any]:
        answer = httpx2.get(f"{staffed.base}{PAGES}/{slug}/stats", params=query, headers=admin)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body

    wait_for(lambda: rest_stats()["totals"]["page_views"] == 3, what="the three views counted")

    async with mcp_client(staffed, oauth_provider(staffed, staff_browser(staffed))) as client:
        total = await client.call_tool("page_funnel", {"slug": slug})
        by_day = await client.call_tool("page_funnel", {"slug": slug, "days": 7, "by": "day"})
        unknown = await client.call_tool("page_funnel", {"slug": "no-such-page"})
        refused = await client.call_tool("page_funnel", {"slug": slug, "days": 400})

    assert total.structured_content == rest_stats()
    assert by_day.structured_content == rest_stats(days=7, by="day")
    assert total.structured_content is not None
    assert total.structured_content["totals"]["unique_visitors"] == 2
    assert unknown.is_error
    assert refused.is_error
    assert '"field": "days"' in refused.content[0].text  # type: ignore[union-attr]


async def test_an_inspector_session_over_the_staff_tools_leaves_no_error_in_the_log(
    staffed: Served,
) -> None:
    """The MCP Inspector's CLI with a staff token: every staff tool listed, list_pages and
    hot_accounts called, and no error or traceback in the served process's log (this module's
    other sessions, refusals included, count too)."""
    storage = MemoryStorage()
    async with mcp_client(
        staffed, oauth_provider(staffed, staff_browser(staffed), storage=storage)
    ) as client:
        await client.list_tools()
    assert storage.tokens is not None
    token = storage.tokens.access_token

    tools = inspector(staffed, token, "--method", "tools/list")
    listed = inspector(staffed, token, "--method", "tools/call", "--tool-name", "list_pages")
    hot = inspector(staffed, token, "--method", "tools/call", "--tool-name", "hot_accounts")

    names = {t["name"] for t in tools["tools"]}  # type: ignore[attr-defined]
    assert names == PUBLIC_TOOLS | STAFF_TOOLS
    assert listed.get("isError") is not True
    assert hot.get("isError") is not True
    assert log_problems(staffed) == []
