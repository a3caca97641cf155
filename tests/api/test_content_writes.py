"""Content API writes over HTTP: the gate's 422, body errors, and Idempotency-Key semantics."""

from __future__ import annotations

import dataclasses
import hashlib
import threading

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from backends.bundle import Backends
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import issue_key
from tests.api.content_client import AUTH, PAGES, RecordingCdn, page_body


@pytest.fixture
def cdn() -> RecordingCdn:
    return RecordingCdn()


@pytest.fixture
def app(settings: Settings, backends: Backends, cdn: RecordingCdn) -> Flask:
    return create_app(app_config(settings), dataclasses.replace(backends, cdn=cdn))


def _fields(response: TestResponse) -> list[tuple[str, str]]:
    return sorted((i["field"], i["code"]) for i in response.get_json()["issues"])


@pytest.mark.spec("content.gate")
def test_several_gate_failures_come_back_at_once_each_naming_its_field(client: FlaskClient) -> None:
    """SPEC gate: 422 `invalid_payload` with `issues[]` naming each field that failed."""
    body = page_body(
        title="x" * 61,
        cta_href="javascript:alert(1)",
        description="A revolutionary audit",
        blocks=[
            {"type": "faq", "items": [{"q": "Why?", "a": "Because."}]},
            {
                "type": "hero",
                "title": "T",
                "sub": "For everyone",
                "imageUrl": "http://img.example.com/a.png",
            },
        ],
    )

    response = client.post(PAGES, json=body, headers=AUTH)

    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["error"] == "invalid_payload"
    assert _fields(response) == [
        ("blocks.0", "hero_not_first"),
        ("blocks.1.imageUrl", "unsafe_url"),
        ("blocks.1.sub", "icp_missing"),
        ("cta_href", "unsafe_url"),
        ("description", "off_brand"),
        ("title", "too_long"),
    ]
    assert client.get(f"{PAGES}/growth-audit", headers=AUTH).status_code == 404


@pytest.mark.spec("content.update")
def test_a_patch_that_fails_the_gate_leaves_the_stored_page_unchanged(
    client: FlaskClient, cdn: RecordingCdn
) -> None:
    """DESIGN Pages: the merged page must pass schema and gate; a failed write changes nothing."""
    client.post(PAGES, json=page_body(), headers=AUTH)
    before = client.get(f"{PAGES}/growth-audit", headers=AUTH)

    response = client.patch(
        f"{PAGES}/growth-audit",
        json={
            "title": "Synergy",
            "blocks": [{"type": "hero", "title": "T", "sub": "For all"}],
            "theme": "dark",
        },
        headers=AUTH,
    )

    after = client.get(f"{PAGES}/growth-audit", headers=AUTH)
    assert response.status_code == 422
    assert _fields(response) == [
        ("blocks.0.sub", "icp_missing"),
        ("theme", "unknown_field"),
        ("title", "off_brand"),
    ]
    assert after.get_json() == before.get_json()
    assert after.headers["ETag"] == before.headers["ETag"]
    assert cdn.paths == ["/p/growth-audit"]


def test_a_patch_body_must_be_an_object(client: FlaskClient) -> None:
    """RFC 7396 over a page: the patch is a JSON object."""
    client.post(PAGES, json=page_body(), headers=AUTH)

    response = client.patch(f"{PAGES}/growth-audit", json=["title"], headers=AUTH)

    assert response.status_code == 422
    assert _fields(response) == [("", "invalid_type")]


@pytest.mark.parametrize(
    ("content_type", "data", "status", "code"),
    [
        ("text/plain", "{}", 415, "unsupported_media_type"),
        ("application/x-www-form-urlencoded", "slug=x", 415, "unsupported_media_type"),
        ("application/json", '{"slug": ', 400, "invalid_json"),
        ("application/json", '{"slug": NaN}', 400, "invalid_json"),
        ("application/json", b"\xff\xfe", 400, "invalid_json"),
        ("application/json", "[" * 100_000, 400, "invalid_json"),
    ],
    ids=["text", "form", "truncated", "nan", "not-utf8", "too-deep"],
)
def test_a_body_that_is_not_json_is_refused_before_the_gate(
    client: FlaskClient, content_type: str, data: str | bytes, status: int, code: str
) -> None:
    """DESIGN Statuses: 415 unsupported_media_type, 400 invalid_json."""
    response = client.post(PAGES, data=data, headers={**AUTH, "Content-Type": content_type})

    assert response.status_code == status
    assert response.get_json()["error"] == code


def test_a_body_over_one_megabyte_is_413(client: FlaskClient) -> None:
    """DESIGN Statuses: 413 payload_too_large (the Content API takes up to 1 MiB)."""
    body = '{"title": "' + "a" * (1024 * 1024) + '"}'

    response = client.post(PAGES, data=body, headers={**AUTH, "Content-Type": "application/json"})

    assert response.status_code == 413
    assert response.get_json()["error"] == "payload_too_large"


