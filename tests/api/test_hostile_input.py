"""Hostile input on every endpoint that reads a body or a number gets a 4xx naming
what is wrong, never a 500 (deep nesting, wrong types, odd digits, refused characters)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.rest.json_body import MAX_DEPTH
from tests.api.content_client import AUTH, PAGES, page_body
from tests.conftest import INGEST_KEY, SIGNALS_KEY

SIGNALS = "/api/public/v1/signals"
SITE = {"Origin": "http://testserver"}
EVENT = {"source": "crm", "row_id": "1", "type": "book_call", "occurred_at": "2026-01-01T00:00:00Z"}
BODY_ENDPOINTS = [
    (PAGES, AUTH),
    (f"{PAGES}/generate", AUTH),
    (f"{SIGNALS}/events", {"x-api-key": INGEST_KEY}),
    (f"{SIGNALS}/webhooks", {"x-api-key": SIGNALS_KEY}),
    ("/api/public/v1/collect", SITE),
]


def _post(client: FlaskClient, path: str, headers: dict[str, str], body: str) -> Any:
    return client.post(path, data=body, headers={**headers, "Content-Type": "application/json"})


def _fields(response: Any) -> list[tuple[str, str]]:
    return [(i["field"], i["code"]) for i in response.get_json()["issues"]]


@pytest.mark.parametrize(("path", "headers"), BODY_ENDPOINTS)
@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1_000, 8_000])
def test_json_nested_past_the_depth_limit_is_400_invalid_json(
    client: FlaskClient, path: str, headers: dict[str, str], levels: int
) -> None:
    """content-api.md, signals-api.md Errors: nesting deeper than the limit is invalid_json."""
    body = "[" * levels + "]" * levels  # 8,000 levels fit collect's 16 KiB

    response = _post(client, path, headers, body)

    assert (response.status_code, response.get_json()["error"]) == (400, "invalid_json")


@pytest.mark.parametrize(("path", "headers"), BODY_ENDPOINTS)
@pytest.mark.parametrize("body", ["[1e400]", '{"a": NaN}', '"\\ud800"', '{"a": 1', "\xff"])
def test_numbers_out_of_range_constants_lone_surrogates_and_broken_json_are_invalid_json(
    client: FlaskClient, path: str, headers: dict[str, str], body: str
) -> None:
    """Errors: what JSON cannot hold, or a later step could not store, is 400 invalid_json."""
    response = _post(client, path, headers, body)

    assert (response.status_code, response.get_json()["error"]) == (400, "invalid_json")


def test_json_at_the_depth_limit_is_read(client: FlaskClient) -> None:
    """Errors: the limit itself is allowed; the gate then names the fields."""
    body = {"events": [{**EVENT, "properties": {"x": "y"}}]}
    nested: Any = body
    for _ in range(MAX_DEPTH - 4):
        nested = {"n": nested}

    response = _post(client, f"{SIGNALS}/events", {"x-api-key": INGEST_KEY}, json.dumps(nested))

    assert (response.status_code, _fields(response)) == (422, [("events", "missing")])


def test_a_collect_beacon_whose_type_is_an_object_is_422_naming_type(client: FlaskClient) -> None:
    """signals-api.md Collect: a value of the wrong type is refused, naming the field."""
    response = _post(client, "/api/public/v1/collect", SITE, '{"type": {}}')

    assert (response.status_code, _fields(response)) == (422, [("type", "invalid_type")])


def test_an_event_whose_url_or_time_cannot_be_read_is_refused_naming_the_field(
    client: FlaskClient,
) -> None:
    """signals-api.md Ingest: an unclosed IPv6 URL or a year past 9999 in UTC is an issue."""
    events = [
        {**EVENT, "page": {"url": "http://["}},
        {**EVENT, "row_id": "2", "occurred_at": "0001-01-01T00:00:00+05:00"},
    ]

    response = _post(
        client, f"{SIGNALS}/events", {"x-api-key": INGEST_KEY}, json.dumps({"events": events})
    )

    assert response.status_code == 422
    assert _fields(response) == [
        ("events.0.page.url", "invalid_format"),
        ("events.1.occurred_at", "out_of_range"),
    ]


def test_a_collect_post_whose_origin_is_not_a_url_is_403(client: FlaskClient) -> None:
    """signals-api.md Collect: an Origin that is not this site is refused, whatever it holds."""
    response = _post(client, "/api/public/v1/collect", {"Origin": "http://["}, '{"type": "x"}')

    assert (response.status_code, response.get_json()["error"]) == (403, "forbidden")


@pytest.mark.parametrize(
    ("path", "key"),
    [(SIGNALS, SIGNALS_KEY), (f"{SIGNALS}/accounts", SIGNALS_KEY), (PAGES, AUTH["x-api-key"])],
)
@pytest.mark.parametrize("limit", ["%C2%B3", "%D9%A3", "3.0", "99999999999999999999", "-1"])
def test_a_limit_that_is_not_ascii_digits_in_range_is_400_invalid_query(
    client: FlaskClient, path: str, key: str, limit: str
) -> None:
    """signals-api.md, content-api.md: numbers in query parameters are ASCII digits only."""
    response = client.get(f"{path}?limit={limit}", headers={"x-api-key": key})

    assert (response.status_code, response.get_json()["error"]) == (400, "invalid_query")
    assert [i["field"] for i in response.get_json()["issues"]] == ["limit"]


@pytest.mark.parametrize(
    "query",
    [
        "days=3288949822149250.0",
        "since=0001-01-01T00:00:00%2B01:00",
        "since=9999-12-31T23:59:59-01:00",
    ],
)
@pytest.mark.parametrize("path", [SIGNALS, f"{SIGNALS}/accounts"])
def test_a_day_count_or_time_out_of_range_is_400_naming_the_parameter(
    client: FlaskClient, path: str, query: str
) -> None:
    """signals-api.md Reading: days is 1-365 and times stay within years 1-9999 in UTC."""
    response = client.get(f"{path}?{query}", headers={"x-api-key": SIGNALS_KEY})

    assert (response.status_code, response.get_json()["error"]) == (400, "invalid_query")
    assert [i["field"] for i in response.get_json()["issues"]] == [query.split("=")[0]]


@pytest.mark.parametrize("char", ["\x00", "\u202a", "\u202e", "\u2066", "\u2069"])
def test_nul_and_bidi_controls_in_page_text_are_refused_naming_the_field(
    client: FlaskClient, char: str
) -> None:
    """content-api.md Errors: `invalid_character` names each field holding one."""
    body = page_body()
    body["blocks"][1]["items"][0]["a"] = f"Two{char} weeks."

    response = client.post(PAGES, json={**body, "title": f"A growth audit{char}"}, headers=AUTH)

    assert response.status_code == 422
    assert _fields(response)[:2] == [
        ("title", "invalid_character"),
        ("blocks.1.items.0.a", "invalid_character"),
    ]


def test_a_bidi_control_in_a_brief_is_refused_naming_the_field(client: FlaskClient) -> None:
    """content-api.md Generate: brief text follows the same character rule."""
    brief = {"slug": "audit", "topic": "Growth \u202eaudits", "icp": "Heads of growth"}

    response = client.post(f"{PAGES}/generate", json=brief, headers=AUTH)

    assert (response.status_code, _fields(response)) == (422, [("topic", "invalid_character")])


@pytest.mark.parametrize("limit", ["%C2%B3", "%D9%A3", "%2B5", "5.0", "1_0"])
def test_a_delivery_list_limit_that_is_not_ascii_digits_is_400_invalid_query(
    client: FlaskClient, limit: str
) -> None:
    """signals-api.md Webhooks: `limit` is a whole number in ASCII digits, 1 to 500."""
    key = {"x-api-key": SIGNALS_KEY}
    hook = client.post(
        f"{SIGNALS}/webhooks", json={"url": "https://hooks.example.com/k"}, headers=key
    )
    hook_id = hook.get_json()["endpoint"]["id"]

    response = client.get(f"{SIGNALS}/webhooks/{hook_id}/deliveries?limit={limit}", headers=key)

    assert (response.status_code, response.get_json()["error"]) == (400, "invalid_query")
    assert [i["field"] for i in response.get_json()["issues"]] == ["limit"]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_version_number_past_any_stored_one_is_404_not_a_500(
    client: FlaskClient, method: str
) -> None:
    """content-api.md Versions: a number SQLite cannot hold is simply no such version."""
    client.post(PAGES, json=page_body(), headers=AUTH)
    suffix = "/restore" if method == "POST" else ""

    response = client.open(
        f"{PAGES}/growth-audit/versions/286784010617833157451562067578322944{suffix}",
        method=method,
        headers=AUTH,
    )

    assert (response.status_code, response.get_json()["error"]) == (404, "not_found")


def test_a_form_post_whose_referer_is_not_a_url_still_redirects(client: FlaskClient) -> None:
    """signals-api.md Collect: the Referer's UTM query is read only when it is a URL."""
    form = {"email": "ada@acme.com", "page": "growth-audit", "type": "lead_form"}

    response = client.post(
        "/api/public/v1/collect",
        data=form,
        headers={**SITE, "Referer": "http://[::1/p/x?utm_source=a"},
    )

    assert (response.status_code, response.headers["Location"]) == (
        303,
        "/p/growth-audit?submitted=1",
    )
