"""DESIGN Generation `callback_url`: a finished job reaches its callback the way signal webhooks
reach endpoints: a delivery attempted through the internal attempt route, signed afresh at each
attempt, checked by the SSRF guard at send time and retried on DESIGN's schedule.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

import pytest
from standardwebhooks.webhooks import Webhook

from backends.ports import Delivery
from domain.job_messages import encode_job_message
from frontdoor.generation_wiring import generation_ports
from frontdoor.settings import Settings
from services.job_callbacks import CALLBACK_ENDPOINT
from tests.conftest import CONTENT_KEY
from tests.loopback_app import Served, served
from tests.polling import wait_for
from tests.webhook_receiver import running_receiver
from workers.generation_handler import handle_generation

pytestmark = pytest.mark.spec("content.generate")

GENERATE = "/api/public/content/pages/generate"
KEY = {"x-api-key": CONTENT_KEY}


def _generate(app: Served, callback_url: str) -> tuple[str, str]:
    """POST a brief with this callback; the job id and its callback secret."""
    brief = {
        "slug": f"callback-{uuid.uuid4().hex[:8]}",
        "topic": "A pipeline audit for revenue teams",
        "icp": "RevOps leads at Series B SaaS companies",
        "callback_url": callback_url,
    }
    response = app.api.post(GENERATE, json=brief, headers=KEY)
    assert response.status_code == 201, response.get_json()
    job = response.get_json()["job"]
    return job["id"], job["callback_secret"]


def _settled(app: Served, job_id: str, status: str) -> Delivery:
    found: list[Delivery] = []

    def done() -> bool:
        delivery = app.backends.webhooks.get_delivery(f"job_{job_id}")
        found[:] = [delivery] if delivery is not None and delivery.status == status else []
        return bool(found)

    wait_for(done)
    return found[0]


def test_a_finished_job_is_posted_to_its_callback_url_signed_through_the_attempt_route(
    settings: Settings,
) -> None:
    """DESIGN Generation: the finished job is POSTed to `callback_url`, Standard Webhooks signed."""
    with running_receiver() as receiver, served(settings) as app:
        job_id, secret = _generate(app, f"{receiver.url}/hook")
        received = receiver.wait_for(1)[0]
        delivery = _settled(app, job_id, "succeeded")

    payload = Webhook(secret).verify(received.body, received.headers)
    assert received.path == "/hook"
    assert received.headers["user-agent"] == "frontdoor-webhooks/1"
    assert received.headers["webhook-id"] == delivery.delivery_id == f"job_{job_id}"
    assert payload["type"] == "page.generated"
    assert (payload["data"]["job"]["id"], payload["data"]["job"]["status"]) == (job_id, "succeeded")
    assert (delivery.endpoint_id, delivery.attempts, delivery.last_status_code) == (
        CALLBACK_ENDPOINT,
        1,
        200,
    )


def test_a_callback_answered_500_is_sent_again_with_the_same_id_and_a_fresh_timestamp(
    settings: Settings,
) -> None:
    """DESIGN Deliveries: retried with back-off, signed at each attempt, one webhook-id."""
    with running_receiver([500]) as receiver, served(settings, retry_delays=(1.5,)) as app:
        job_id, secret = _generate(app, receiver.url)
        first, second = receiver.wait_for(2)
        delivery = _settled(app, job_id, "succeeded")

    stamps = [int(r.headers["webhook-timestamp"]) for r in (first, second)]
    assert [first.status, second.status] == [500, 200]
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == f"job_{job_id}"
    assert stamps[1] > stamps[0]
    assert all(abs(stamp - r.at) < 2 for stamp, r in zip(stamps, (first, second), strict=True))
    assert Webhook(secret).verify(second.body, second.headers)["data"]["job"]["id"] == job_id
    assert (delivery.attempts, delivery.last_status_code) == (2, 200)


def test_a_callback_target_resolving_to_a_private_address_is_refused_at_send_time(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """DESIGN Deliveries: the SSRF guard runs at every attempt; failing for good is logged."""
    with served(settings) as app, caplog.at_level(logging.WARNING, logger="services.deliveries"):
        app.hosts["hooks.partner.test"] = ["10.0.0.7"]

        job_id, _ = _generate(app, "https://hooks.partner.test/done")
        failed = _settled(app, job_id, "failed")
        wait_for(
            lambda: any(getattr(r, "event", None) == "delivery_failed" for r in caplog.records)
        )

    (record,) = [r for r in caplog.records if getattr(r, "event", None) == "delivery_failed"]
    assert failed.attempts == 1
    assert failed.last_error == "refused: the host is a private or reserved address"
    assert vars(record)["delivery_id"] == f"job_{job_id}"


def test_a_duplicate_job_message_schedules_no_second_callback(settings: Settings) -> None:
    """DESIGN Generation: a redelivered finished job never sends a callback with another id."""
    with running_receiver() as receiver, served(settings) as app:
        job_id, _ = _generate(app, receiver.url)
        delivered = _settled(app, job_id, "succeeded")
        ports = generation_ports(settings, app.backends)

        for _ in range(2):
            handle_generation(
                encode_job_message(job_id), ports=ports, worker="dup", lease=timedelta(seconds=30)
            )
        again = app.backends.webhooks.get_delivery(f"job_{job_id}")

    assert again == delivered
    assert [r.headers["webhook-id"] for r in receiver.requests] == [f"job_{job_id}"]
