"""terraform/monitoring.tf counts log lines by their `event` field: `job_failed` and
`delivery_failed`. Each way a job or a delivery ends failed logs exactly one such line."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.embedded.jobs import SqliteJobStore
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.tasks import DurableTaskQueue
from backends.embedded.webhooks import SqliteWebhookStore
from backends.ports import Delivery, DeliveryOptions
from backends.secret_box import SecretBox
from domain.editors import Editor
from schemas.catalog import Brand
from schemas.content.jobs import GenerationBrief, JobRecord
from schemas.errors import Issue
from schemas.public import Company
from services.deliveries import attempt_delivery
from tests.workers.generation_ports import NOW, embedded_ports
from workers.authoring.base import ModelError
from workers.generation_handler import handle_dead_letter, handle_generation
from workers.pipeline import GenerationPorts


class DownWriter:
    """An authoring model that is down: every call is a ModelError."""

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> dict[str, Any]:
        raise ModelError("test", "unreachable")


@pytest.fixture
def db(tmp_path: Path) -> SqliteDatabase:
    return SqliteDatabase(tmp_path / "db.sqlite3")


@pytest.fixture
def ports(db: SqliteDatabase, tmp_path: Path) -> GenerationPorts:
    return embedded_ports(db, tmp_path, author=DownWriter())


def new_job(ports: GenerationPorts, job_id: str) -> str:
    brief = {"slug": job_id, "topic": "A pipeline audit", "icp": "RevOps leads"}
    ports.jobs.create_job(
        JobRecord(
            id=job_id,
            editor=Editor(partner="acme", key_id=""),
            brief=GenerationBrief.model_validate(brief),
            created_at=NOW,
            updated_at=NOW,
        )
    )
    return job_id


def events(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if getattr(r, "event", None) == name]


def test_a_job_failed_by_the_model_logs_one_job_failed_event(
    ports: GenerationPorts, caplog: pytest.LogCaptureFixture
) -> None:
    """The failed generation jobs alert: a model failure fails the job with `event`."""
    job_id = new_job(ports, "model-down")
    body = json.dumps({"job_id": job_id}).encode()

    with caplog.at_level(logging.INFO):
        handle_generation(body, ports=ports, worker="w1", lease=timedelta(seconds=60))

    (record,) = events(caplog, "job_failed")
    assert record.levelno == logging.ERROR
    assert vars(record)["job_id"] == job_id
    job = ports.jobs.get_job(job_id)
    assert job is not None
    assert job.status == "failed"


def test_a_dead_lettered_job_logs_one_job_failed_event(
    ports: GenerationPorts, caplog: pytest.LogCaptureFixture
) -> None:
    """The dead-letter handler fails the job with `event`, and a second copy logs nothing."""
    job_id = new_job(ports, "dead-lettered")
    body = json.dumps({"job_id": job_id}).encode()

    with caplog.at_level(logging.INFO):
        handle_dead_letter(body, ports=ports)
        handle_dead_letter(body, ports=ports)

    (record,) = events(caplog, "job_failed")
    assert vars(record)["job_id"] == job_id


def test_a_delivery_that_fails_for_good_logs_one_delivery_failed_event(
    db: SqliteDatabase, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The failed deliveries alert: a delivery whose endpoint is gone fails with `event`."""
    webhooks = SqliteWebhookStore(db, box=SecretBox("test-webhook-secrets-key"))
    webhooks.add_delivery(
        Delivery(
            delivery_id="msg_gone",
            endpoint_id="wh_deleted",
            event_id="crm:1",
            event_type="book_call",
            payload="{}",
            status="pending",
            created_at=NOW,
        )
    )
    options = DeliveryOptions(
        attempt_base_url="http://testserver", internal_token="t" * 32, retry_delays=()
    )
    # never started: no task runs
    tasks = DurableTaskQueue(QueueTable(queue_database(tmp_path)), retry_delays=())

    with caplog.at_level(logging.INFO):
        attempt_delivery(
            "msg_gone",
            attempt=1,
            replays=0,
            webhooks=webhooks,
            jobs=SqliteJobStore(db),
            tasks=tasks,
            options=options,
            now=NOW,
        )

    (record,) = events(caplog, "delivery_failed")
    assert vars(record)["delivery_id"] == "msg_gone"
    assert vars(record)["endpoint_id"] == "wh_deleted"
