"""The operator CLI: `pages list|history|restore|publish|unpublish` over every partner's
pages, with the API's gate errors; and records written by the CLI carry no origin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.app import create_app
from backends.bundle import Backends
from backends.ports import StoredPage
from frontdoor.generation_wiring import site_relative_url
from frontdoor.settings import Settings
from frontdoor.wiring import app_config, build_backends
from services.keys import issue_key
from tests.api.content_client import page_body
from tests.cli_runner import run

pytestmark = pytest.mark.spec("content.history")

PAGES = "/api/public/content/pages"


def served(data_dir: Path, base_url: str) -> tuple[Settings, Backends]:
    settings = Settings(data_dir=data_dir, public_base_url=base_url)
    return settings, build_backends(settings)


def two_partners_pages(data_dir: Path) -> dict[str, dict[str, str]]:
    """Partner acme writes `acme-audit` twice; bravo writes a draft `bravo-audit`."""
    settings, backends = served(data_dir, "http://127.0.0.1:9000")
    try:
        client = create_app(app_config(settings), backends).test_client()
        keys = {
            partner: {
                "x-api-key": issue_key(
                    keys=backends.keys, partner=partner, scope="content", now=backends.clock()
                )[0]
            }
            for partner in ("acme", "bravo")
        }
        client.post(PAGES, json=page_body("acme-audit", title="First"), headers=keys["acme"])
        client.patch(f"{PAGES}/acme-audit", json={"title": "Second"}, headers=keys["acme"])
        draft = page_body("bravo-audit", is_published=False)
        client.post(PAGES, json=draft, headers=keys["bravo"])
    finally:
        backends.close()
    return keys


def test_pages_list_shows_every_partner_and_filters(data_dir: Path) -> None:
    """`pages list` shows any partner's pages; --partner and --status filter."""
    two_partners_pages(data_dir)

    everything = run(data_dir, "pages", "list")
    bravo = run(data_dir, "pages", "list", "--partner", "bravo")
    drafts = run(data_dir, "pages", "list", "--status", "draft")

    assert everything.exit_code == 0, everything.output
    assert "acme-audit" in everything.output
    assert "bravo-audit" in everything.output
    assert "acme-audit" not in bravo.output
    assert "bravo-audit" in bravo.output
    assert "bravo-audit" in drafts.output
    assert "acme-audit" not in drafts.output


def test_pages_history_restore_publish_and_unpublish(data_dir: Path) -> None:
    """The operator reads a history, restores a version, publishes and unpublishes;
    the page keeps its owner and each change is a version written by the operator."""
    keys = two_partners_pages(data_dir)

    history = run(data_dir, "pages", "history", "acme-audit")
    restored = run(data_dir, "pages", "restore", "acme-audit", "1")
    unpublished = run(data_dir, "pages", "unpublish", "acme-audit")
    published = run(data_dir, "pages", "publish", "bravo-audit")
    missing = run(data_dir, "pages", "restore", "acme-audit", "9")

    assert history.exit_code == 0, history.output
    assert "Second" in history.output
    assert "acme" in history.output
    assert (
        restored.output.strip()
        == "restored version 1 of acme-audit: version 3, published, partner acme"
    )
    assert "version 4, unpublished, partner acme" in unpublished.output
    assert "version 2, published, partner bravo" in published.output
    assert missing.exit_code == 1
    settings, backends = served(data_dir, "http://127.0.0.1:9000")
    try:
        client = create_app(app_config(settings), backends).test_client()
        versions = client.get(f"{PAGES}/acme-audit/versions", headers=keys["acme"]).get_json()
    finally:
        backends.close()
    assert [(v["version"], v["source"], v["partner"]) for v in versions["versions"]] == [
        (4, "api", "operator"),
        (3, "restore", "operator"),
        (2, "api", "acme"),
        (1, "api", "acme"),
    ]
    assert versions["versions"][1]["page"]["title"] == "First"


