"""The Firestore client, built once by wiring; FIRESTORE_EMULATOR_HOST points it at an emulator."""

from __future__ import annotations

from google.cloud import firestore


def firestore_client(*, project: str | None, database: str = "(default)") -> firestore.Client:
    """A Firestore client for this project and database."""
    return firestore.Client(project=project, database=database)
