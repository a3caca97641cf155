"""`frontdoor pages stats SLUG`: a page's funnel printed with a small bar chart."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from api.app import create_app
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from schemas.signals.events import NewEvent, Page
from tests.api.content_client import page_body
from tests.cli_runner import run
from tests.conftest import CONTENT_KEY

pytestmark = pytest.mark.spec("content.page_stats")


def a_page_with_traffic(data_dir: Path) -> None:
    """Page `audit`: four views from three visitors (two on variant bold), one lead form."""
    settings = Settings(data_dir=data_dir, content_api_key=CONTENT_KEY)
    backends = build_backends(settings)
    try:
        client = create_app(app_config(settings), backends).test_client()
        created = client.post(
            "/api/public/content/pages", json=page_body("audit"), headers={"x-api-key": CONTENT_KEY}
        )
        assert created.status_code == 201
        now = backends.clock()

        def event(kind: str, visitor: str, **properties: str) -> NewEvent:
            return NewEvent(
                id=f"site:{uuid.uuid4().hex}",
                type=kind,
                source="site",
                occurred_at=now,
                page=Page(path="/p/audit"),
                properties={"visitor_id": visitor, **properties},
            )

        backends.signals.store_events(
            [
                event("page_view", "visitor-a", variant="bold"),
                event("page_view", "visitor-a", variant="bold"),
                event("page_view", "visitor-b", variant="bold"),
                event("page_view", "visitor-c"),
                event("lead_form", "visitor-c"),
            ]
        )
    finally:
        backends.close()


def test_pages_stats_prints_the_funnel_with_bars_and_the_rows_of_by(data_dir: Path) -> None:
    a_page_with_traffic(data_dir)

    result = run(data_dir, "pages", "stats", "audit", "--days", "7", "--by", "variant")

    assert result.exit_code == 0, result.output
    lines = [line.split() for line in result.output.splitlines()]
    assert ["page", "views", "4", "█" * 30] in lines
    assert ["unique", "visitors", "3", "█" * 22] in lines
    assert ["lead", "forms", "1", "█" * 8] in lines
    assert ["conversion:", "33.33%", "(lead", "forms", "per", "unique", "visitor)"] in lines
    rows = [line for line in result.output.splitlines() if "bold" in line or "control" in line]
    assert [r.strip("│ ").split()[:6] for r in rows] == [
        ["bold", "│", "3", "│", "2", "│"],
        ["control", "│", "1", "│", "1", "│"],
    ]


def test_pages_stats_of_an_unknown_page_or_a_bad_range_says_why_and_fails(
    data_dir: Path,
) -> None:
    a_page_with_traffic(data_dir)

    unknown = run(data_dir, "pages", "stats", "nothing-here")
    too_long = run(data_dir, "pages", "stats", "audit", "--days", "400")

    assert (unknown.exit_code, unknown.output.strip()) == (1, "no page nothing-here")
    assert too_long.exit_code == 2
    assert "--days: a whole number from 1 to 366 (out_of_range)" in too_long.output
