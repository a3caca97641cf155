"""Two writers of one page at the same moment, over HTTP on SQLite.

`RivalFirst` is the real page store with one interleaving made certain: just before this
request's save, another writer's save of the same slug lands, so the request's save is refused
as stale (as on a busy service). The request then answers as if it had come a moment later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from backends.bundle import Backends
from backends.ports import PageList, PageStatus, PageStore, StoredPage, VersionList
from frontdoor.settings import Settings
from frontdoor.wiring import app_config
from services.keys import issue_key
from tests.api.content_client import PAGES, page_body
from tests.e2e.sample_page import store_page

pytestmark = pytest.mark.spec("content.ownership")


class RivalFirst:
    """A PageStore whose next save is preceded by `rival(store)`, another writer's save."""

    def __init__(self, store: PageStore) -> None:
        self.store = store
        self.rival: Callable[[PageStore], object] | None = None

    def get_page(self, slug: str) -> StoredPage | None:
        return self.store.get_page(slug)

    def list_pages(
        self,
        *,
        status: PageStatus | None = None,
        cursor: str | None = None,
        limit: int = 50,
        owner: str | None = None,
    ) -> PageList:
        return self.store.list_pages(status=status, cursor=cursor, limit=limit, owner=owner)

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        rival, self.rival = self.rival, None
        if rival is not None:
            rival(self.store)
        return self.store.save_page(page, expected_version=expected_version)

    def list_versions(
        self, slug: str, *, cursor: str | None = None, limit: int = 50
    ) -> VersionList:
        return self.store.list_versions(slug, cursor=cursor, limit=limit)

    def stored_bytes(self, owner: str) -> int:
        return self.store.stored_bytes(owner)

    def get_version(self, slug: str, version: int) -> StoredPage | None:
        return self.store.get_version(slug, version)


@pytest.fixture
def store(backends: Backends) -> RivalFirst:
    return RivalFirst(backends.pages)


@pytest.fixture
def http(settings: Settings, backends: Backends, store: RivalFirst) -> FlaskClient:
    app = create_app(app_config(settings), dataclasses.replace(backends, pages=store))
    return app.test_client()


def key(backends: Backends, partner: str) -> dict[str, str]:
    raw, _ = issue_key(keys=backends.keys, partner=partner, scope="content", now=backends.clock())
    return {"x-api-key": raw}


def body(answer: Any) -> tuple[int, str | None, str | None]:
    return answer.status_code, answer.get_json().get("error"), answer.headers.get("ETag")


def test_a_create_only_post_that_loses_the_slug_to_another_partner_is_409_slug_taken(
    http: FlaskClient, store: RivalFirst, backends: Backends
) -> None:
    """content-api.md Ownership: B's `If-None-Match: *` POST, with A's POST of the same new
    slug landing first, answers 409 `slug_taken` as it would a moment later; never a 412 that
    sends B to GET a page it cannot see."""
    b = key(backends, "bravo")
    store.rival = lambda pages: store_page(pages, "launch", owner="acme", title="Acme's")

    answer = http.post(PAGES, json=page_body("launch"), headers={**b, "If-None-Match": "*"})

    assert body(answer) == (409, "slug_taken", None)
    assert [(i["field"], i["code"]) for i in answer.get_json()["issues"]] == [
        ("slug", "slug_taken")
    ]
    page = backends.pages.get_page("launch")
    assert page is not None
    assert (page.owner, page.version, page.page_input["title"]) == ("acme", 1, "Acme's")


def test_an_if_match_patch_that_loses_to_another_write_is_412_with_the_current_etag(
    http: FlaskClient, store: RivalFirst, backends: Backends
) -> None:
    """content-api.md The stored record: a stale If-Match answers 412 with the current ETag,
    also when the other write landed between this request's read and its save."""
    a = key(backends, "acme")
    http.post(PAGES, json=page_body("launch"), headers=a)
    store.rival = lambda pages: store_page(pages, "launch", owner="acme", title="Theirs")

    answer = http.patch(
        f"{PAGES}/launch", json={"title": "Mine"}, headers={**a, "If-Match": '"v1"'}
    )

    assert body(answer) == (412, "precondition_failed", '"v2"')
    page = backends.pages.get_page("launch")
    assert page is not None
    assert (page.version, page.page_input["title"]) == (2, "Theirs")


def test_an_if_match_star_patch_that_loses_a_race_applies_to_the_newest_version(
    http: FlaskClient, store: RivalFirst, backends: Backends
) -> None:
    """`If-Match: *` asks only that the page exists, which still holds after another write: the
    merge patch is applied over the newest version, as without If-Match."""
    a = key(backends, "acme")
    http.post(PAGES, json=page_body("launch"), headers=a)
    store.rival = lambda pages: store_page(
        pages, "launch", owner="acme", description="Kept from theirs"
    )

    answer = http.patch(f"{PAGES}/launch", json={"title": "Mine"}, headers={**a, "If-Match": "*"})

    assert body(answer) == (200, None, '"v3"')
    page = answer.get_json()["page"]
    assert (page["title"], page["description"]) == ("Mine", "Kept from theirs")
