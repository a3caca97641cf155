"""FirestoreJobStore: generation jobs as documents `{prefix}generation_jobs/{job_id}`."""

from __future__ import annotations

import time
from typing import Any

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    create_document,
    run_transaction,
    unavailable_when_transient,
)
from backends.gcp.open_transactions import FirestoreOpenTransactions
from backends.ports import JobChange, NotFoundError
from schemas.content.jobs import JobRecord

# Concurrent transactions on one document are slow on the emulator (notes/gcp-emulators.md);
# duplicate deliveries of one job are the only contention, so a few more attempts suffice.
_MAX_ATTEMPTS = 15
# The workers run in another process and say nothing here, so a wait polls: often while a
# fast writer may finish, then backing off (a model call takes seconds; Firestore bills reads).
_FAST_POLL, _FAST_FOR, _MAX_POLL = 0.05, 2.0, 0.25


class FirestoreJobStore:
    """JobStore on Firestore; updates are Firestore transactions."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
        open_transactions: FirestoreOpenTransactions | None = None,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._open = open_transactions  # a worker killed mid-update leaves no lock for long
        self._jobs = client.collection(f"{prefix}generation_jobs")

    def create_job(self, job: JobRecord) -> None:
        create_document(self._jobs.document(job.id), _to_doc(job), job.id, deadline=self._deadline)

    def get_job(self, job_id: str) -> JobRecord | None:
        with unavailable_when_transient():
            snap = self._jobs.document(job_id).get(**self._deadline.read)
        return _from_doc(snap.to_dict()) if snap.exists else None

    def update_job(self, job_id: str, change: JobChange) -> JobRecord:
        ref = self._jobs.document(job_id)

        def apply(transaction: firestore.Transaction) -> JobRecord:
            snap = ref.get(transaction=transaction, **self._deadline.read)
            if not snap.exists:
                raise NotFoundError(job_id)
            updated = change(_from_doc(snap.to_dict()))
            transaction.set(ref, _to_doc(updated))
            return updated

        result: JobRecord = run_transaction(
            self._client,
            apply,
            deadline=self._deadline,
            max_attempts=_MAX_ATTEMPTS,
            ledger=self._open,
        )
        return result

    def list_unfinished_jobs(self, *, limit: int = 200) -> list[JobRecord]:
        # One `in` filter on a top-level field: Firestore's single-field index serves it.
        query = self._jobs.where(
            filter=firestore.FieldFilter("status", "in", ["queued", "running"])
        ).limit(limit)
        with unavailable_when_transient():
            found = [_from_doc(snap.to_dict()) for snap in query.stream(**self._deadline.read)]
        return sorted(found, key=lambda job: job.updated_at)

    def wait_finished(self, job_id: str, seconds: float) -> JobRecord | None:
        started = time.monotonic()
        deadline = started + seconds
        pause = _FAST_POLL
        job = self.get_job(job_id)
        while job is not None and not job.finished:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(pause, left))
            job = self.get_job(job_id) or job
            if time.monotonic() - started > _FAST_FOR:
                pause = min(pause * 1.5, _MAX_POLL)
        return job


def _to_doc(job: JobRecord) -> dict[str, Any]:
    # JSON mode keeps the record exactly as pydantic reads it back (datetimes as ISO text).
    return job.model_dump(mode="json")


def _from_doc(doc: dict[str, Any] | None) -> JobRecord:
    return JobRecord.read_stored(doc or {})
