"""Contract suite for VariantStore: the same behaviour on SQLite and on the Firestore emulator."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.variants import SqliteVariantStore
from backends.ports import (
    ConflictError,
    StoredAllocation,
    StoredVariant,
    VariantLimitError,
    VariantStore,
)

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VariantStore]:
    if request.param == "sqlite":
        yield SqliteVariantStore(SqliteDatabase(tmp_path / "variants.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.firestore import firestore_client
    from backends.gcp.variants import FirestoreVariantStore

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    yield FirestoreVariantStore(firestore_client(project="demo-frontdoor"), prefix=prefix)


def _variant(variant_id: str = "b", *, slug: str = "launch", version: int = 1) -> StoredVariant:
    return StoredVariant(
        slug=slug,
        variant_id=variant_id,
        version=version,
        page_input={"slug": slug, "title": f"Launch {variant_id}", "blocks": [{"type": "hero"}]},
        created_at=NOW,
        updated_at=NOW,
        gate_ruleset="gate-1+brand-x",
        editor="acme",
        editor_key_id="k1",
    )


def test_a_saved_variant_reads_back_equal(store: VariantStore) -> None:
    """Variants: a created variant is stored whole and read by page and id."""
    variant = _variant()

    store.save_variant(variant, expected_version=0, limit=4)

    assert store.get_variant("launch", "b") == variant
    assert store.get_variant("launch", "c") is None
    assert store.get_variant("other", "b") is None


def test_a_variants_start_reads_back_and_a_replace_clears_it(store: VariantStore) -> None:
    """Variants: a variant waiting for its start keeps the time; a replace without one clears it."""
    waiting = replace(_variant(), start_at=datetime(2026, 11, 23, 8, 30, tzinfo=UTC))

    store.save_variant(waiting, expected_version=0, limit=4)
    stored = store.get_variant("launch", "b")
    store.save_variant(replace(waiting, version=2, start_at=None), expected_version=1, limit=4)

    assert stored == waiting
    assert store.list_variants("launch")[0].start_at is None


def test_a_data_file_from_before_starts_keeps_its_variants_with_none(tmp_path: Path) -> None:
    """Variants: the embedded store adds the start column to an older file; none wait."""
    db = SqliteDatabase(tmp_path / "old.sqlite3")
    with db.transaction() as conn:
        conn.execute(
            "CREATE TABLE page_variants (slug TEXT NOT NULL, variant_id TEXT NOT NULL,"
            " version INTEGER NOT NULL, page_input TEXT NOT NULL, created_at TEXT NOT NULL,"
            " updated_at TEXT NOT NULL, gate_ruleset TEXT NOT NULL, editor TEXT NOT NULL,"
            " editor_key_id TEXT NOT NULL, PRIMARY KEY (slug, variant_id))"
        )
        conn.execute(
            "INSERT INTO page_variants VALUES ('launch', 'b', 1, '{}', ?, ?, '', '', '')",
            ("2026-11-22T09:00:00.000000Z", "2026-11-22T09:00:00.000000Z"),
        )

    store = SqliteVariantStore(db)

    found = store.get_variant("launch", "b")
    assert found is not None
    assert found.start_at is None


def test_variants_list_by_id_for_their_page_only(store: VariantStore) -> None:
    """Variants: the list holds the page's variants, by id."""
    for variant_id in ("c", "b"):
        store.save_variant(_variant(variant_id), expected_version=0, limit=4)
    store.save_variant(_variant("b", slug="other"), expected_version=0, limit=4)

    listed = store.list_variants("launch")

    assert [v.variant_id for v in listed] == ["b", "c"]


def test_a_save_over_a_stale_version_conflicts_and_changes_nothing(store: VariantStore) -> None:
    """Variants: writes are versioned like the page's; a lost race changes nothing."""
    store.save_variant(_variant(), expected_version=0, limit=4)
    newer = replace(_variant(version=2), page_input={"slug": "launch", "title": "New"})
    store.save_variant(newer, expected_version=1, limit=4)

    with pytest.raises(ConflictError):
        store.save_variant(_variant(version=2), expected_version=1, limit=4)
    with pytest.raises(ConflictError):
        store.save_variant(_variant(), expected_version=0, limit=4)

    assert store.get_variant("launch", "b") == newer


def test_a_variant_past_the_limit_is_refused_but_a_replace_at_the_limit_is_not(
    store: VariantStore,
) -> None:
    """Variants: a page holds at most its limit of variants."""
    for variant_id in ("b", "c"):
        store.save_variant(_variant(variant_id), expected_version=0, limit=2)

    with pytest.raises(VariantLimitError):
        store.save_variant(_variant("d"), expected_version=0, limit=2)
    store.save_variant(_variant("c", version=2), expected_version=1, limit=2)

    assert [v.variant_id for v in store.list_variants("launch")] == ["b", "c"]


def test_a_delete_at_the_stored_version_removes_the_variant(store: VariantStore) -> None:
    """Variants: DELETE removes a variant; a stale or absent one conflicts."""
    store.save_variant(_variant(), expected_version=0, limit=4)

    with pytest.raises(ConflictError):
        store.delete_variant("launch", "b", expected_version=2)
    store.delete_variant("launch", "b", expected_version=1)
    with pytest.raises(ConflictError):
        store.delete_variant("launch", "b", expected_version=1)

    assert store.get_variant("launch", "b") is None


def test_an_allocation_is_versioned_per_page(store: VariantStore) -> None:
    """Allocation: one per page, its shares by arm, written at the version read."""
    first = StoredAllocation(
        slug="launch",
        version=1,
        mode="fixed",
        shares={"control": 50, "b": 50},
        updated_at=NOW,
        editor="acme",
        editor_key_id="k1",
    )
    store.save_allocation(first, expected_version=0)
    second = replace(first, version=2, shares={"control": 20.5, "b": 79.5})

    store.save_allocation(second, expected_version=1)
    with pytest.raises(ConflictError):
        store.save_allocation(replace(first, version=2), expected_version=1)

    assert store.get_allocation("launch") == second
    assert store.get_allocation("other") is None
