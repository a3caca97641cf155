"""Webhook deliveries end to end: the app served on loopback, a real receiver, and either the
in-process task queue or the Cloud Tasks emulator (run with `-r 0`, so every retry is our task).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from backends.ports import Delivery
from frontdoor.settings import Settings
from schemas.signals.events import Event
from tests.conftest import INGEST_KEY, SIGNALS_KEY
from tests.loopback_app import Served, served
from tests.polling import wait_for
from tests.webhook_receiver import running_receiver

pytestmark = pytest.mark.spec("signals.webhooks")

HOOKS = "/api/public/v1/signals/webhooks"
KEY = {"x-api-key": SIGNALS_KEY}


def _register(served_app: Served, url: str, **body: Any) -> tuple[str, str]:
    response = served_app.api.post(HOOKS, json={"url": url, **body}, headers=KEY)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["endpoint"]["id"], response.get_json()["secret"]


def _event(event_type: str = "book_call") -> Event:
    now = datetime.now(UTC)
    return Event(
        id=f"crm:{uuid.uuid4().hex[:8]}",
        type=event_type,
        source="crm",
        occurred_at=now,
        recorded_at=now,
        person={"email": "ada@acme.test", "name": "Ada"},
        account={"domain": "acme.test", "name": "Acme"},
    )


def _settled(served_app: Served, endpoint_id: str, status: str) -> Delivery:
    found: list[Delivery] = []

    def done() -> bool:
        found[:] = served_app.backends.webhooks.list_deliveries(endpoint_id, status=status)  # type: ignore[arg-type]
        return bool(found)

    wait_for(done)
    return found[0]


@pytest.mark.emulator
def test_the_emulated_cloud_tasks_queue_delivers_signed_events_and_retries_with_the_same_webhook_id(
    settings: Settings, request: pytest.FixtureRequest
) -> None:
    """DESIGN Deliveries (must show): Standard Webhooks signatures; 500 then 200: one webhook-id."""
    emulator = request.getfixturevalue("tasks_emulator")
    from backends.gcp.tasks import CloudTasksTaskQueue, cloud_tasks_client, queue_path

    path = queue_path(
        project="demo-frontdoor", location="us-central1", queue=f"q{uuid.uuid4().hex[:12]}"
    )
    cloud = CloudTasksTaskQueue(
        lambda: cloud_tasks_client(emulator_host=emulator.host), queue_path=path, create_queue=True
    )
    with running_receiver([500]) as receiver, served(settings, queue=lambda _b: cloud) as app:
        endpoint_id, secret = _register(app, f"{receiver.url}/hooks")
        event = _event()

        app.backends.deliveries.enqueue_for_event(event)
        got = receiver.wait_for(2)
        delivery = _settled(app, endpoint_id, "succeeded")

    cloud.close()
    payloads = [Webhook(secret).verify(r.body, r.headers) for r in got]
    assert [r.status for r in got] == [500, 200]
    assert got[0].headers["webhook-id"] == got[1].headers["webhook-id"] == delivery.delivery_id
    assert [p["data"]["id"] for p in payloads] == [event.id, event.id]
    assert payloads[0]["type"] == "signal.book_call"
    assert (delivery.attempts, delivery.last_status_code) == (2, 200)


def test_an_ingested_event_reaches_a_matching_endpoint_signed_and_pinned_to_the_checked_address(
    settings: Settings,
) -> None:
    """DESIGN Deliveries: each stored event is delivered to endpoints whose types match."""
    with running_receiver() as receiver, served(settings) as app:
        app.hosts["hooks.localhost"] = ["127.0.0.1"]
        port = receiver.url.rsplit(":", 1)[1]
        _, secret = _register(app, f"http://hooks.localhost:{port}/in", types=["book_call"])
        _register(app, receiver.url + "/other", types=["email_open"])
        row = {
            "source": "crm",
            "row_id": "r-1",
            "type": "book_call",
            "occurred_at": datetime.now(UTC).isoformat(),
        }

        accepted = app.api.post(
            "/api/public/v1/signals/events",
            json={"events": [row]},
            headers={"x-api-key": INGEST_KEY},
        )
        got = receiver.wait_for(1)

    assert accepted.status_code == 202
    assert len(got) == 1
    assert got[0].path == "/in"
    assert got[0].headers["host"] == f"hooks.localhost:{port}"
    assert Webhook(secret).verify(got[0].body, got[0].headers)["data"]["id"] == "crm:r-1"


def test_a_delivery_carries_the_event_as_the_stream_serves_it_and_a_utc_z_timestamp(
    settings: Settings,
) -> None:
    """signals-api.md What a delivery looks like: `data` is the event exactly as the stream
    serves it; `timestamp` is written as every time of the API is ("...Z")."""
    with running_receiver() as receiver, served(settings) as app:
        _, secret = _register(app, receiver.url + "/in")
        row = {
            "source": "crm",
            "row_id": "r-1",
            "type": "book_call",
            "occurred_at": "2026-11-20T10:00:00Z",
            "person": {"email": "ada@acme.com", "name": "Ada"},
        }
        app.api.post(
            "/api/public/v1/signals/events",
            json={"events": [row]},
            headers={"x-api-key": INGEST_KEY},
        )
        (got,) = receiver.wait_for(1)
        streamed = app.api.get("/api/public/v1/signals", headers=KEY).get_json()["events"]

    payload = Webhook(secret).verify(got.body, got.headers)
    assert payload["data"] == streamed[0]
    assert payload["timestamp"].endswith("Z")
    assert datetime.fromisoformat(payload["timestamp"]).utcoffset() == timedelta(0)


def test_a_410_from_the_receiver_disables_the_endpoint(settings: Settings) -> None:
    """DESIGN Deliveries: 410 from the receiver disables the endpoint."""
    with running_receiver([410]) as receiver, served(settings) as app:
        endpoint_id, _ = _register(app, receiver.url)

        app.backends.deliveries.enqueue_for_event(_event())
        failed = _settled(app, endpoint_id, "failed")
        listed = app.api.get(HOOKS, headers=KEY).get_json()["endpoints"]
        app.backends.deliveries.enqueue_for_event(_event())
        deliveries = app.backends.webhooks.list_deliveries(endpoint_id)
        replay = app.api.post(f"{HOOKS}/deliveries/{failed.delivery_id}/replay", headers=KEY)

    assert (failed.attempts, failed.last_status_code) == (1, 410)
    assert (listed[0]["enabled"], listed[0]["disabled_reason"]) == (
        False,
        "receiver answered 410 Gone",
    )
    assert [d.delivery_id for d in deliveries] == [failed.delivery_id]
    assert (replay.status_code, replay.get_json()["error"]) == (409, "endpoint_disabled")


def test_a_delivery_that_keeps_failing_is_listed_as_failed_and_a_replay_sends_it_again(
    settings: Settings,
) -> None:
    """DESIGN Deliveries: failed deliveries are listed and can be replayed (same webhook-id)."""
    with running_receiver([500, 502, 503]) as receiver, served(settings) as app:
        endpoint_id, secret = _register(app, receiver.url)
        app.backends.deliveries.enqueue_for_event(_event())
        failed = _settled(app, endpoint_id, "failed")
        listed = app.api.get(
            f"{HOOKS}/{endpoint_id}/deliveries?status=failed", headers=KEY
        ).get_json()["deliveries"]

        replay = app.api.post(f"{HOOKS}/deliveries/{failed.delivery_id}/replay", headers=KEY)
        again = _settled(app, endpoint_id, "succeeded")
        got = receiver.wait_for(4)

    assert (failed.attempts, failed.last_status_code, failed.last_error) == (3, 503, "HTTP 503")
    assert [d["id"] for d in listed] == [failed.delivery_id]
    assert (replay.status_code, replay.get_json()["delivery"]["status"]) == (202, "pending")
    assert (again.replays, again.attempts) == (1, 1)
    assert {r.headers["webhook-id"] for r in got} == {failed.delivery_id}
    assert Webhook(secret).verify(got[-1].body, got[-1].headers)


def test_an_attempt_task_run_twice_sends_once(settings: Settings) -> None:
    """DESIGN Deliveries: tasks are at least once; an attempt already recorded changes nothing."""
    with running_receiver() as receiver, served(settings) as app:
        endpoint_id, _ = _register(app, receiver.url)
        app.backends.deliveries.enqueue_for_event(_event())
        done = _settled(app, endpoint_id, "succeeded")
        task = {"delivery_id": done.delivery_id, "attempt": 1, "replays": 0}
        token = {"X-Frontdoor-Internal-Token": app.backends.delivery_options.internal_token}

        rerun = app.api.post(
            f"/internal/deliveries/{done.delivery_id}/attempt", json=task, headers=token
        )

    assert rerun.get_json() == {"ok": True, "status": "skipped"}
    assert len(receiver.requests) == 1


def test_a_target_that_now_resolves_to_a_private_address_is_refused_at_once_uncontacted(
    settings: Settings,
) -> None:
    """DESIGN Deliveries: the SSRF guard runs again at delivery time (DNS rebinding); a refused
    target fails at once, recorded as refused, with no retry to probe it again."""
    with running_receiver() as receiver, served(settings) as app:
        app.hosts["hooks.partner.test"] = ["93.184.215.14"]
        endpoint_id, _ = _register(app, "https://hooks.partner.test/in")
        app.hosts["hooks.partner.test"] = ["10.0.0.7"]

        app.backends.deliveries.enqueue_for_event(_event())
        failed = _settled(app, endpoint_id, "failed")

    assert (failed.attempts, failed.last_status_code) == (1, None)
    assert failed.last_error == "refused: the host is a private or reserved address"
    assert receiver.requests == []


def test_after_rotation_deliveries_verify_with_the_old_and_the_new_secret(
    settings: Settings,
) -> None:
    """DESIGN Deliveries: rotatable with overlap: both secrets sign until the overlap ends."""
    with running_receiver() as receiver, served(settings) as app:
        endpoint_id, old = _register(app, receiver.url)
        new = app.api.post(f"{HOOKS}/{endpoint_id}/rotate", headers=KEY).get_json()["secret"]

        app.backends.deliveries.enqueue_for_event(_event())
        got = receiver.wait_for(1)[0]

    assert json.loads(got.body)["type"] == "signal.book_call"
    assert Webhook(old).verify(got.body, got.headers)
    assert Webhook(new).verify(got.body, got.headers)
    assert len(got.headers["webhook-signature"].split(" ")) == 2


@pytest.mark.parametrize(
    ("erase_delivery", "status"), [(True, "skipped"), (False, "failed")], ids=["erased", "kept"]
)
def test_an_endpoint_deleted_and_a_delivery_erased_during_the_attempt_answer_200_not_500(
    settings: Settings, erase_delivery: bool, status: str
) -> None:
    """DESIGN Signals: erasure removes deliveries; an attempt in flight then records nothing,
    and a 410 for an endpoint deleted meanwhile disables nothing."""
    staged: list[Any] = []
    with (
        running_receiver([410], on_request=lambda: staged[0]()) as receiver,
        served(settings) as app,
    ):
        webhooks = app.backends.webhooks
        endpoint_id, _ = _register(app, receiver.url)
        event = _event()
        delivery = Delivery(
            delivery_id=f"msg_{uuid.uuid4().hex[:8]}",
            endpoint_id=endpoint_id,
            event_id=event.id,
            event_type=event.type,
            payload="{}",
            status="pending",
            created_at=event.recorded_at,
        )
        webhooks.add_delivery(delivery)  # stored only: no task runs it, the test does

        def race() -> None:
            if erase_delivery:
                webhooks.erase_deliveries_for_events([event.id])
            webhooks.delete_endpoint(endpoint_id)

        staged.append(race)
        token = {"X-Frontdoor-Internal-Token": app.backends.delivery_options.internal_token}
        task = {"delivery_id": delivery.delivery_id, "attempt": 1, "replays": 0}

        answer = app.api.post(
            f"/internal/deliveries/{delivery.delivery_id}/attempt", json=task, headers=token
        )
        kept = webhooks.get_delivery(delivery.delivery_id)

    assert (answer.status_code, answer.get_json()) == (200, {"ok": True, "status": status})
    assert len(receiver.requests) == 1
    assert (kept is None) == erase_delivery
    assert kept is None or (kept.status, kept.last_status_code) == ("failed", 410)


def test_replaying_a_delivery_that_waits_for_a_retry_sends_it_now_from_the_first_attempt(
    settings: Settings,
) -> None:
    """signals-api.md Webhooks: replay sends it again from the first attempt, pending or not."""
    with (
        running_receiver([500]) as receiver,
        served(settings, retry_delays=[3600.0]) as app,
    ):
        endpoint_id, _secret = _register(app, receiver.url)
        app.backends.deliveries.enqueue_for_event(_event())
        receiver.wait_for(1)
        waiting = _first_attempt_recorded(app, endpoint_id)

        replay = app.api.post(f"{HOOKS}/deliveries/{waiting.delivery_id}/replay", headers=KEY)
        again = _settled(app, endpoint_id, "succeeded")
        got = receiver.wait_for(2)

    assert (replay.status_code, replay.get_json()["delivery"]["replays"]) == (202, 1)
    assert (again.replays, again.attempts) == (1, 1)
    assert [r.headers["webhook-id"] for r in got] == [waiting.delivery_id] * 2


def _first_attempt_recorded(served_app: Served, endpoint_id: str) -> Delivery:
    found: list[Delivery] = []

    def recorded() -> bool:
        found[:] = [
            d
            for d in served_app.backends.webhooks.list_deliveries(endpoint_id, status="pending")
            if d.attempts == 1
        ]
        return bool(found)

    wait_for(recorded)
    return found[0]
