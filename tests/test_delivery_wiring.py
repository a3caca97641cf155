"""Wiring of the webhook-delivery ports: options from settings, and no cloud calls at build time."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from backends.gcp.tasks import CloudTasksTaskQueue, queue_path
from frontdoor.delivery_wiring import delivery_options
from frontdoor.settings import Settings
from services.delivery_policy import RETRY_DELAYS

pytestmark = pytest.mark.spec("signals.webhooks")


def test_embedded_mode_allows_loopback_receivers_and_the_cloud_does_not(tmp_path: Path) -> None:
    """DESIGN Deliveries: loopback allowed only in embedded mode."""
    embedded = delivery_options(Settings(data_dir=tmp_path))
    cloud_settings = Settings(data_dir=tmp_path).model_copy(
        update={"backend": "gcp", "google_cloud_project": "demo"}
    )
    cloud = delivery_options(cloud_settings)

    assert (embedded.allow_loopback, cloud.allow_loopback) == (True, False)
    assert embedded.retry_delays == RETRY_DELAYS


def test_loopback_webhooks_are_refused_in_the_cloud_settings() -> None:
    """DESIGN Deliveries: never loopback addresses in production."""
    with pytest.raises(ValueError, match="WEBHOOK_ALLOW_LOOPBACK"):
        Settings(backend="gcp", google_cloud_project="demo", webhook_allow_loopback=True)


def test_the_embedded_internal_token_is_kept_in_data_dir_for_every_worker_process(
    tmp_path: Path,
) -> None:
    """DESIGN Deliveries: the queue's calls are authenticated by a token all workers share."""
    first = delivery_options(Settings(data_dir=tmp_path))
    second = delivery_options(Settings(data_dir=tmp_path))

    assert len(first.internal_token) >= 32
    assert first.internal_token == second.internal_token
    assert (tmp_path / "internal_token").stat().st_mode & 0o077 == 0


def test_retry_delays_can_be_shortened_for_tests(tmp_path: Path) -> None:
    """DESIGN Deliveries: the schedule is injectable (short in tests)."""
    options = delivery_options(Settings(data_dir=tmp_path, webhook_retry_delays=[0.5, 1]))

    assert options.retry_delays == (timedelta(seconds=0.5), timedelta(seconds=1))


def test_the_cloud_tasks_queue_connects_only_when_a_task_is_sent() -> None:
    """DESIGN three ways to run: wiring needs no cloud credentials until a delivery is queued."""
    connects: list[int] = []

    def connect() -> object:
        connects.append(1)
        raise AssertionError("not expected")

    queue = CloudTasksTaskQueue(
        connect,  # type: ignore[arg-type]  # never called here
        queue_path=queue_path(project="demo", location="us-central1", queue="deliveries"),
    )
    queue.close()

    assert connects == []
