"""Job callbacks: a finished job with a `callback_url` becomes one delivery to that URL.

A callback rides the webhook delivery mechanism (services/deliveries.py): a Delivery whose
`endpoint_id` is CALLBACK_ENDPOINT (no registered endpoint has it, so signal fan-out, partner
listings and replays never see it) and whose `event_id` is the job id. Each attempt reads the
job for its target and secret: the job's own `whsec_` secret, which the partner received once
in the POST generate answer. Its id, `job_{id}`, is the `webhook-id` of every attempt. Pure.
"""

from __future__ import annotations

import json
from datetime import datetime

from backends.ports import Delivery
from schemas.content.jobs import JobRecord, JobView
from services.jobs import job_url

__all__ = ["CALLBACK_ENDPOINT", "callback_delivery", "callback_target", "is_callback"]

CALLBACK_ENDPOINT = "job_callbacks"


def is_callback(delivery: Delivery) -> bool:
    """True for a job callback, False for a signal webhook delivery."""
    return delivery.endpoint_id == CALLBACK_ENDPOINT


def callback_delivery(job: JobRecord, *, base_url: str, now: datetime) -> Delivery | None:
    """The callback delivery of a finished job, or None when it asked for none."""
    if not job.finished or not job.brief.callback_url or not job.callback_secret:
        return None
    view = JobView.of(job, url=job_url(base_url, job.id), base_url=base_url)
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
    return Delivery(
        delivery_id=f"job_{job.id}",
        endpoint_id=CALLBACK_ENDPOINT,
        event_id=job.id,
        event_type=event,
        payload=body,
        status="pending",
        created_at=now,
        next_attempt_at=now,
    )


def callback_target(job: JobRecord | None) -> tuple[str, list[str]] | None:
    """Where a job's callback goes and the secrets that sign it, or None if it has none."""
    if job is None or not job.brief.callback_url or not job.callback_secret:
        return None
    return job.brief.callback_url, [job.callback_secret]
