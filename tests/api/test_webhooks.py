"""Webhook endpoints over HTTP: register, list, rotate, delete, deliveries, replay, SSRF guard."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.webhooks import SqliteWebhookStore
from backends.ports import WebhookEndpoint, WebhookSecret
from frontdoor.delivery_wiring import webhook_secrets_box
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.signals.events import EVENT_TYPES
from services.delivery_policy import endpoint_wants, rotate_secrets
from services.keys import issue_key
from tests.conftest import CONTENT_KEY, SIGNALS_KEY

pytestmark = pytest.mark.spec("signals.webhooks")

HOOKS = "/api/public/v1/signals/webhooks"
KEY = {"x-api-key": SIGNALS_KEY}
HOSTS = {"hooks.partner.test": ["93.184.215.14"], "rebound.partner.test": ["10.0.0.7"]}


def _resolve(host: str, port: int) -> list[str]:
    if host not in HOSTS:
        raise OSError("unknown host")  # no DNS in tests: unknown names do not resolve
    return HOSTS[host]


@pytest.fixture
def strict(settings: Settings) -> Iterator[tuple[FlaskClient, Backends]]:
    """A production-like guard (no loopback) with a fixed hosts table instead of DNS."""
    built = build_backends(settings.model_copy(update={"webhook_allow_loopback": False}))
    options = dataclasses.replace(built.delivery_options, resolver=_resolve, allow_loopback=False)
    backends = dataclasses.replace(built, delivery_options=options)
    yield create_app(app_config(settings), backends).test_client(), backends
    built.close()


@pytest.fixture
def api(strict: tuple[FlaskClient, Backends]) -> FlaskClient:
    return strict[0]


def _register(api: FlaskClient, **body: Any) -> Any:
    response = api.post(HOOKS, json={"url": "https://hooks.partner.test/in", **body}, headers=KEY)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_registering_answers_201_with_the_endpoint_and_its_secret_once(api: FlaskClient) -> None:
    """DESIGN Deliveries: POST answers 201 with the endpoint and its secret (shown once)."""
    response = api.post(
        HOOKS,
        json={"url": "https://hooks.partner.test/in", "types": ["book_call"], "description": "CRM"},
        headers=KEY,
    )

    body = response.get_json()
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    assert body["ok"] is True
    assert body["secret"].startswith("whsec_")
    assert body["endpoint"]["id"].startswith("wh_")
    assert {k: body["endpoint"][k] for k in ("url", "types", "description", "enabled")} == {
        "url": "https://hooks.partner.test/in",
        "types": ["book_call"],
        "description": "CRM",
        "enabled": True,
    }


@pytest.mark.parametrize("body", [{"types": []}, {}], ids=["empty-types", "no-types"])
def test_an_empty_types_list_means_every_type_as_leaving_it_out_does(
    strict: tuple[FlaskClient, Backends], body: dict[str, Any]
) -> None:
    """`types: []` is no filter: the endpoint reads `types: null` and takes every event type."""
    api, backends = strict
    created = _register(api, **body)["endpoint"]

    stored = backends.webhooks.get_endpoint(created["id"])

    assert created["types"] is None
    assert stored is not None
    assert all(endpoint_wants(stored, kind) for kind in EVENT_TYPES)


def test_the_list_shows_endpoints_but_never_a_secret(api: FlaskClient) -> None:
    """DESIGN Deliveries: GET lists; secrets are shown only once."""
    created = _register(api)

    response = api.get(HOOKS, headers={"Authorization": f"Bearer {SIGNALS_KEY}"})

    assert response.status_code == 200
    assert [e["id"] for e in response.get_json()["endpoints"]] == [created["endpoint"]["id"]]
    assert created["secret"] not in response.get_data(as_text=True)
    assert "whsec_" not in response.get_data(as_text=True)


def test_webhook_routes_need_the_signals_key(api: FlaskClient) -> None:
    """DESIGN Configuration: a key of one scope is refused (401) on another surface."""
    assert api.get(HOOKS).status_code == 401
    assert api.get(HOOKS, headers={"x-api-key": CONTENT_KEY}).get_json()["error"] == "unauthorized"
    assert (
        api.post(
            HOOKS, json={"url": "https://hooks.partner.test"}, headers={"x-api-key": CONTENT_KEY}
        ).status_code
        == 401
    )


def test_partners_see_and_change_only_their_own_endpoints(
    strict: tuple[FlaskClient, Backends],
) -> None:
    """DESIGN Deliveries: endpoints belong to the partner whose key registered them."""
    api, backends = strict
    created = _register(api)
    other_key, _ = issue_key(
        keys=backends.keys, partner="other", scope="signals", now=backends.clock()
    )
    other = {"x-api-key": other_key}
    hook_id = created["endpoint"]["id"]

    assert api.get(HOOKS, headers=other).get_json()["endpoints"] == []
    assert api.delete(f"{HOOKS}/{hook_id}", headers=other).status_code == 404
    assert api.post(f"{HOOKS}/{hook_id}/rotate", headers=other).status_code == 404
    assert api.get(f"{HOOKS}/{hook_id}/deliveries", headers=other).status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({}, "url", "missing"),
        ({"url": "https://hooks.partner.test", "colour": "red"}, "colour", "unknown_field"),
        ({"url": "https://hooks.partner.test", "types": ["nope"]}, "types.0", "literal_error"),
        (
            {"url": "https://hooks.partner.test", "description": "x" * 201},
            "description",
            "too_long",
        ),
        ({"url": 42}, "url", "invalid_type"),
    ],
)
def test_invalid_bodies_answer_422_naming_the_field(
    api: FlaskClient, body: dict[str, Any], field: str, code: str
) -> None:
    """DESIGN Contract decisions: 422 invalid_payload with issues[] naming each field."""
    response = api.post(HOOKS, json=body, headers=KEY)

    assert response.status_code == 422
    assert response.get_json()["error"] == "invalid_payload"
    assert (
        response.get_json()["issues"][0]["field"],
        response.get_json()["issues"][0]["code"],
    ) == (
        field,
        code,
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://localhost/hook",
        "https://2130706433/hook",
        "https://0x7f000001/hook",
        "https://0177.0.0.1/hook",
        "https://127.1/hook",
        "https://rebound.partner.test/hook",
        "http://hooks.partner.test/hook",
        "https://user:pw@hooks.partner.test/hook",
        "not a url",
    ],
)
def test_unsafe_targets_are_refused_with_unsafe_url(api: FlaskClient, url: str) -> None:
    """DESIGN Deliveries: https only, never private or loopback addresses in production (SSRF)."""
    response = api.post(HOOKS, json={"url": url}, headers=KEY)

    assert response.status_code == 422
    assert response.get_json()["issues"] == [
        {
            "field": "url",
            "code": "unsafe_url",
            "message": response.get_json()["issues"][0]["message"],
            "severity": "error",
        }
    ]


def test_a_local_run_refuses_a_loopback_receiver_unless_its_setting_allows_it(
    settings: Settings,
) -> None:
    """signals-api.md Allowed targets: loopback only with WEBHOOK_ALLOW_LOOPBACK (loopback HOST)."""
    answers = []
    for allow in (False, True):
        tuned = settings.model_copy(update={"webhook_allow_loopback": allow})
        built = build_backends(tuned)
        client = create_app(app_config(tuned), built).test_client()
        hook = {"url": "http://127.0.0.1:9999/hook"}
        answers.append(client.post(HOOKS, json=hook, headers=KEY).status_code)
        built.close()

    assert answers == [422, 201]


def test_rotating_shows_a_new_secret_once_and_keeps_the_old_one_for_24_hours(
    strict: tuple[FlaskClient, Backends],
) -> None:
    """DESIGN Deliveries: secrets are rotatable with overlap."""
    api, backends = strict
    created = _register(api)
    hook_id = created["endpoint"]["id"]

    response = api.post(f"{HOOKS}/{hook_id}/rotate", headers=KEY)

    body = response.get_json()
    stored = backends.webhooks.get_endpoint(hook_id)
    assert response.status_code == 200
    assert body["secret"].startswith("whsec_")
    assert body["secret"] != created["secret"]
    assert body["endpoint"]["id"] == hook_id
    assert stored is not None
    assert [s.value for s in stored.secrets] == [body["secret"], created["secret"]]
    assert stored.secrets[1].expires_at == stored.secrets[0].created_at + timedelta(hours=24)
    assert body["previous_secret_expires_at"] is not None


def test_deleting_removes_the_endpoint(api: FlaskClient) -> None:
    """DESIGN Deliveries: DELETE .../{id}."""
    hook_id = _register(api)["endpoint"]["id"]

    response = api.delete(f"{HOOKS}/{hook_id}", headers=KEY)

    assert (response.status_code, response.get_json()) == (200, {"ok": True, "deleted": hook_id})
    assert api.get(HOOKS, headers=KEY).get_json()["endpoints"] == []
    assert api.delete(f"{HOOKS}/{hook_id}", headers=KEY).get_json()["error"] == "not_found"


def test_a_new_endpoint_has_no_deliveries_and_a_bad_status_filter_is_400(api: FlaskClient) -> None:
    """DESIGN Deliveries: GET .../{id}/deliveries?status=failed; bad queries are invalid_query."""
    hook_id = _register(api)["endpoint"]["id"]

    listed = api.get(f"{HOOKS}/{hook_id}/deliveries?status=failed", headers=KEY)
    bad = api.get(f"{HOOKS}/{hook_id}/deliveries?status=lost", headers=KEY)

    assert (listed.status_code, listed.get_json()) == (200, {"ok": True, "deliveries": []})
    assert bad.status_code == 400
    assert (bad.get_json()["error"], bad.get_json()["issues"][0]["field"]) == (
        "invalid_query",
        "status",
    )


def test_a_delivery_list_names_bad_parameters_with_the_codes_the_stream_uses(
    api: FlaskClient,
) -> None:
    """signals-api.md The stream and polling: a parameter the endpoint does not know is
    `unknown_parameter`; a number outside its range is `out_of_range`, on every read."""
    hook_id = _register(api)["endpoint"]["id"]

    bad = api.get(f"{HOOKS}/{hook_id}/deliveries?limit=0&statuss=failed", headers=KEY)

    assert (bad.status_code, bad.get_json()["error"]) == (400, "invalid_query")
    assert [(i["field"], i["code"]) for i in bad.get_json()["issues"]] == [
        ("statuss", "unknown_parameter"),
        ("limit", "out_of_range"),
    ]


def test_a_registration_with_several_faults_names_the_unsafe_url_among_them(
    api: FlaskClient,
) -> None:
    """signals-api.md Allowed targets and Errors: one answer names every field to fix, the
    url's `unsafe_url` included when another field also failed."""
    body = {"url": "http://hooks.example.com/in", "types": ["lead"], "color": "red"}

    response = api.post(HOOKS, json=body, headers=KEY)

    assert response.status_code == 422
    assert sorted((i["field"], i["code"]) for i in response.get_json()["issues"]) == [
        ("color", "unknown_field"),
        ("types.0", "literal_error"),
        ("url", "unsafe_url"),
    ]


