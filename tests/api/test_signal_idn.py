"""Internationalized domains (`bücher.de`) in the Signal API: accepted in the Unicode form a
person types, kept and answered in their ASCII form (`xn--bcher-kva.de`), so a lookup finds
what ingest stored whichever form either side used."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from backends.bundle import Backends
from tests.api.test_signals import BASE, READ, ingest, raw_event, stream

pytestmark = pytest.mark.spec("signals.lookup")

ASCII = "xn--bcher-kva.de"


def test_an_account_is_found_by_its_unicode_or_its_ascii_domain(
    client: FlaskClient, backends: Backends
) -> None:
    """The email's domain and a typed `account.domain` are both stored as the ASCII form."""
    ingest(
        client,
        backends,
        [
            raw_event("mail", person={"email": "ana@bücher.de"}),
            raw_event("typed", person={"email": "bo@gmail.com"}, account={"domain": "BÜCHER.de"}),
        ],
    )

    unicode = client.get(f"{BASE}/accounts/bücher.de", headers=READ).get_json()
    ascii_ = client.get(f"{BASE}/accounts/{ASCII}", headers=READ).get_json()
    filtered = stream(client, domain="https://www.bücher.de/")["events"]

    assert unicode == ascii_
    assert (unicode["seen"], unicode["account"]["domain"]) == (True, ASCII)
    assert {e["id"] for e in unicode["timeline"]} == {"crm:mail", "crm:typed"}
    assert {e["id"] for e in filtered} == {"crm:mail", "crm:typed"}


def test_a_unicode_name_that_cannot_be_a_domain_is_still_invalid_domain(
    client: FlaskClient,
) -> None:
    """A snowman is no letter of any script: 400 `invalid_domain` naming `domain`."""
    response = client.get(f"{BASE}/accounts/☃.com", headers=READ)

    body = response.get_json()
    assert (response.status_code, body["error"]) == (400, "invalid_domain")
    assert [i["field"] for i in body["issues"]] == ["domain"]
