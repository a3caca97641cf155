"""POST /internal/pages/{slug}/schedule: what a page's schedule task calls when its time comes.

Authenticated by the shared internal token, as the delivery attempt route is; the body names
the action and the time the task was queued for, and services/page_schedule.py decides whether
the page still wants it. A 2xx settles the task (done or nothing to do); an early task, a page
that kept changing or a store that is down answers non-2xx, so the queue runs it again.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, Response, jsonify, request
from pydantic import ValidationError

from api.errors import (
    answer_unavailable,
    conflict,
    invalid_payload,
    unauthorized,
    unsupported_media_type,
)
from api.rest.json_body import parse_json
from schemas.content.schedule import ScheduleTaskInput
from schemas.errors import issues_from_errors
from services.deliveries import INTERNAL_TOKEN_HEADER
from services.page_schedule import SCHEDULE_PATH, EarlyError, run_scheduled
from services.pages import BusyError, Pages


def create_page_schedule_blueprint(*, pages: Pages) -> Blueprint:
    """The internal route of scheduled publishing, over the page use cases' unit."""
    bp = Blueprint("page_schedule", __name__)
    answer_unavailable(bp, "The page store is unavailable; the task runs again")
    options = pages.options

    @bp.post(SCHEDULE_PATH.replace("{slug}", "<slug>"))
    def run(slug: str) -> Response:
        presented = request.headers.get(INTERNAL_TOKEN_HEADER, "")
        # Bytes: compare_digest raises on a str that is not ASCII (any header a caller sends).
        if not options.internal_token or not hmac.compare_digest(
            presented.encode(), options.internal_token.encode()
        ):
            raise unauthorized("Internal route")
        if request.mimetype != "application/json":
            raise unsupported_media_type("Send the body as application/json")
        try:
            task = ScheduleTaskInput.model_validate(parse_json(request.get_data(cache=True)))
        except ValidationError as err:
            raise invalid_payload(issues_from_errors(err.errors())) from err
        try:
            outcome = run_scheduled(pages, slug=slug, action=task.action, at=task.at)
        except EarlyError as err:
            raise conflict("Before its scheduled time: the task runs again") from err
        except BusyError as err:
            raise conflict("The page kept changing; the task runs again") from err
        return jsonify({"ok": True, "status": outcome})

    return bp