def test_pages_publish_refuses_a_page_that_fails_the_gate_with_the_apis_issues(
    data_dir: Path,
) -> None:
    """The CLI gives the same gate errors as the API, and changes nothing."""
    _settings, backends = served(data_dir, "http://127.0.0.1:9000")
    try:
        now = backends.clock()
        off_brand = {**page_body("old-draft", is_published=False), "title": "Our synergy"}
        backends.pages.save_page(
            StoredPage(
                slug="old-draft",
                version=1,
                status="draft",
                source="api",
                page_input=off_brand,
                created_at=now,
                updated_at=now,
                owner="acme",
            ),
            expected_version=0,
        )
    finally:
        backends.close()

    refused = run(data_dir, "pages", "publish", "old-draft")

    assert refused.exit_code == 1
    assert "title: off_brand:" in refused.output
    listed = run(data_dir, "pages", "list", "--status", "draft")
    assert "old-draft" in listed.output


def test_a_page_generated_from_the_cli_serves_right_urls_on_another_port(data_dir: Path) -> None:
    """With no PUBLIC_BASE_URL, the CLI stores no origin; a service on another port
    answers the page, its job and its hero image on its own configured base URL."""
    data_dir.mkdir(parents=True)
    brief = data_dir.parent / "brief.json"
    brief.write_text(
        json.dumps({"slug": "cli-launch", "topic": "A funnel audit", "icp": "heads of growth"}),
        encoding="utf-8",
    )
    generated = run(data_dir, "pages", "generate", str(brief), "--publish", "--partner", "acme")
    assert generated.exit_code == 0, generated.output
    job_id = generated.output.split("job ", 1)[1].split()[0]

    settings, backends = served(data_dir, "http://127.0.0.1:9321")
    try:
        key, _ = issue_key(
            keys=backends.keys, partner="acme", scope="content", now=backends.clock()
        )
        client = create_app(app_config(settings), backends).test_client()
        page = client.get(f"{PAGES}/cli-launch", headers={"x-api-key": key}).get_json()["page"]
        job = client.get(f"/api/public/content/jobs/{job_id}", headers={"x-api-key": key})
        html = client.get("/p/cli-launch").text
        stored = backends.pages.get_page("cli-launch")
        image = client.get(page["hero_image_url"].removeprefix("http://127.0.0.1:9321"))
    finally:
        backends.close()

    assert stored is not None
    assert stored.hero_image_url is not None
    assert stored.hero_image_url.startswith("/assets/")
    assert page["url"] == "http://127.0.0.1:9321/p/cli-launch"
    assert page["hero_image_url"] == f"http://127.0.0.1:9321{stored.hero_image_url}"
    assert job.get_json()["job"]["hero_image_url"] == page["hero_image_url"]
    assert job.get_json()["job"]["url"].startswith("http://127.0.0.1:9321/api/public/content/jobs/")
    assert 'href="http://127.0.0.1:9321/p/cli-launch"' in html  # canonical
    assert f'content="{page["hero_image_url"]}"' in html  # og:image, absolute on this origin
    assert "127.0.0.1:8080" not in html
    assert image.status_code == 200


@pytest.mark.parametrize(
    ("blobs_base", "expected"),
    [
        ("https://www.example.com/assets", "/assets"),
        ("https://cdn.example.net/images", "https://cdn.example.net/images"),
        ("", ""),
    ],
)
def test_a_blob_prefix_on_the_sites_own_origin_is_kept_as_a_site_path(
    blobs_base: str, expected: str
) -> None:
    """In gcp mode, hero images behind the site's own CDN are stored as site paths."""
    assert site_relative_url(blobs_base, "https://www.example.com") == expected


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("publish", "no-such-page"), "no page no-such-page\n"),
        (("unpublish", "no-such-page"), "no page no-such-page\n"),
        (("restore", "no-such-page", "2"), "no version 2 of page no-such-page\n"),
    ],
)
def test_a_write_to_a_page_or_version_that_does_not_exist_says_which_and_exits_1(
    data_dir: Path, args: tuple[str, ...], said: str
) -> None:
    """Only a restore names a version; publish and unpublish name the page they did not find."""
    result = run(data_dir, "pages", *args)

    assert result.exit_code == 1
    assert result.stderr == said
