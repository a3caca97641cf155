"""What the Content API, the /p/ pages and the sitemaps answer to input a client got wrong and
to an outage of their stores: a 4xx with `issues[]` naming each field, or a 503 to retry, never
a 500 (DESIGN Errors, content-api.md)."""

from __future__ import annotations

import base64
import json

import pytest
from flask.testing import FlaskClient

from tests.api.content_client import AUTH, PAGES


def forged_list_cursor(*parts: object) -> str:
    """A pages-list cursor as the service encodes one, holding what a client put in it."""
    raw = json.dumps(list(parts)).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.spec("content.list")
@pytest.mark.parametrize(
    "stamp",
    [
        pytest.param("0001-01-01T00:00:00+14:00", id="before-year-1-in-utc"),
        pytest.param("9999-12-31T23:59:59-14:00", id="after-year-9999-in-utc"),
    ],
)
def test_a_forged_list_cursor_at_the_edge_of_time_answers_400_naming_the_cursor(
    client: FlaskClient, stamp: str
) -> None:
    """content-api.md Listing: `cursor` takes a `next_cursor`; anything else is 400."""
    response = client.get(
        PAGES, query_string={"cursor": forged_list_cursor(stamp, "a")}, headers=AUTH
    )

    body = response.get_json()
    assert response.status_code == 400
    assert body["error"] == "invalid_query"
    assert [i["field"] for i in body["issues"]] == ["cursor"]
