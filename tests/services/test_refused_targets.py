"""Delivery targets this process may not reach: a loopback receiver stored while a local run
allowed it and now delivered from a public bind, the service itself, and what an attempt that
got no answer records. A real listening socket shows whether any connection was made."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from backends.bundle import Backends
from backends.ports import HttpTask, WebhookEndpoint, WebhookSecret
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from services.deliveries import attempt_delivery, schedule_deliveries
from services.signing import new_secret

pytestmark = pytest.mark.spec("signals.webhooks")

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
EVENT = {"id": "crm:1", "type": "book_call", "person": {}, "account": {}, "page": {}}


class KeptTasks:
    """A TaskQueue that keeps what is queued (the attempt is run by the test itself)."""

    def __init__(self) -> None:
        self.tasks: list[HttpTask] = []

    def enqueue(self, task: HttpTask) -> bool:
        self.tasks.append(task)
        return True


@contextmanager
def listener(*, speak: bytes | None = None) -> Iterator[tuple[int, list[int]]]:
    """A loopback TCP port and the count of connections it accepted (it answers `speak`, if
    given, and closes: a service that is not HTTP)."""
    accepted: list[int] = []
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(1)
            with conn:
                if speak is not None:
                    conn.sendall(speak)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port, accepted
    finally:
        server.close()
        thread.join(timeout=5)


@pytest.fixture
def public_bind(tmp_path: Path) -> Iterator[Backends]:
    """The backends of a process listening on every interface (the Docker image's HOST)."""
    settings = Settings(data_dir=tmp_path / "data", host="0.0.0.0", port=8123)  # noqa: S104
    built = build_backends(settings)
    yield built
    built.close()


def _stored_endpoint(backends: Backends, url: str) -> str:
    """An endpoint row as a local run that allowed loopback targets stored it."""
    endpoint = WebhookEndpoint(
        endpoint_id="wh_0123456789ab",
        partner="bootstrap",
        url=url,
        types=(),
        description="",
        secrets=(WebhookSecret(value=new_secret(), created_at=NOW),),
        created_at=NOW,
    )
    backends.webhooks.add_endpoint(endpoint)
    return endpoint.endpoint_id


def _attempt(backends: Backends, *, event_id: str = "crm:1") -> str | None:
    """Schedule an event to the stored endpoint and run its first attempt; its last_error."""
    options = backends.delivery_options
    tasks = KeptTasks()
    (delivery_id,) = schedule_deliveries(
        {**EVENT, "id": event_id},
        webhooks=backends.webhooks,
        tasks=tasks,
        options=options,
        now=NOW,
    )
    done = attempt_delivery(
        delivery_id,
        attempt=1,
        replays=0,
        webhooks=backends.webhooks,
        jobs=backends.jobs,
        tasks=tasks,
        options=options,
        now=NOW,
    )
    assert done is not None
    return done.last_error if done.status == "failed" else f"{done.status}: {done.last_error}"


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "[::ffff:127.0.0.1]"]
)
def test_a_stored_loopback_target_is_refused_from_a_public_bind_without_a_connection(
    public_bind: Backends, host: str
) -> None:
    """signals-api.md Allowed targets: on a public bind a loopback target fails at once as
    refused, and nothing connects to it."""
    with listener() as (port, accepted):
        _stored_endpoint(public_bind, f"http://{host}:{port}/in")

        error = _attempt(public_bind)

    assert error in {"refused: the URL must use https", "refused: the host is a loopback address"}
    assert accepted == []


def test_the_service_itself_is_refused_even_where_loopback_targets_are_allowed(
    tmp_path: Path,
) -> None:
    """signals-api.md Allowed targets: the service's own port (its internal routes) is no target."""
    with listener() as (port, accepted):
        settings = Settings(data_dir=tmp_path / "data", port=port, webhook_allow_loopback=True)
        built = build_backends(settings)
        try:
            _stored_endpoint(built, f"http://127.1:{port}/internal/deliveries/x/attempt")

            error = _attempt(built)
        finally:
            built.close()

    assert error == "refused: the host is this service itself"
    assert accepted == []


def test_a_receiver_that_is_not_http_and_a_closed_port_record_the_same_error(
    tmp_path: Path,
) -> None:
    """signals-api.md Retries: an attempt with no answer records `connection failed`, never what
    the target said or how the connection ended (which would map the ports behind it)."""
    settings = Settings(data_dir=tmp_path / "data", webhook_allow_loopback=True)
    built = build_backends(settings)
    try:
        with listener(speak=b"SSH-2.0-OpenSSH_9.6\r\n") as (port, accepted):
            _stored_endpoint(built, f"http://127.0.0.1:{port}/in")
            not_http = _attempt(built)
        closed = _attempt(built, event_id="crm:2")  # the same endpoint, its port closed now
    finally:
        built.close()

    assert accepted  # the first one reached a listener, which answered in another protocol
    assert not_http == closed == "pending: connection failed"
