"""Contract suite for ExperimentStore: the same behaviour on SQLite and on the Firestore
emulator; a page's experiment round-trips whole, and a write at a stale version changes
nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.embedded.experiments import SqliteExperimentStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError, ExperimentStore
from domain.experiments import Experiment

NOW = datetime(2026, 11, 28, 9, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.emulator)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ExperimentStore]:
    if request.param == "sqlite":
        yield SqliteExperimentStore(SqliteDatabase(tmp_path / "e.sqlite3"))
        return
    request.getfixturevalue("firestore_emulator")
    from backends.gcp.experiments import FirestoreExperimentStore
    from backends.gcp.firestore import firestore_client

    client = firestore_client(project="demo-frontdoor")
    yield FirestoreExperimentStore(client, prefix=f"t{uuid.uuid4().hex[:10]}_")


def running(slug: str) -> Experiment:
    return Experiment(
        slug=slug,
        version=1,
        status="running",
        started_at=NOW,
        shares={"control": 0.5, "v.2": 0.5},
        recomputed_at=NOW,
    )


def test_a_saved_experiment_reads_back_whole_and_an_unknown_slug_has_none(
    store: ExperimentStore,
) -> None:
    saved = store.save_experiment(running("spring"), expected_version=0)

    assert store.get_experiment("spring") == saved == running("spring")
    assert store.get_experiment("autumn") is None


def test_an_ended_experiment_keeps_its_winner_and_who_ended_it(store: ExperimentStore) -> None:
    store.save_experiment(running("spring"), expected_version=0)
    ended = replace(
        running("spring"),
        version=2,
        status="ended",
        winner="v.2",
        ended_at=NOW + timedelta(days=3),
        ended_by="stop_rule",
    )

    store.save_experiment(ended, expected_version=1)

    assert store.get_experiment("spring") == ended


def test_a_write_at_a_stale_version_is_refused_and_changes_nothing(
    store: ExperimentStore,
) -> None:
    store.save_experiment(running("spring"), expected_version=0)
    first = replace(running("spring"), version=2, shares={"control": 0.1, "v.2": 0.9})
    store.save_experiment(first, expected_version=1)

    with pytest.raises(ConflictError):
        store.save_experiment(replace(first, shares={"control": 1.0}), expected_version=1)
    with pytest.raises(ConflictError):
        store.save_experiment(running("spring"), expected_version=0)

    assert store.get_experiment("spring") == first
