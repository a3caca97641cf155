"""Generation jobs: POST /api/public/content/pages/generate and GET /api/public/content/jobs/{id}.

POST validates the brief, records a job, publishes it to the job queue and waits a bounded
time for a worker to finish it: 201 with the page, 422 with the issues of the last draft, 502
`model_failed` (retryable); 202 with `Location` on `Prefer: respond-async` or when the wait
runs out. Idempotency-Key works as on POST pages: a repeat gets the first answer and never
starts a second job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, Response, request

from api.auth import KeyCheck
from api.config import AppConfig
from api.errors import (
    ApiError,
    answer_unavailable,
    invalid_payload,
    model_failed,
    not_found,
    problem_response,
    slug_taken,
    unavailable,
)
from api.rest.idempotency import Idempotency
from api.rest.json_body import request_json
from api.rest.signal_query import refuse_parameters
from backends.ports import (
    DeliveryOptions,
    IdempotencyStore,
    JobQueue,
    JobStore,
    PageStore,
    UnavailableError,
)
from schemas.content.jobs import JobRecord
from services.generation_results import generated_page_body, job_view, stored_page
from services.jobs import ABANDONED, BriefRefusedError, checked_brief, start_generation
from services.keys import Principal
from services.page_records import version_etag
from services.pages import SlugTakenError

GENERATE_PATH = "/api/public/content/pages/generate"
JOBS_PATH = "/api/public/content/jobs"
MAX_BODY_BYTES = 256 * 1024
_JOB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class JobPorts:
    """What the jobs surface works on: the job store and queue, the page store a finished job's
    page is read from, the kept Idempotency-Key answers, the clock, and the delivery options
    (whether a brief's callback may name a loopback receiver)."""

    jobs: JobStore
    job_queue: JobQueue
    pages: PageStore
    idempotency: IdempotencyStore
    clock: Callable[[], datetime]
    delivery_options: DeliveryOptions


def create_jobs_blueprint(*, ports: JobPorts, config: AppConfig, keys: KeyCheck) -> Blueprint:
    """POST generate and GET jobs/{id}, with the content key."""
    bp = Blueprint("jobs", __name__)
    answer_unavailable(bp, "The job store is unavailable; retry")
    idempotent = Idempotency(ports.idempotency, clock=ports.clock)
    surface = _Jobs(ports, config)

    @bp.post(GENERATE_PATH)
    def generate() -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        payload = request_json(request, max_bytes=MAX_BODY_BYTES, content=True, what="the brief")
        response = idempotent.run(principal, payload, lambda: surface.generate(principal, payload))
        if surface.abandoned_replay(response):
            # The first job was abandoned (its workers kept dying): start a new one, and keep
            # its answer for this key, so no repeat replays the stale job again.
            response = surface.generate_or_problem(principal, payload)
            idempotent.keep_instead(principal, payload, response)
            return response
        return surface.refresh_replayed_202(response)

    @bp.get(f"{JOBS_PATH}/<job_id>")
    def get_job(job_id: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        # An id no job can have never reaches the store (Firestore refuses `__x__` and `..`).
        job = ports.jobs.get_job(job_id) if _JOB_ID.match(job_id) else None
        # Another partner's job answers exactly as one nobody has; content_admin sees all.
        if job is None or (job.editor.partner != principal.partner and not principal.admin):
            raise not_found(f"No job {job_id!r}")
        page = surface.page_json(job) if job.status == "succeeded" else None
        view = surface.view(job)
        body = {"ok": True, "job": view, "page": page}
        return _json(body | {"warnings": view["warnings"], "notes": view["notes"]}, 200)

    return bp


@dataclass(frozen=True)
class _Jobs:
    """The jobs surface over one app's ports and settings."""

    ports: JobPorts
    config: AppConfig

    def replayed_job(self, response: Response) -> JobRecord | None:
        """The job of a replayed 202, named by its `Location` (kept with the answer, where a
        long body may be kept short), never read back out of the body."""
        if response.status_code != 202 or response.headers.get("Idempotent-Replayed") != "true":
            return None
        job_id = response.headers.get("Location", "").removeprefix(f"{JOBS_PATH}/")
        return self.ports.jobs.get_job(job_id) if _JOB_ID.match(job_id) else None

    def abandoned_replay(self, response: Response) -> bool:
        job = self.replayed_job(response)
        return job is not None and job.error is not None and job.error.code == ABANDONED

    def generate_or_problem(self, principal: Principal, payload: object) -> Response:
        try:
            return self.generate(principal, payload)
        except ApiError as err:
            return problem_response(err)

    def refresh_replayed_202(self, response: Response) -> Response:
        """A repeat of a request first answered 202 answers with the job as it is now.

        The same job either way (the key never starts a second one), but once it has finished the
        repeat carries the page (201) or the failure, not the stale `queued`.
        """
        job = self.replayed_job(response)
        if job is None or job.status == "queued":
            return response
        if not job.finished:  # running: the job as it is now, still 202
            fresh = self.answer(job, created=False)
            fresh.headers["Idempotent-Replayed"] = "true"
            return fresh
        try:
            fresh = self.answer(job, created=False)
        except ApiError as err:
            fresh = problem_response(err)
        fresh.headers["Idempotent-Replayed"] = "true"
        return fresh

    def generate(self, principal: Principal, payload: object) -> Response:
        config = self.config
        # http callbacks to loopback receivers where deliveries may go there (a local run)
        loopback = self.ports.delivery_options.allow_loopback
        try:
            brief = checked_brief(payload, allow_loopback_http=loopback)
        except BriefRefusedError as err:
            raise invalid_payload(err.issues, err.message) from err
        try:
            job = start_generation(
                pages=self.ports.pages,
                jobs=self.ports.jobs,
                job_queue=self.ports.job_queue,
                brief=brief,
                editor=principal.editor,
                now=self.ports.clock(),
            )
        except SlugTakenError as err:
            raise slug_taken(
                f"The slug {brief.slug!r} belongs to another partner's page; choose another"
            ) from err
        except UnavailableError as err:
            raise unavailable("The job queue is unavailable; retry") from err
        wait = 0.0 if _prefers_async() else config.generate_wait_seconds
        return self.answer(self.wait_for(job, seconds=wait), created=True)

    def answer(self, job: JobRecord, *, created: bool) -> Response:
        view = self.view(job, with_secret=created)
        config = self.config
        body = generated_page_body(
            job,
            pages=self.ports.pages,
            base_url=config.base_url,
            preview_secret=config.preview_secret,
            with_secret=created,
        )
        if body is not None:
            response = _json(body, 201)
            response.headers["Location"] = f"/api/public/content/pages/{job.page_slug}"
            version = body["page"]["version"]
            response.headers["ETag"] = version_etag(version)
            return response
        if job.status == "failed" and job.error is not None:
            extra: dict[str, Any] = {"job": view, "notes": view["notes"]}
            if job.error.code == "invalid_payload":
                raise invalid_payload(
                    job.issues,
                    "The generated page failed the quality gate twice",
                    extra=extra,
                )
            if job.error.code == "slug_taken":
                raise slug_taken(
                    "Another partner's page took this slug while the job ran; choose another",
                    extra=extra,
                )
            if job.error.code == "model_failed":
                extra["retryable"] = True
                raise model_failed("The authoring model failed; retry", extra=extra)
            extra["retryable"] = True
            raise unavailable("The job could not be completed; retry", extra=extra)
        response = _json({"ok": True, "job": view}, 202)
        response.headers["Location"] = f"{JOBS_PATH}/{job.id}"
        response.headers["Retry-After"] = "2"
        return response

    def wait_for(self, job: JobRecord, *, seconds: float) -> JobRecord:
        """The job once finished, or as it stands when `seconds` have passed.

        The store does the waiting: embedded, the request thread sleeps until the worker thread
        commits the final state (no polling timer competing with it for the GIL); on Google Cloud
        it polls Firestore, backing off.
        """
        if seconds <= 0:
            return job
        return self.ports.jobs.wait_finished(job.id, seconds) or job

    def page_json(self, job: JobRecord) -> dict[str, Any] | None:
        config = self.config
        return stored_page(
            job,
            pages=self.ports.pages,
            base_url=config.base_url,
            preview_secret=config.preview_secret,
        )

    def view(self, job: JobRecord, *, with_secret: bool = False) -> dict[str, Any]:
        return job_view(job, base_url=self.config.base_url, with_secret=with_secret)


def _prefers_async() -> bool:
    prefer = ",".join(request.headers.getlist("Prefer")).lower()
    return any(part.strip().split(";")[0] == "respond-async" for part in prefer.split(","))


def _json(body: dict[str, Any], status: int) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")
