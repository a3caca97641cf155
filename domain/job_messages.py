"""The message every job queue carries: `{"job_id": "..."}`, compact JSON.

One codec for the embedded queue, Pub/Sub and the worker that reads them, so a publisher and
its consumer cannot drift apart. A message names its job and nothing more: who submitted it
(its editor, kept whole), its brief and its progress are the job record's, read from the job
store, so a redelivered message, or one queued before an upgrade, never disagrees with its job.
"""

from __future__ import annotations

import json

MAX_JOB_ID = 128  # characters; longer is not one of our ids


class MalformedMessageError(ValueError):
    """A message that is not `{"job_id": "..."}`."""


def encode_job_message(job_id: str) -> bytes:
    """The body a job queue carries for `job_id`."""
    return json.dumps({"job_id": job_id}, separators=(",", ":")).encode()


def decode_job_message(data: bytes | str) -> str:
    """The job id in a message. Raises: MalformedMessageError."""
    try:
        decoded = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise MalformedMessageError("not JSON") from err
    job_id = decoded.get("job_id") if isinstance(decoded, dict) else None
    if not isinstance(job_id, str) or not 0 < len(job_id) <= MAX_JOB_ID:
        raise MalformedMessageError("no job_id")
    return job_id
