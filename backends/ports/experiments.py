"""The experiment store: each page's experiment (its start, adaptive shares, how it ended).

Protocols only; nothing here does I/O.
"""

from __future__ import annotations

from typing import Protocol

from domain.experiments import Experiment


class ExperimentStore(Protocol):
    """One experiment per page slug, with optimistic concurrency on `version`."""

    def get_experiment(self, slug: str) -> Experiment | None:
        """The page's experiment, if it ever had one."""

    def save_experiment(self, experiment: Experiment, *, expected_version: int) -> Experiment:
        """Create or replace atomically if the stored version is `expected_version` (0: absent).

        Raises: ConflictError if another write got there first; nothing is changed then.
        """
