"""Scheduled publishing through the real task queues: the app on a loopback port, its page
schedule's tasks on the durable task queue over SQLite (embedded), and on the Cloud Tasks
emulator over the Firestore emulator (Google Cloud), each calling the app's schedule route
at the page's time.

The Cloud Tasks emulator cannot dedupe task names or delete a task (notes/gcp-emulators.md
§4): the rescheduled page's first task is dispatched all the same, and the page must ignore it.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from backends.bundle import Backends
from backends.ports import TaskQueue
from frontdoor.settings import Settings
from tests.api.content_client import AUTH, PAGES, page_body
from tests.conftest import PROJECT
from tests.loopback_app import Served, served
from tests.polling import wait_for

pytestmark = pytest.mark.spec("content.schedule")


@pytest.fixture(params=["embedded", pytest.param("gcp", marks=pytest.mark.emulator)])
def app_on_queue(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Served]:
    if request.param == "embedded":
        with served(settings) as running:
            yield running
        return
    request.getfixturevalue("firestore_emulator")
    tasks_emulator = request.getfixturevalue("tasks_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.pages import FirestorePageStore
    from backends.gcp.tasks import CloudTasksTaskQueue, cloud_tasks_client, queue_path

    path = queue_path(project=PROJECT, location="us-central1", queue=f"q{uuid.uuid4().hex[:12]}")
    cloud = CloudTasksTaskQueue(
        lambda: cloud_tasks_client(emulator_host=tasks_emulator.host),
        queue_path=path,
        create_queue=True,
    )
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    pages = FirestorePageStore(firestore_client(project=PROJECT), prefix=prefix)
    queue: Callable[[Backends], TaskQueue] = lambda _backends: cloud  # noqa: E731  # one queue
    with served(
        settings, queue=queue, adapt=lambda b: dataclasses.replace(b, pages=pages)
    ) as running:
        yield running
    cloud.close()


def _page(app: Served, slug: str) -> dict[str, Any]:
    page: dict[str, Any] = app.api.get(f"{PAGES}/{slug}", headers=AUTH).get_json()["page"]
    return page


def test_a_rescheduled_page_goes_live_at_its_new_time_by_itself(app_on_queue: Served) -> None:
    """Content API "Scheduled publishing": a durable task on each backend's queue publishes
    the page at publish_at; the task of the time it replaced changes nothing."""
    # Seconds ahead, not less: the first write on the emulators takes a second or two.
    first = datetime.now(UTC) + timedelta(seconds=6)
    second = first + timedelta(seconds=2)
    app_on_queue.api.post(PAGES, json=page_body(publish_at=first.isoformat()), headers=AUTH)

    moved = app_on_queue.api.patch(
        f"{PAGES}/growth-audit", json={"publish_at": second.isoformat()}, headers=AUTH
    )
    listed = app_on_queue.api.get(PAGES, query_string={"status": "scheduled"}, headers=AUTH)
    wait_for(
        lambda: _page(app_on_queue, "growth-audit")["status"] == "published",
        timeout=20,
        interval=0.1,
        what="the page published by its task",
    )

    page = _page(app_on_queue, "growth-audit")
    assert moved.get_json()["page"]["status"] == "scheduled"
    assert [p["slug"] for p in listed.get_json()["pages"]] == ["growth-audit"]
    assert page["version"] == 3  # POST, PATCH, the schedule's publish: no other write
    assert datetime.fromisoformat(page["published_at"]) >= second
    assert app_on_queue.api.get("/p/growth-audit").status_code == 200


def test_unpublish_at_takes_the_page_down_by_itself(app_on_queue: Served) -> None:
    """Content API "Scheduled publishing": unpublish_at's task comes due on each backend."""
    at = datetime.now(UTC) + timedelta(seconds=3)

    posted = app_on_queue.api.post(PAGES, json=page_body(unpublish_at=at.isoformat()), headers=AUTH)
    wait_for(
        lambda: _page(app_on_queue, "growth-audit")["status"] == "unpublished",
        timeout=20,
        interval=0.1,
        what="the page taken down by its task",
    )

    assert posted.get_json()["page"]["status"] == "published"
    assert _page(app_on_queue, "growth-audit")["unpublish_at"] is None
    assert app_on_queue.api.get("/p/growth-audit").status_code == 404
