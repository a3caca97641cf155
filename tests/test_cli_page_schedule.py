"""`frontdoor pages schedule SLUG --at TIME [--until TIME]`: the operator sets a page's
publish_at and unpublish_at as PATCH does, with the API's refusals, and the schedule's task
waits in DATA_DIR's queue file for the running service's workers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from api.app import create_app
from backends.embedded.queue_table import QueueTable, queue_database
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from services.keys import issue_key
from tests.api.content_client import page_body
from tests.cli_runner import run

pytestmark = pytest.mark.spec("content.schedule")

PAGES = "/api/public/content/pages"


def a_draft(data_dir: Path) -> None:
    """Partner acme's draft `acme-audit`, written over the Content API."""
    settings = Settings(data_dir=data_dir)
    backends = build_backends(settings, start_workers=False)
    try:
        key = issue_key(keys=backends.keys, partner="acme", scope="content", now=backends.clock())
        client = create_app(app_config(settings), backends).test_client()
        client.post(
            PAGES, json=page_body("acme-audit", is_published=False), headers={"x-api-key": key[0]}
        )
    finally:
        backends.close()


def stored(data_dir: Path) -> dict[str, object]:
    backends = build_backends(Settings(data_dir=data_dir), start_workers=False)
    try:
        page = backends.pages.get_page("acme-audit")
    finally:
        backends.close()
    assert page is not None
    return {"status": page.status, "owner": page.owner, **page.page_input}


def test_pages_schedule_sets_the_times_and_queues_the_task_for_the_service(
    data_dir: Path,
) -> None:
    """Content API "Scheduled publishing", from the CLI: the page is scheduled, its owner kept."""
    a_draft(data_dir)
    at = (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0)
    until = at + timedelta(days=7)

    result = run(
        data_dir,
        "pages",
        "schedule",
        "acme-audit",
        "--at",
        at.isoformat(),
        "--until",
        until.isoformat(),
    )

    page = stored(data_dir)
    assert result.exit_code == 0, result.output
    assert "scheduled acme-audit: version 2, scheduled, partner acme" in result.output
    assert (page["status"], page["owner"]) == ("scheduled", "acme")
    assert datetime.fromisoformat(str(page["publish_at"])) == at
    assert datetime.fromisoformat(str(page["unpublish_at"])) == until
    assert QueueTable(queue_database(data_dir)).waiting("tasks") == 2


def test_pages_schedule_refuses_a_time_in_the_past_with_the_apis_issue(data_dir: Path) -> None:
    """Content API "Scheduled publishing": the CLI refuses what the API refuses, nothing queued."""
    a_draft(data_dir)

    result = run(data_dir, "pages", "schedule", "acme-audit", "--at", "2020-01-01T09:00:00Z")

    assert result.exit_code == 1
    assert "publish_at: in_the_past" in result.output
    assert stored(data_dir)["status"] == "draft"
    assert QueueTable(queue_database(data_dir)).waiting("tasks") == 0


def test_pages_schedule_cancel_clears_the_times(data_dir: Path) -> None:
    """Content API "Scheduled publishing": --cancel, as PATCH with nulls."""
    a_draft(data_dir)
    at = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    run(data_dir, "pages", "schedule", "acme-audit", "--at", at)

    result = run(data_dir, "pages", "schedule", "acme-audit", "--cancel")

    page = stored(data_dir)
    assert result.exit_code == 0, result.output
    assert page["status"] == "draft"
    assert "publish_at" not in page


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--at", "2026-12-01T09:00:00"],
        ["--at", "soon"],
        ["--cancel", "--at", "2026-12-01T09:00:00Z"],
    ],
)
def test_pages_schedule_without_a_time_it_can_read_is_a_usage_error(
    data_dir: Path, args: list[str]
) -> None:
    """The CLI's own check: one or both times, each with its offset, or --cancel alone."""
    result = run(data_dir, "pages", "schedule", "acme-audit", *args)

    assert result.exit_code == 2
