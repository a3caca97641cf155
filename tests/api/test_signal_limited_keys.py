"""signals-api.md "Limited keys": a signals key limited to its own pages' lead forms sees
nothing else anywhere (stream, accounts, people, webhooks), on SQLite and on Firestore."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from backends.ports import KeyLimits
from frontdoor.cli import cli
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import issue_key
from tests.api.signal_trust_lanes import drain, signal_backends
from tests.conftest import INGEST_KEY, SIGNALS_KEY
from tests.e2e.sample_page import store_page

__all__ = ["signal_backends"]  # the fixture, used below

BASE = "/api/public/v1/signals"
COLLECT = "/api/public/v1/collect"
SITE = {"Origin": "http://testserver"}
OWN_LEAD_FORMS = KeyLimits(types=("lead_form",), sources=("site",), own_pages=True)


def _key(backends: Backends, partner: str, limits: KeyLimits) -> dict[str, str]:
    raw, _ = issue_key(
        keys=backends.keys, partner=partner, scope="signals", now=backends.clock(), limits=limits
    )
    return {"x-api-key": raw}


def _lead(client: FlaskClient, email: str, slug: str) -> None:
    form = {"email": email, "page": slug, "type": "lead_form"}
    assert client.post(COLLECT, data=form, headers=SITE).status_code == 303


def _ids(answer: Any) -> list[str]:
    assert answer.status_code == 200, answer.get_json()
    return [e["id"] for e in answer.get_json()["events"]]


@pytest.mark.spec("signals.stream")
def test_a_key_limited_to_its_own_pages_lead_forms_sees_nothing_else_anywhere(
    settings: Settings, signal_backends: Backends
) -> None:
    client = create_app(app_config(settings), signal_backends).test_client()
    own, other = f"own-{uuid.uuid4().hex[:6]}", f"other-{uuid.uuid4().hex[:6]}"
    store_page(signal_backends.pages, own, owner="acme")
    store_page(signal_backends.pages, other, owner="bravo")
    domain = f"n{uuid.uuid4().hex[:8]}.example"
    ada, bo = f"ada@{domain}", f"bo@{domain}"
    _lead(client, ada, own)
    _lead(client, bo, other)
    view = {
        "type": "page_view",
        "page": {"path": f"/p/{own}"},
        "properties": {"visitor_id": "v" * 12},
    }
    client.post(COLLECT, json=view, headers=SITE)
    crm = {
        "source": "crm",
        "row_id": "1",
        "type": "lead_form",
        "occurred_at": "2026-11-20T10:00:00Z",
        "person": {"email": ada},
        "page": {"path": f"/p/{own}"},
    }
    client.post(f"{BASE}/events", json={"events": [crm]}, headers={"x-api-key": INGEST_KEY})
    drain(signal_backends)
    limited = _key(signal_backends, "acme", OWN_LEAD_FORMS)

    stream = client.get(BASE, headers=limited)
    by_email = client.get(BASE, query_string={"email": bo}, headers=limited)
    by_type = client.get(BASE, query_string={"type": "page_view,book_call"}, headers=limited)
    refused = [
        client.get(f"{BASE}/accounts", headers=limited),
        client.get(f"{BASE}/accounts/{domain}", headers=limited),
        client.get(f"{BASE}/people/{ada}", headers=limited),
        client.get(f"{BASE}/webhooks", headers=limited),
        client.post(
            f"{BASE}/webhooks", json={"url": "https://hooks.example.com/a"}, headers=limited
        ),
    ]
    everything = client.get(BASE, headers={"x-api-key": SIGNALS_KEY})

    (seen,) = stream.get_json()["events"]
    assert (seen["type"], seen["source"], seen["page"]["path"]) == (
        "lead_form",
        "site",
        f"/p/{own}",
    )
    assert seen["person"]["email"] == ada
    assert _ids(by_email) == []
    assert _ids(by_type) == []
    assert [(r.status_code, r.get_json()["issues"][0]["code"]) for r in refused] == [
        (403, "limited_key")
    ] * 5
    assert len(_ids(everything)) == 4  # the unlimited key sees all four


@pytest.mark.spec("signals.stream")
def test_a_limited_keys_poll_walks_past_events_it_may_not_see_without_a_gap(
    settings: Settings, signal_backends: Backends
) -> None:
    """Filtered as it walks: 30 events of another type between two it may see, read with
    limit=1 by next_since, give exactly those two, once each."""
    client = create_app(app_config(settings), signal_backends).test_client()
    email = f"cy@n{uuid.uuid4().hex[:8]}.example"

    def event(row: int, kind: str) -> dict[str, Any]:
        return {
            "source": "crm",
            "row_id": str(row),
            "type": kind,
            "occurred_at": "2026-11-20T10:00:00Z",
            "person": {"email": email},
        }

    batch = [event(0, "book_call")] + [event(i, "email_open") for i in range(1, 31)]
    batch.append(event(31, "book_call"))
    for one in batch:  # one batch each, so each is recorded after the one before
        client.post(f"{BASE}/events", json={"events": [one]}, headers={"x-api-key": INGEST_KEY})
        drain(signal_backends)
    limited = _key(signal_backends, "acme", KeyLimits(types=("book_call",), sources=("crm",)))

    seen: list[str] = []
    since = "2020-01-01T00:00:00Z"
    for _ in range(40):
        answer = client.get(BASE, query_string={"since": since, "limit": "1"}, headers=limited)
        seen += _ids(answer)
        since = answer.get_json()["next_since"]
        if not answer.get_json()["has_more"]:
            break

    assert seen == ["crm:0", "crm:31"]


def test_keys_issue_limits_a_signals_key_and_keys_list_shows_the_limits(tmp_path: Any) -> None:
    env = {"DATA_DIR": str(tmp_path / "data")}
    runner = CliRunner()

    issued = runner.invoke(
        cli,
        [
            "keys",
            "issue",
            "--partner",
            "acme",
            "--scope",
            "signals",
            "--type",
            "lead_form",
            "--source",
            "site",
            "--own-pages",
        ],
        env=env,
    )
    listed = runner.invoke(cli, ["keys", "list"], env=env)
    content = runner.invoke(
        cli, ["keys", "issue", "--partner", "acme", "--scope", "content", "--own-pages"], env=env
    )
    unknown = runner.invoke(
        cli, ["keys", "issue", "--partner", "acme", "--scope", "signals", "--type", "lead"], env=env
    )

    assert issued.exit_code == 0, issued.output
    assert "limited: types=lead_form sources=site own-pages" in issued.output
    # The last column, read down its wrapped lines.
    limits = "".join(
        line.split("│")[-2].strip() for line in listed.output.splitlines() if "│" in line
    )
    assert listed.exit_code == 0
    assert limits.replace(" ", "") == "types=lead_formsources=siteown-pages"
    assert (content.exit_code, unknown.exit_code) == (2, 2)
