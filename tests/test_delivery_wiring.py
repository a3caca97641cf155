"""Wiring of the webhook-delivery ports: options from settings, and no cloud calls at build time."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from backends.gcp.tasks import CloudTasksTaskQueue, queue_path
from frontdoor.delivery_wiring import delivery_options, webhook_secrets_box
from frontdoor.settings import Settings
from services.delivery_policy import RETRY_DELAYS

pytestmark = pytest.mark.spec("signals.webhooks")


@pytest.mark.parametrize(
    ("host", "allow", "allowed"),
    [
        ("127.0.0.1", False, False),  # the default: a local run refuses loopback targets too
        ("127.0.0.1", True, True),
        ("::1", True, True),
        ("localhost", True, True),
        ("0.0.0.0", None, False),  # noqa: S104  # the Docker image's bind
        ("::", None, False),
        ("192.168.1.20", None, False),
    ],
)
def test_loopback_receivers_are_allowed_only_on_a_loopback_bind_that_allows_them(
    tmp_path: Path, host: str, allow: bool | None, allowed: bool
) -> None:
    """signals-api.md Allowed targets: loopback only on a loopback HOST with the setting."""
    settings = Settings(data_dir=tmp_path, host=host)
    if allow is None:  # a copy skips the start check: the wiring still refuses
        settings = settings.model_copy(update={"webhook_allow_loopback": True})
    else:
        settings = settings.model_copy(update={"webhook_allow_loopback": allow})

    assert delivery_options(settings).allow_loopback is allowed


def test_allowing_loopback_targets_on_a_public_bind_is_refused_at_start(tmp_path: Path) -> None:
    """signals-api.md Allowed targets: WEBHOOK_ALLOW_LOOPBACK needs a loopback HOST."""
    with pytest.raises(ValueError, match="HOST"):
        Settings(data_dir=tmp_path, host="0.0.0.0", webhook_allow_loopback=True)  # noqa: S104


def test_the_service_s_own_listen_address_and_urls_are_never_delivery_targets(
    tmp_path: Path,
) -> None:
    """signals-api.md Allowed targets: the service itself (its internal routes) is no target."""
    settings = Settings(
        data_dir=tmp_path,
        host="0.0.0.0",  # noqa: S104
        port=8123,
        public_base_url="https://www.acme.test",
        internal_base_url="http://frontdoor.internal:9000",
    )

    origins = delivery_options(settings).own_origins

    assert set(origins) == {
        ("0.0.0.0", 8123),  # noqa: S104
        ("127.0.0.1", 8123),
        ("www.acme.test", 443),
        ("frontdoor.internal", 9000),
    }
    assert delivery_options(Settings(data_dir=tmp_path)).retry_delays == RETRY_DELAYS


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


def test_the_webhook_secrets_key_is_kept_0600_in_data_dir_and_required_on_google_cloud(
    tmp_path: Path,
) -> None:
    """README Data at rest: where the key sealing webhook secrets comes from."""
    sealed = webhook_secrets_box(Settings(data_dir=tmp_path)).seal("whsec_x", endpoint_id="wh_1")
    again = webhook_secrets_box(Settings(data_dir=tmp_path))
    cloud = Settings(data_dir=tmp_path).model_copy(
        # Not on the emulators (whose variables an emulator test in this process may have set).
        update={"backend": "gcp", "google_cloud_project": "demo", "firestore_emulator_host": None}
    )

    assert again.open(sealed, endpoint_id="wh_1") == "whsec_x"
    assert (tmp_path / "webhook_secrets_key").stat().st_mode & 0o077 == 0
    with pytest.raises(ValueError, match="WEBHOOK_SECRETS_KEY"):
        webhook_secrets_box(cloud)
