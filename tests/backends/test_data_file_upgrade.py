"""A SQLite data file from before owners, history and origin-free URLs opens right.

Pages get the configured owner and a history that starts at their current version; a generated
page's or a job's hero image kept on an absolute URL of the old origin is kept as its site path;
the keys earlier `make run` starts printed become bootstrap keys (revoked by the next start).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from tests.api.content_client import page_body
from tests.conftest import CONTENT_KEY

pytestmark = pytest.mark.spec("content.ownership")

OLD_SCHEMA = """
CREATE TABLE pages (
    slug TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL,
    page_input TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    published_at TEXT, hero_image_url TEXT, gate_passed INTEGER NOT NULL,
    gate_ruleset TEXT NOT NULL
);
CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY, partner TEXT NOT NULL, scope TEXT NOT NULL,
    secret_hash TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT
);
CREATE TABLE generation_jobs (job_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""
STAMP = "2026-11-01T09:00:00.000000Z"


def old_data_file(data_dir: Path) -> None:
    """An older data file, before owners, history and origin-free URLs: a page, a job, two keys."""
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / "frontdoor.sqlite3")
    conn.executescript(OLD_SCHEMA)
    old_url = "http://127.0.0.1:8080/assets/heroes/old-launch-1a2b.png"
    conn.execute(
        "INSERT INTO pages VALUES (?, 3, 'published', 'generate', ?, ?, ?, ?, ?, 1, 'gate-1')",
        ("old-launch", json.dumps(page_body("old-launch")), STAMP, STAMP, STAMP, old_url),
    )
    job = {
        "id": "job-old",
        "partner": "bootstrap",
        "brief": {"slug": "old-launch", "topic": "Audit", "icp": "heads of growth"},
        "status": "succeeded",
        "hero_image_url": old_url,
        "page_slug": "old-launch",
        "page_stored": True,
        "created_at": "2026-11-01T09:00:00Z",
        "updated_at": "2026-11-01T09:00:00Z",
    }
    conn.execute("INSERT INTO generation_jobs VALUES ('job-old', ?)", (json.dumps(job),))
    for key_id, partner in (("aaa111", "local"), ("bbb222", "acme")):
        conn.execute(
            "INSERT INTO api_keys VALUES (?, ?, 'content', 'x', ?, NULL)",
            (key_id, partner, "2026-11-01T09:00:00+00:00"),
        )
    conn.commit()
    conn.close()


def test_an_old_data_file_gives_pages_an_owner_a_history_and_origin_free_urls(
    tmp_path: Path,
) -> None:
    """Opened by this version, the old page belongs to EXISTING_PAGES_OWNER."""
    old_data_file(tmp_path / "data")
    settings = Settings(
        data_dir=tmp_path / "data",
        public_base_url="https://pages.example.com",
        content_api_key=CONTENT_KEY,
    )
    backends = build_backends(settings)
    client: FlaskClient = create_app(app_config(settings), backends).test_client()
    key = {"x-api-key": CONTENT_KEY}
    try:
        page = client.get("/api/public/content/pages/old-launch", headers=key).get_json()["page"]
        history = client.get(
            "/api/public/content/pages/old-launch/versions", headers=key
        ).get_json()
        job = client.get("/api/public/content/jobs/job-old", headers=key).get_json()["job"]
        keys = {record.key_id: record.bootstrap for record in backends.keys.list_keys()}
        stored = backends.pages.get_page("old-launch")
    finally:
        backends.close()

    assert stored is not None
    assert stored.owner == "bootstrap"
    assert stored.hero_image_url == "/assets/heroes/old-launch-1a2b.png"
    assert page["hero_image_url"] == "https://pages.example.com/assets/heroes/old-launch-1a2b.png"
    assert job["hero_image_url"] == page["hero_image_url"]
    assert [(v["version"], v["partner"]) for v in history["versions"]] == [(3, "bootstrap")]
    assert keys == {"aaa111": True, "bbb222": False}


def test_existing_pages_owner_chooses_who_gets_the_old_pages(tmp_path: Path) -> None:
    """EXISTING_PAGES_OWNER names the partner the old pages go to."""
    old_data_file(tmp_path / "data")
    settings = Settings(data_dir=tmp_path / "data", existing_pages_owner="acme")

    backends = build_backends(settings)
    try:
        stored = backends.pages.get_page("old-launch")
    finally:
        backends.close()

    assert stored is not None
    assert stored.owner == "acme"
