"""Every answer carries X-Request-Id: the caller's own when it sent a well-formed one, else a
fresh id of 32 hex digits, never the same twice (the `instance` of a problem body)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient


def test_each_request_without_an_id_gets_a_fresh_one_of_32_hex_digits(client: FlaskClient) -> None:
    ids = [client.get("/healthz").headers["X-Request-Id"] for _ in range(200)]

    assert all(re.fullmatch(r"[0-9a-f]{32}", request_id) for request_id in ids)
    assert len(set(ids)) == 200


def test_a_well_formed_request_id_sent_by_the_caller_is_kept(client: FlaskClient) -> None:
    response = client.get("/healthz", headers={"X-Request-Id": "lb-7f3a:42"})

    assert response.headers["X-Request-Id"] == "lb-7f3a:42"
