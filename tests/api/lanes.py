"""Two partners and the company's own team on one app, on SQLite or on the Firestore emulator.

`lane_backends` runs the HTTP app on the embedded adapters, or with the pages, variants,
experiments, jobs, Idempotency-Key, key and webhook stores on the Firestore emulator (a
collection prefix of its own) and generation workers started on those ports. Import the
fixtures into a test module.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from backends.embedded.job_queue import DurableJobQueue
from backends.embedded.queue_table import QueueTable, queue_database
from backends.secret_box import SecretBox
from frontdoor.generation_wiring import start_embedded_workers
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import issue_key
from tests.conftest import PROJECT

PAGES = "/api/public/content/pages"


@dataclass(frozen=True)
class Lanes:
    """The keys of partner A, partner B and an operator's content_admin key, as headers."""

    a: dict[str, str]
    b: dict[str, str]
    admin: dict[str, str]
    a_signals: dict[str, str]
    b_signals: dict[str, str]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def lane_backends(
    request: pytest.FixtureRequest, settings: Settings, backends: Backends
) -> Iterator[Backends]:
    if request.param == "sqlite":
        yield backends
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.experiments import FirestoreExperimentStore
    from backends.gcp.firestore import firestore_client
    from backends.gcp.idempotency import FirestoreIdempotencyStore
    from backends.gcp.jobs import FirestoreJobStore
    from backends.gcp.keys import FirestoreKeyStore
    from backends.gcp.pages import FirestorePageStore
    from backends.gcp.variants import FirestoreVariantStore
    from backends.gcp.webhooks import FirestoreWebhookStore

    client = firestore_client(project=PROJECT)
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    # A queue file of its own: the SQLite backends' workers never take these jobs.
    queue = DurableJobQueue(QueueTable(queue_database(settings.data_dir / "lanes")), threads=1)
    swapped = dataclasses.replace(
        backends,
        pages=FirestorePageStore(client, prefix=prefix),
        variants=FirestoreVariantStore(client, prefix=prefix),
        experiments=FirestoreExperimentStore(client, prefix=prefix),
        jobs=FirestoreJobStore(client, prefix=prefix),
        idempotency=FirestoreIdempotencyStore(client, prefix=prefix),
        keys=FirestoreKeyStore(client, prefix=prefix),
        webhooks=FirestoreWebhookStore(
            client, prefix=prefix, box=SecretBox("test-webhook-secrets-key")
        ),
        job_queue=queue,
    )
    start_embedded_workers(settings, swapped)
    yield swapped
    queue.close()


@pytest.fixture
def lane_app(settings: Settings, lane_backends: Backends) -> Flask:
    return create_app(app_config(settings), lane_backends)


@pytest.fixture
def lane_client(lane_app: Flask) -> FlaskClient:
    return lane_app.test_client()


@pytest.fixture
def lanes(lane_backends: Backends) -> Lanes:
    def key(partner: str, scope: str) -> dict[str, str]:
        raw, _record = issue_key(
            keys=lane_backends.keys,
            partner=partner,
            scope=scope,  # type: ignore[arg-type]  # one of SCOPES, spelled out here
            now=lane_backends.clock(),
        )
        return {"x-api-key": raw}

    return Lanes(
        a=key("acme", "content"),
        b=key("bravo", "content"),
        admin=key("ops", "content_admin"),
        a_signals=key("acme", "signals"),
        b_signals=key("bravo", "signals"),
    )
