"""The pure rules of webhook deliveries: ids, filters, rotation, retry schedule and outcomes."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from backends.ports import Delivery, WebhookEndpoint, WebhookSecret
from services.delivery_policy import (
    JITTER,
    RETRY_DELAYS,
    AttemptResult,
    classify,
    delivery_id_for,
    endpoint_wants,
    next_delivery_state,
    replayed,
    retry_delay,
    rotate_secrets,
    signing_secrets,
)

pytestmark = pytest.mark.spec("signals.webhooks")

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def _delivery(**changes: object) -> Delivery:
    base = Delivery(
        delivery_id="msg_abc",
        endpoint_id="wh_1",
        event_id="site:1",
        event_type="book_call",
        payload="{}",
        status="pending",
        created_at=NOW,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]  # test overrides


def _endpoint(*, types: tuple[str, ...] = (), disabled: bool = False) -> WebhookEndpoint:
    return WebhookEndpoint(
        endpoint_id="wh_1",
        partner="acme",
        url="https://hooks.example.com",
        types=types,
        description="",
        secrets=(WebhookSecret(value="whsec_a", created_at=NOW),),
        created_at=NOW,
        disabled_at=NOW if disabled else None,
    )


def test_the_retry_schedule_follows_design_within_the_jitter() -> None:
    """DESIGN Deliveries: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, with jitter."""
    waits = [retry_delay("msg_abc", attempts_made=n, delays=RETRY_DELAYS) for n in range(1, 10)]

    for wait, base in zip(waits, RETRY_DELAYS, strict=True):
        assert wait is not None
        assert base * (1 - JITTER) <= wait <= base * (1 + JITTER)
    assert timedelta(days=2) < sum(RETRY_DELAYS, timedelta()) < timedelta(days=4)


def test_the_jitter_is_seeded_per_delivery_so_a_rerun_computes_the_same_time() -> None:
    """DESIGN Deliveries: retries with jitter; a retried handler must not reschedule differently."""
    first = retry_delay("msg_abc", attempts_made=3, delays=RETRY_DELAYS)
    again = retry_delay("msg_abc", attempts_made=3, delays=RETRY_DELAYS)
    others = {retry_delay(f"msg_{i}", attempts_made=3, delays=RETRY_DELAYS) for i in range(20)}

    assert first == again
    assert len(others) > 10


def test_no_retry_is_left_after_the_last_delay() -> None:
    """DESIGN Deliveries: after the 24 h wait the delivery fails."""
    assert retry_delay("msg_abc", attempts_made=10, delays=RETRY_DELAYS) is None
    assert retry_delay("msg_abc", attempts_made=0, delays=RETRY_DELAYS) is None


@pytest.mark.parametrize(
    ("result", "outcome"),
    [
        (AttemptResult(200), "succeeded"),
        (AttemptResult(204), "succeeded"),
        (AttemptResult(410), "gone"),
        (AttemptResult(500), "retry"),
        (AttemptResult(404), "retry"),
        (AttemptResult(301), "retry"),
        (AttemptResult(None, "timeout"), "retry"),
    ],
)
def test_answers_are_classified_as_success_gone_or_retry(
    result: AttemptResult, outcome: str
) -> None:
    """DESIGN Deliveries: 2xx delivers, 410 disables the endpoint, anything else is retried."""
    assert classify(result) == outcome


def test_a_failed_attempt_schedules_the_next_one_and_records_the_answer() -> None:
    """DESIGN Deliveries: failed attempts are retried with back-off."""
    after = next_delivery_state(
        _delivery(), AttemptResult(500, "HTTP 500"), now=NOW, delays=RETRY_DELAYS
    )

    assert (after.status, after.attempts, after.last_status_code, after.last_error) == (
        "pending",
        1,
        500,
        "HTTP 500",
    )
    assert after.next_attempt_at is not None
    assert NOW + timedelta(seconds=4) <= after.next_attempt_at <= NOW + timedelta(seconds=6)


def test_the_last_failed_attempt_fails_the_delivery() -> None:
    """DESIGN Deliveries: failed deliveries are listed; they stop being retried."""
    after = next_delivery_state(
        _delivery(attempts=9), AttemptResult(503, "HTTP 503"), now=NOW, delays=RETRY_DELAYS
    )

    assert (after.status, after.attempts, after.next_attempt_at) == ("failed", 10, None)


def test_a_2xx_succeeds_and_a_410_fails_at_once() -> None:
    """DESIGN Deliveries: 410 from the receiver ends the delivery (and disables the endpoint)."""
    ok = next_delivery_state(_delivery(), AttemptResult(200), now=NOW, delays=RETRY_DELAYS)
    gone = next_delivery_state(
        _delivery(), AttemptResult(410, "HTTP 410"), now=NOW, delays=RETRY_DELAYS
    )

    assert (ok.status, ok.last_error, ok.last_attempt_at) == ("succeeded", None, NOW)
    assert (gone.status, gone.next_attempt_at) == ("failed", None)


def test_a_replay_starts_a_new_round_with_the_same_id() -> None:
    """DESIGN Deliveries: failed deliveries can be replayed; the webhook-id stays the same."""
    again = replayed(_delivery(status="failed", attempts=10), now=NOW)

    assert (again.delivery_id, again.status, again.attempts, again.replays) == (
        "msg_abc",
        "pending",
        0,
        1,
    )


def test_the_delivery_id_is_stable_per_endpoint_and_event() -> None:
    """DESIGN Deliveries: receivers dedupe by webhook-id, which never changes across retries."""
    one = delivery_id_for(endpoint_id="wh_1", event_id="site:1")

    assert one == delivery_id_for(endpoint_id="wh_1", event_id="site:1")
    assert one != delivery_id_for(endpoint_id="wh_2", event_id="site:1")
    assert one.startswith("msg_")


def test_an_endpoint_takes_its_types_and_a_disabled_one_takes_none() -> None:
    """DESIGN Deliveries: `types` filters what an endpoint receives; absent means every type."""
    assert endpoint_wants(_endpoint(), "email_open")
    assert endpoint_wants(_endpoint(types=("book_call",)), "book_call")
    assert not endpoint_wants(_endpoint(types=("book_call",)), "email_open")
    assert not endpoint_wants(_endpoint(disabled=True), "book_call")


def test_rotation_keeps_the_previous_secret_signing_for_the_overlap() -> None:
    """DESIGN Deliveries: secrets are rotatable with overlap."""
    old = (WebhookSecret(value="whsec_old", created_at=NOW - timedelta(days=3)),)

    rotated = rotate_secrets(old, new_value="whsec_new", now=NOW, overlap=timedelta(hours=24))

    assert [s.value for s in rotated] == ["whsec_new", "whsec_old"]
    assert signing_secrets(rotated, now=NOW + timedelta(hours=23)) == ["whsec_new", "whsec_old"]
    assert signing_secrets(rotated, now=NOW + timedelta(hours=25)) == ["whsec_new"]


def test_rotating_twice_drops_secrets_whose_overlap_ended() -> None:
    """DESIGN Deliveries: only the current secret and those still in overlap are kept."""
    first = rotate_secrets(
        (WebhookSecret(value="whsec_1", created_at=NOW),),
        new_value="whsec_2",
        now=NOW,
        overlap=timedelta(hours=1),
    )

    second = rotate_secrets(
        first, new_value="whsec_3", now=NOW + timedelta(hours=2), overlap=timedelta(hours=1)
    )

    assert [s.value for s in second] == ["whsec_3", "whsec_2"]
