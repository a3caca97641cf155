"""Contract suite for PageStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.pages import SqlitePageStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, PageStore, StoredPage, UnavailableError

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PageStore]:
    if request.param == "sqlite":
        yield SqlitePageStore(SqliteDatabase(tmp_path / "pages.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.pages import FirestorePageStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestorePageStore(firestore_client(project="demo-frontdoor"), prefix=prefix)


def _page(
    slug: str = "launch", *, version: int = 1, at: datetime = NOW, **changes: object
) -> StoredPage:
    page = StoredPage(
        slug=slug,
        version=version,
        status="published",
        source="api",
        page_input={
            "slug": slug,
            "title": "Launch",
            "blocks": [{"type": "hero", "title": "T", "sub": "S"}],
        },
        created_at=NOW,
        updated_at=at,
        published_at=NOW,
        hero_image_url="https://img.example.com/a.png",
        gate_passed=True,
        gate_ruleset="gate-1+brand-x",
    )
    return replace(page, **changes)  # type: ignore[arg-type]


@pytest.mark.spec("content.create")
def test_a_saved_page_reads_back_equal(store: PageStore) -> None:
    """SPEC Content API: POST creates a page by slug."""
    page = _page()

    store.save_page(page, expected_version=0)

    assert store.get_page("launch") == page


def test_an_unknown_slug_reads_as_none(store: PageStore) -> None:
    """SPEC Content API: GET pages/{slug} 404 for an unknown slug."""
    assert store.get_page("nope") is None


def test_saving_over_the_expected_version_replaces_the_page(store: PageStore) -> None:
    """SPEC Content API: POST replaces by slug; each write is a new version."""
    store.save_page(_page(), expected_version=0)
    newer = _page(
        version=2, at=NOW + timedelta(minutes=1), page_input={"slug": "launch", "title": "New"}
    )

    store.save_page(newer, expected_version=1)

    assert store.get_page("launch") == newer


@pytest.mark.parametrize("expected", [0, 2, 7])
def test_a_stale_expected_version_conflicts_and_changes_nothing(
    store: PageStore, expected: int
) -> None:
    """DESIGN Pages: a write that fails leaves the stored page as it was."""
    original = _page()
    store.save_page(original, expected_version=0)

    with pytest.raises(ConflictError):
        store.save_page(_page(version=expected + 1, status="draft"), expected_version=expected)

    assert store.get_page("launch") == original


def test_creating_needs_expected_version_zero(store: PageStore) -> None:
    """DESIGN Pages: version 0 means the slug must not exist yet."""
    with pytest.raises(ConflictError):
        store.save_page(_page(version=2), expected_version=1)

    assert store.get_page("launch") is None


def test_pages_list_newest_first_and_filter_by_status(store: PageStore) -> None:
    """DESIGN Pages: GET list is newest first with a status filter."""
    store.save_page(_page("a", at=NOW), expected_version=0)
    store.save_page(_page("b", at=NOW + timedelta(minutes=2), status="draft"), expected_version=0)
    store.save_page(_page("c", at=NOW + timedelta(minutes=1)), expected_version=0)

    everything = store.list_pages()
    published = store.list_pages(status="published")
    drafts = store.list_pages(status="draft")

    assert [p.slug for p in everything.pages] == ["b", "c", "a"]
    assert [p.slug for p in published.pages] == ["c", "a"]
    assert [p.slug for p in drafts.pages] == ["b"]
    assert everything.next_cursor is None


def test_the_cursor_walks_every_page_once_even_with_equal_times(store: PageStore) -> None:
    """DESIGN Pages: the list pages through a cursor with no gap and no duplicate."""
    slugs = [f"p{i}" for i in range(7)]
    for i, slug in enumerate(slugs):
        store.save_page(_page(slug, at=NOW + timedelta(seconds=i // 3)), expected_version=0)

    seen: list[str] = []
    cursor: str | None = None
    for _ in range(10):
        batch = store.list_pages(limit=3, cursor=cursor)
        seen += [p.slug for p in batch.pages]
        cursor = batch.next_cursor
        if cursor is None:
            break

    assert seen == ["p6", "p5", "p4", "p3", "p2", "p1", "p0"]


def test_a_forged_cursor_is_refused(store: PageStore) -> None:
    """DESIGN Pages: a cursor is opaque; one we did not issue is a ValueError."""
    with pytest.raises(ValueError, match="cursor"):
        store.list_pages(cursor="not-a-cursor!")


def test_two_concurrent_writers_of_one_slug_never_lose_an_update(store: PageStore) -> None:
    """DESIGN Pages: version check inside a transaction; every read-modify-write lands once."""
    store.save_page(_page(page_input={"slug": "launch", "edits": []}), expected_version=0)
    rounds = 3

    def writer(name: str) -> None:
        done = 0
        while done < rounds:
            current = store.get_page("launch")
            assert current is not None
            edits = [*current.page_input["edits"], f"{name}{done}"]
            changed = replace(
                current, version=current.version + 1, page_input={"slug": "launch", "edits": edits}
            )
            try:
                store.save_page(changed, expected_version=current.version)
            except (ConflictError, UnavailableError):
                # A lost race, or contention past the store's rounds (a 503 to retry)
                continue
            done += 1

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    final = store.get_page("launch")
    assert final is not None
    assert final.version == 1 + 2 * rounds
    assert sorted(final.page_input["edits"]) == ["a0", "a1", "a2", "b0", "b1", "b2"]