def test_a_registration_retried_with_its_idempotency_key_makes_one_endpoint(
    api: FlaskClient,
) -> None:
    """signals-api.md Webhooks: a POST whose answer was lost, sent again with the same
    Idempotency-Key, answers the first endpoint and secret instead of registering a second
    endpoint (every event twice, one signed with a secret never seen)."""
    body = {"url": "https://hooks.partner.test/in", "types": ["lead_form"]}
    once = {**KEY, "Idempotency-Key": "register-crm-1"}

    first = api.post(HOOKS, json=body, headers=once)
    again = api.post(HOOKS, json=body, headers=once)
    reused = api.post(HOOKS, json={**body, "types": ["book_call"]}, headers=once)

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert len(api.get(HOOKS, headers=KEY).get_json()["endpoints"]) == 1
    assert reused.get_json()["error"] == "idempotency_key_reused"


def test_unknown_endpoints_and_deliveries_are_404(api: FlaskClient) -> None:
    """DESIGN Contract decisions: 404 not_found."""
    assert api.get(f"{HOOKS}/wh_missing/deliveries", headers=KEY).status_code == 404
    assert api.post(f"{HOOKS}/wh_missing/rotate", headers=KEY).status_code == 404
    assert (
        api.post(f"{HOOKS}/deliveries/msg_missing/replay", headers=KEY).get_json()["error"]
        == "not_found"
    )


