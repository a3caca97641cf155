"""Contract suite for PageStore's owners and history, on SQLite and the emulator."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.embedded.pages import SqlitePageStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, PageStore, QuotaExceededError, StoredPage

pytestmark = pytest.mark.spec("content.history")

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
Factory = Callable[..., PageStore]


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Factory]:
    if request.param == "sqlite":
        db = SqliteDatabase(tmp_path / "pages.sqlite3")
        yield lambda keep_versions=0, quota_bytes=0: SqlitePageStore(
            db, keep_versions=keep_versions, quota_bytes=quota_bytes
        )
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.pages import FirestorePageStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    client = firestore_client(project="demo-frontdoor")
    yield lambda keep_versions=0, quota_bytes=0: FirestorePageStore(
        client, prefix=prefix, keep_versions=keep_versions, quota_bytes=quota_bytes
    )


def page(slug: str, version: int, *, owner: str = "acme", **changes: object) -> StoredPage:
    stored = StoredPage(
        slug=slug,
        version=version,
        status="published",
        source="api",
        page_input={"slug": slug, "title": f"Title {version}", "blocks": []},
        created_at=NOW,
        updated_at=NOW + timedelta(minutes=version),
        owner=owner,
        editor=owner,
        editor_key_id=f"key-{owner}",
        edit_source="api",
    )
    return replace(stored, **changes)  # type: ignore[arg-type]


def write(store: PageStore, slug: str, versions: int, **changes: Any) -> None:
    for n in range(1, versions + 1):
        store.save_page(page(slug, n, **changes), expected_version=n - 1)


def test_every_saved_version_is_kept_and_listed_newest_first(make_store: Factory) -> None:
    """Each save keeps its version, with who wrote it and how."""
    store = make_store()
    write(store, "launch", 3)
    store.save_page(
        page("launch", 4, editor="ops", editor_key_id="k-ops", edit_source="restore"),
        expected_version=3,
    )

    listed = store.list_versions("launch")

    assert [v.version for v in listed.versions] == [4, 3, 2, 1]
    assert listed.next_cursor is None
    assert listed.versions[0] == page(
        "launch", 4, editor="ops", editor_key_id="k-ops", edit_source="restore"
    )
    assert store.get_version("launch", 2) == page("launch", 2)
    assert store.get_version("launch", 9) is None
    assert store.list_versions("nothing").versions == ()


def test_versions_page_with_a_cursor(make_store: Factory) -> None:
    """`limit` and the cursor walk the history with no gap and no repeat."""
    store = make_store()
    write(store, "launch", 5)

    first = store.list_versions("launch", limit=2)
    assert first.next_cursor is not None
    second = store.list_versions("launch", limit=2, cursor=first.next_cursor)
    assert second.next_cursor is not None
    third = store.list_versions("launch", limit=2, cursor=second.next_cursor)

    assert [v.version for v in (*first.versions, *second.versions, *third.versions)] == [
        5,
        4,
        3,
        2,
        1,
    ]
    assert third.next_cursor is None
    with pytest.raises(ValueError, match="cursor"):
        store.list_versions("launch", cursor="not-ours")


def test_a_lost_race_keeps_no_version(make_store: Factory) -> None:
    """A refused write (stale version) adds nothing to the history."""
    store = make_store()
    write(store, "launch", 2)

    with pytest.raises(ConflictError):
        store.save_page(page("launch", 2, status="draft"), expected_version=1)

    assert [v.version for v in store.list_versions("launch").versions] == [2, 1]
    assert store.get_version("launch", 2) == page("launch", 2)


def test_a_retention_limit_keeps_the_newest_versions(make_store: Factory) -> None:
    """With a limit of N, only the newest N versions of each page stay."""
    store = make_store(keep_versions=2)
    write(store, "launch", 4)

    assert [v.version for v in store.list_versions("launch").versions] == [4, 3]
    assert store.get_version("launch", 1) is None


def input_bytes(stored: StoredPage) -> int:
    """What one kept version counts against its owner's quota."""
    return len(json.dumps(stored.page_input, ensure_ascii=False).encode())


def test_each_kept_version_counts_its_bytes_against_its_owner(make_store: Factory) -> None:
    """content-api.md History: the quota counts every kept version of a partner's pages."""
    store = make_store()
    write(store, "launch", 3)
    write(store, "other", 1, owner="globex")

    used = store.stored_bytes("acme")

    assert used == sum(input_bytes(page("launch", n)) for n in (1, 2, 3))
    assert store.stored_bytes("globex") == input_bytes(page("other", 1, owner="globex"))
    assert store.stored_bytes("nobody") == 0


