"""SqliteExperimentStore: each page's experiment as one row of the embedded database."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from backends.embedded.sqlite import SqliteDatabase
from backends.ports import ConflictError
from domain.experiments import Experiment

_DDL = """
CREATE TABLE IF NOT EXISTS page_experiments (
    slug TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    started_at TEXT NOT NULL,
    shares TEXT NOT NULL,
    recomputed_at TEXT,
    winner TEXT,
    ended_at TEXT,
    ended_by TEXT
);
"""


class SqliteExperimentStore:
    """ExperimentStore on SQLite; the version check and the write share one transaction."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        db.ensure_schema("page_experiments", _DDL)

    def get_experiment(self, slug: str) -> Experiment | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM page_experiments WHERE slug = ?", (slug,))
            .fetchone()
        )
        return None if row is None else _from_row(row)

    def save_experiment(self, experiment: Experiment, *, expected_version: int) -> Experiment:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT version FROM page_experiments WHERE slug = ?", (experiment.slug,)
            ).fetchone()
            current = int(row[0]) if row else 0
            if current != expected_version:
                raise ConflictError(
                    f"{experiment.slug}: version {current}, expected {expected_version}"
                )
            conn.execute(
                "INSERT OR REPLACE INTO page_experiments (slug, version, status, "
                "started_at, shares, recomputed_at, winner, ended_at, ended_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    experiment.slug,
                    experiment.version,
                    experiment.status,
                    experiment.started_at.isoformat(),
                    json.dumps([[arm, share] for arm, share in experiment.shares.items()]),
                    _text(experiment.recomputed_at),
                    experiment.winner,
                    _text(experiment.ended_at),
                    experiment.ended_by,
                ),
            )
        return experiment


def _text(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _from_row(row: sqlite3.Row) -> Experiment:
    return Experiment(
        slug=row["slug"],
        version=int(row["version"]),
        status=row["status"],
        started_at=datetime.fromisoformat(row["started_at"]),
        shares={str(arm): float(share) for arm, share in json.loads(row["shares"])},
        recomputed_at=_moment(row["recomputed_at"]),
        winner=row["winner"],
        ended_at=_moment(row["ended_at"]),
        ended_by=row["ended_by"],
    )