def test_the_internal_attempt_route_refuses_calls_without_the_internal_token(
    api: FlaskClient,
) -> None:
    """DESIGN Deliveries: only the task queue may run delivery attempts."""
    body = {"delivery_id": "msg_1", "attempt": 1, "replays": 0}

    missing = api.post("/internal/deliveries/msg_1/attempt", json=body)
    wrong = api.post(
        "/internal/deliveries/msg_1/attempt",
        json=body,
        headers={"X-Frontdoor-Internal-Token": "nope"},
    )

    assert (missing.status_code, wrong.status_code) == (401, 401)


def test_an_internal_token_that_is_not_ascii_is_refused_401(api: FlaskClient) -> None:
    """DESIGN Deliveries: a header the comparison cannot take is a wrong token (it was a 500)."""
    body = {"delivery_id": "msg_1", "attempt": 1, "replays": 0}

    response = api.post(
        "/internal/deliveries/msg_1/attempt",
        json=body,
        headers={"X-Frontdoor-Internal-Token": "\u00e9t\u00e9"},
    )

    assert (response.status_code, response.get_json()["error"]) == (401, "unauthorized")


def test_two_partners_registering_one_url_with_one_idempotency_key_each_get_their_own(
    strict: tuple[FlaskClient, Backends],
) -> None:
    """Idempotency-Keys are scoped to the key that sent them; two partners sending
    the same URL under the same key each get an endpoint and a secret of their own."""
    api, backends = strict
    raw, _ = issue_key(keys=backends.keys, partner="other", scope="signals", now=backends.clock())
    body = {"url": "https://hooks.partner.test/in"}
    same = {"Idempotency-Key": "register-1"}

    ours = api.post(HOOKS, json=body, headers={**KEY, **same})
    theirs = api.post(HOOKS, json=body, headers={"x-api-key": raw, **same})

    assert (ours.status_code, theirs.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in theirs.headers
    assert ours.get_json()["endpoint"]["id"] != theirs.get_json()["endpoint"]["id"]
    assert ours.get_json()["secret"] != theirs.get_json()["secret"]
    for key, answer in ((KEY, ours), ({"x-api-key": raw}, theirs)):
        listed = api.get(HOOKS, headers=key).get_json()["endpoints"]
        assert [e["id"] for e in listed] == [answer.get_json()["endpoint"]["id"]]


def test_a_retried_rotation_with_the_same_idempotency_key_answers_the_secret_that_signs(
    strict: tuple[FlaskClient, Backends],
) -> None:
    """Every write is safe to retry: a rotation sent again with its Idempotency-Key answers the
    first new secret, which is the one deliveries are signed with, rather than minting a
    third one and leaving the answer the partner kept useless."""
    api, backends = strict
    hook_id = _register(api)["endpoint"]["id"]
    once = {**KEY, "Idempotency-Key": "rotate-1"}

    first = api.post(f"{HOOKS}/{hook_id}/rotate", headers=once)
    again = api.post(f"{HOOKS}/{hook_id}/rotate", headers=once)

    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["secret"] == first.get_json()["secret"]
    endpoint = backends.webhooks.get_endpoint(hook_id)
    assert endpoint is not None
    assert endpoint.secrets[0].value == first.get_json()["secret"]
    assert len(endpoint.secrets) == 2


class RotatedMeanwhile(SqliteWebhookStore):
    """The real SQLite webhook store, where another rotation of the endpoint lands just before
    this request's own write of its secrets (two people rotating at the same moment)."""

    rival: str | None = None

    def set_secrets(
        self, endpoint_id: str, secrets: tuple[WebhookSecret, ...], *, if_current: str | None = None
    ) -> WebhookEndpoint:
        rival, self.rival = self.rival, None
        if rival is not None:
            now = secrets[0].created_at
            current = self.get_endpoint(endpoint_id)
            assert current is not None
            theirs = rotate_secrets(
                current.secrets, new_value=rival, now=now, overlap=timedelta(hours=24)
            )
            super().set_secrets(endpoint_id, theirs, if_current=current.secrets[0].value)
        return super().set_secrets(endpoint_id, secrets, if_current=if_current)


def test_two_rotations_at_once_each_answer_a_secret_that_signs(
    settings: Settings, strict: tuple[FlaskClient, Backends]
) -> None:
    """DESIGN Deliveries: a rotation answers the secret deliveries are signed with from then on.
    When another rotation lands between this one's read and its write, this one rotates again
    over it: its answer is the current secret and the other's keeps signing through the 24-hour
    overlap, instead of one of the two answers naming a secret nothing signs with."""
    _api, backends = strict
    hooks = RotatedMeanwhile(
        SqliteDatabase(settings.data_dir / "frontdoor.sqlite3"), box=webhook_secrets_box(settings)
    )
    api = create_app(
        app_config(settings), dataclasses.replace(backends, webhooks=hooks)
    ).test_client()
    hook_id = _register(api)["endpoint"]["id"]
    hooks.rival = "whsec_rival"

    answer = api.post(f"{HOOKS}/{hook_id}/rotate", headers=KEY)

    assert answer.status_code == 200, answer.get_json()
    endpoint = hooks.get_endpoint(hook_id)
    assert endpoint is not None
    assert endpoint.secrets[0].value == answer.get_json()["secret"]
    assert "whsec_rival" in [s.value for s in endpoint.secrets[1:]]