def test_a_write_past_the_owners_quota_is_refused_and_changes_nothing(
    make_store: Factory,
) -> None:
    """content-api.md History: past the quota a write is refused; another partner still writes."""
    size = input_bytes(page("launch", 1))
    store = make_store(quota_bytes=2 * size + size // 2)
    write(store, "launch", 2)

    with pytest.raises(QuotaExceededError):
        store.save_page(page("launch", 3), expected_version=2)

    assert store.get_page("launch") == page("launch", 2)
    assert [v.version for v in store.list_versions("launch").versions] == [2, 1]
    assert store.stored_bytes("acme") == 2 * size
    write(store, "other", 2, owner="globex")
    assert store.get_page("other") == page("other", 2, owner="globex")


def test_versions_past_the_history_limit_free_their_bytes(make_store: Factory) -> None:
    """content-api.md History: with the newest N kept, a page's bytes stop growing."""
    size = input_bytes(page("launch", 1))
    store = make_store(keep_versions=2, quota_bytes=3 * size)

    write(store, "launch", 9)

    assert [v.version for v in store.list_versions("launch").versions] == [9, 8]
    assert store.stored_bytes("acme") == 2 * size


def test_the_list_filters_by_owner(make_store: Factory) -> None:
    """A partner's list holds its own pages only; no owner filter lists all."""
    store = make_store()
    write(store, "acme-one", 1)
    write(store, "bravo-one", 1, owner="bravo")
    write(store, "acme-two", 2)

    acme = store.list_pages(owner="acme")
    acme_published = store.list_pages(owner="acme", status="published", limit=1)
    everyone = store.list_pages()

    assert [p.slug for p in acme.pages] == ["acme-two", "acme-one"]
    assert [p.slug for p in acme_published.pages] == ["acme-two"]
    assert acme_published.next_cursor is not None
    assert {p.slug for p in everyone.pages} == {"acme-one", "acme-two", "bravo-one"}


@pytest.mark.emulator
def test_firestore_pages_from_before_owners_are_adopted_once(
    firestore_emulator: object,
) -> None:
    """A page document with no owner gets the configured one and a first version."""
    from backends.gcp.firestore import firestore_client
    from backends.gcp.pages import FirestorePageStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    client = firestore_client(project="demo-frontdoor")
    store = FirestorePageStore(client, prefix=prefix)
    store.save_page(page("old", 1), expected_version=0)
    client.collection(f"{prefix}pages").document("old").update({"owner": "", "editor": ""})
    client.collection(f"{prefix}pages").document("old").collection("versions").document(
        f"{1:010d}"
    ).delete()

    adopted = store.adopt_unowned_pages("bootstrap")
    again = store.adopt_unowned_pages("someone-else")

    found = store.get_page("old")
    assert (adopted, again) == (1, 0)
    assert found is not None
    assert found.owner == "bootstrap"
    assert [v.owner for v in store.list_versions("old").versions] == ["bootstrap"]
    assert [p.slug for p in store.list_pages(owner="bootstrap").pages] == ["old"]


@pytest.mark.emulator
def test_firestore_page_adoption_runs_once_then_later_starts_read_only_its_marker(
    firestore_emulator: object,
) -> None:
    """The first start that adopts unowned pages records it in one marker document;
    a later start reads that document and leaves the pages alone (it streams none of them)."""
    from backends.gcp.firestore import firestore_client
    from backends.gcp.pages import FirestorePageStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    client = firestore_client(project="demo-frontdoor")
    store = FirestorePageStore(client, prefix=prefix)
    store.save_page(page("old", 1), expected_version=0)
    store.save_page(page("owned", 1, owner="acme"), expected_version=0)
    client.collection(f"{prefix}pages").document("old").update({"owner": "", "editor": ""})

    first = store.adopt_unowned_pages("bootstrap")
    marker = client.collection(f"{prefix}data_upgrades").document("page-owners").get()
    # A document no start of this version could write: only a marker-less start would adopt it.
    client.collection(f"{prefix}pages").document("owned").update({"owner": ""})
    later = FirestorePageStore(client, prefix=prefix).adopt_unowned_pages("someone-else")

    assert (first, later) == (1, 0)
    assert marker.exists
    assert (marker.to_dict() or {})["adopted"] == 1
    found = store.get_page("old")
    assert found is not None
    assert found.owner == "bootstrap"
    untouched = client.collection(f"{prefix}pages").document("owned").get().to_dict() or {}
    assert untouched["owner"] == ""


@pytest.mark.emulator
def test_a_firestore_database_with_no_pages_is_marked_upgraded_at_its_first_start(
    firestore_emulator: object,
) -> None:
    """A new database has nothing to adopt; its first start still writes the marker."""
    from backends.gcp.firestore import firestore_client
    from backends.gcp.pages import FirestorePageStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    client = firestore_client(project="demo-frontdoor")

    adopted = FirestorePageStore(client, prefix=prefix).adopt_unowned_pages("bootstrap")

    marker = client.collection(f"{prefix}data_upgrades").document("page-owners").get()
    assert adopted == 0
    assert marker.exists
