"""keep_job_lease: while a worker runs a job, a thread renews the job's lease in the store.

A job's lease is short (JOB_LEASE_SECONDS, 30 s by default), so a job whose worker died is
taken over soon; a worker still at it (waiting on the model, drawing the hero image) renews
its lease every third of a lease, as a Pub/Sub subscriber extends its ack deadline. The
renewal stops when the block ends, or when the job finished or another worker took it over.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from backends.ports import JobStore, NotFoundError
from workers import steps

logger = logging.getLogger(__name__)


@contextmanager
def keep_job_lease(
    jobs: JobStore,
    job_id: str,
    *,
    worker: str,
    lease: timedelta,
    clock: Callable[[], datetime],
) -> Iterator[None]:
    """Renew `worker`'s lease on the job every third of `lease` until the block ends."""
    done = threading.Event()

    def renew() -> None:
        while not done.wait(lease.total_seconds() / 3):
            now = clock()
            try:
                jobs.update_job(
                    job_id,
                    lambda job: steps.renew_lease(job, worker=worker, now=now),  # noqa: B023  # called at once
                )
            except (steps.StepRefusedError, NotFoundError):
                return  # finished, or taken over: nothing of ours to keep
            except Exception:  # the renewer's top level: a store that is down, try next turn
                logger.exception("job %s: renewing its lease failed", job_id)

    thread = threading.Thread(target=renew, name=f"lease-{job_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=lease.total_seconds())
