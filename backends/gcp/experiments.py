"""FirestoreExperimentStore: each page's experiment as a document
`{prefix}page_experiments/{slug}`."""

from __future__ import annotations

from typing import Any

from google.cloud import firestore

from backends.gcp.deadline import DEFAULT_DEADLINE, CallDeadline
from backends.gcp.firestore_errors import (
    read_at_version,
    run_transaction,
    unavailable_when_transient,
)
from domain.experiments import Experiment


class FirestoreExperimentStore:
    """ExperimentStore on Firestore; the version check and the write share one transaction.
    A transient failure is `UnavailableError`."""

    def __init__(
        self,
        client: firestore.Client,
        *,
        prefix: str = "",
        deadline: CallDeadline = DEFAULT_DEADLINE,
    ) -> None:
        self._client = client
        self._deadline = deadline
        self._experiments = client.collection(f"{prefix}page_experiments")

    @unavailable_when_transient()
    def get_experiment(self, slug: str) -> Experiment | None:
        snap = self._experiments.document(slug).get(**self._deadline.read)
        return _from_doc(slug, snap.to_dict() or {}) if snap.exists else None

    def save_experiment(self, experiment: Experiment, *, expected_version: int) -> Experiment:
        ref = self._experiments.document(experiment.slug)

        def write(transaction: firestore.Transaction) -> None:
            read_at_version(
                transaction,
                ref,
                expected=expected_version,
                label=experiment.slug,
                deadline=self._deadline,
            )
            transaction.set(ref, _to_doc(experiment))

        run_transaction(self._client, write, deadline=self._deadline)
        return experiment


def _to_doc(experiment: Experiment) -> dict[str, Any]:
    # Shares as a list of pairs, not a map: an arm's name is never read as a field path.
    return {
        "version": experiment.version,
        "status": experiment.status,
        "started_at": experiment.started_at,
        "shares": [{"arm": arm, "share": share} for arm, share in experiment.shares.items()],
        "recomputed_at": experiment.recomputed_at,
        "winner": experiment.winner,
        "ended_at": experiment.ended_at,
        "ended_by": experiment.ended_by,
    }


def _from_doc(slug: str, doc: dict[str, Any]) -> Experiment:
    return Experiment(
        slug=slug,
        version=int(doc["version"]),
        status=doc["status"],
        started_at=doc["started_at"],
        shares={str(pair["arm"]): float(pair["share"]) for pair in doc.get("shares", [])},
        recomputed_at=doc.get("recomputed_at"),
        winner=doc.get("winner"),
        ended_at=doc.get("ended_at"),
        ended_by=doc.get("ended_by"),
    )
