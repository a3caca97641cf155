"""Job callbacks: a finished job with a `callback_url` is POSTed there through the task queue.

Signed with Standard Webhooks (workers/signing.py) using the job's own `whsec_` secret, which
the partner received once in the POST generate answer. The task is named after the job, so
queueing it twice (a redelivered message) sends it once; `webhook-id` is stable for dedupe.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime

from backends.ports import HttpTask, TaskQueue
from schemas.jobs import JobRecord, JobView
from workers.signing import sign_headers

logger = logging.getLogger(__name__)


def job_url(base_url: str, job_id: str) -> str:
    """Where a job is polled."""
    return f"{base_url}/api/public/content/jobs/{job_id}"


def callback_task(job: JobRecord, *, base_url: str, now: datetime) -> HttpTask | None:
    """The signed POST for a finished job, or None when it has no callback."""
    if not job.finished or not job.brief.callback_url or not job.callback_secret:
        return None
    view = JobView.of(job, url=job_url(base_url, job.id))
    event = "page.generated" if job.status == "succeeded" else "page.generation_failed"
    body = json.dumps(
        {
            "type": event,
            "timestamp": now.isoformat(),
            "data": {
                "job": view.model_dump(mode="json"),
                "page_url": f"{base_url}/p/{job.page_slug}" if job.page_slug else None,
            },
        },
        separators=(",", ":"),
    )
    msg_id = f"job_{job.id}"
    headers = {
        "Content-Type": "application/json",
        **sign_headers(msg_id=msg_id, body=body, secrets=[job.callback_secret], now=now),
    }
    return HttpTask(
        name=f"job-callback-{job.id}",
        url=job.brief.callback_url,
        body=body.encode(),
        headers=headers,
    )


def callback_notifier(
    *, tasks: TaskQueue, base_url: str, clock: Callable[[], datetime]
) -> Callable[[JobRecord], None]:
    """The pipeline's `notify`: queue the callback of a finished job, if it asked for one."""

    def notify(job: JobRecord) -> None:
        task = callback_task(job, base_url=base_url, now=clock())
        if task is None:
            return
        if tasks.enqueue(task):
            logger.info("job %s callback queued", job.id, extra={"job_id": job.id})

    return notify