@pytest.mark.spec("content.idempotency")
def test_a_retried_post_with_the_same_idempotency_key_replays_the_first_response(
    client: FlaskClient, cdn: RecordingCdn
) -> None:
    """DESIGN: Idempotency-Key returns the stored first result, `Idempotent-Replayed: true`."""
    headers = {**AUTH, "Idempotency-Key": "launch-001"}

    first = client.post(PAGES, json=page_body(), headers=headers)
    # Same body, keys in another order: the same request.
    second = client.post(PAGES, json=dict(reversed(page_body().items())), headers=headers)

    assert second.status_code == first.status_code == 201
    assert second.get_data() == first.get_data()
    assert second.headers["ETag"] == first.headers["ETag"]
    assert second.headers["Location"] == first.headers["Location"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert client.get(f"{PAGES}/growth-audit", headers=AUTH).get_json()["page"]["version"] == 1
    assert cdn.paths == ["/p/growth-audit"]


@pytest.mark.spec("content.idempotency")
def test_a_replayed_answer_over_64_kib_is_its_status_headers_and_a_short_body_with_its_digest(
    client: FlaskClient,
) -> None:
    """content-api.md Idempotency: an answer over 64 KiB is kept as its size and SHA-256."""
    prose = "We read your pipeline and write down where deals stall and why. " * 60
    blocks = [{"type": "richtext", "markdown": prose[:3_900]} for _ in range(25)]
    body = page_body("long-read", blocks=[page_body()["blocks"][0], *blocks])
    headers = {**AUTH, "Idempotency-Key": "long-read-1"}

    first = client.post(PAGES, json=body, headers=headers)
    second = client.post(PAGES, json=body, headers=headers)

    assert first.status_code == second.status_code == 201
    assert len(first.get_data()) > 64 * 1024
    assert second.get_json() == {
        "ok": True,
        "body_omitted": {
            "bytes": len(first.get_data()),
            "sha256": hashlib.sha256(first.get_data()).hexdigest(),
        },
    }
    assert second.headers["ETag"] == first.headers["ETag"] == '"v1"'
    assert second.headers["Location"] == first.headers["Location"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert client.get(f"{PAGES}/long-read", headers=AUTH).get_json()["page"]["version"] == 1


def test_a_gate_failure_is_replayed_too(client: FlaskClient) -> None:
    """IETF draft: the first response, whatever it was, answers the repeat."""
    headers = {**AUTH, "Idempotency-Key": "bad-001"}

    first = client.post(PAGES, json=page_body(title="Synergy"), headers=headers)
    second = client.post(PAGES, json=page_body(title="Synergy"), headers=headers)

    assert second.status_code == first.status_code == 422
    assert second.headers["Idempotent-Replayed"] == "true"


@pytest.mark.spec("content.idempotency")
def test_the_same_key_with_a_different_body_is_422_key_reused(client: FlaskClient) -> None:
    """DESIGN: 422 `idempotency_key_reused` if the body differs."""
    headers = {**AUTH, "Idempotency-Key": "launch-002"}
    client.post(PAGES, json=page_body(), headers=headers)

    response = client.post(PAGES, json=page_body(title="Another title"), headers=headers)

    issues = response.get_json()["issues"]
    assert response.status_code == 422
    assert response.get_json()["error"] == "idempotency_key_reused"
    assert [(i["field"], i["code"]) for i in issues] == [("Idempotency-Key", "reused")]
    assert (
        client.get(f"{PAGES}/growth-audit", headers=AUTH).get_json()["page"]["title"]
        != "Another title"
    )


@pytest.mark.spec("content.idempotency")
def test_a_repeat_while_the_first_is_running_is_409_in_flight(
    settings: Settings, backends: Backends
) -> None:
    """DESIGN: 409 `idempotency_in_flight` while the first is still running."""
    held = RecordingCdn(hold=True)
    slow = create_app(app_config(settings), dataclasses.replace(backends, cdn=held))
    headers = {**AUTH, "Idempotency-Key": "launch-003"}
    results: dict[str, TestResponse] = {}
    first = threading.Thread(
        target=lambda: results.setdefault(
            "first", slow.test_client().post(PAGES, json=page_body(), headers=headers)
        )
    )
    first.start()
    assert held.entered.wait(10)

    repeat = slow.test_client().post(PAGES, json=page_body(), headers=headers)
    held.release.set()
    first.join(10)
    after = slow.test_client().post(PAGES, json=page_body(), headers=headers)

    assert repeat.status_code == 409
    assert repeat.get_json()["error"] == "idempotency_in_flight"
    assert repeat.headers["Retry-After"] == "1"
    assert results["first"].status_code == 201
    assert after.status_code == 201
    assert after.headers["Idempotent-Replayed"] == "true"


def test_idempotency_keys_are_scoped_per_partner_key(
    client: FlaskClient, backends: Backends
) -> None:
    """DESIGN: keys are scoped per partner key, so two partners may pick the same key."""
    other, _record = issue_key(
        keys=backends.keys, partner="acme", scope="content", now=backends.clock()
    )
    client.post(PAGES, json=page_body(), headers={**AUTH, "Idempotency-Key": "shared"})

    response = client.post(
        PAGES,
        json=page_body("acme-page"),
        headers={"x-api-key": other, "Idempotency-Key": "shared"},
    )

    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response.headers


@pytest.mark.spec("content.idempotency")
@pytest.mark.parametrize("key", ["x" * 256, "", "two words", "caf\u00e9"])
def test_a_malformed_idempotency_key_is_400_with_an_issue_naming_the_header(
    client: FlaskClient, key: str
) -> None:
    """IETF draft: the key is a visible ASCII string (we allow 1 to 255 characters); like every
    4xx of a field, the refusal names it in issues[]."""
    response = client.post(
        PAGES, json=page_body(), headers={**AUTH, "Idempotency-Key": key.encode().decode("latin-1")}
    )

    issues = response.get_json()["issues"]
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_idempotency_key"
    assert [(i["field"], i["code"]) for i in issues] == [("Idempotency-Key", "invalid_format")]
