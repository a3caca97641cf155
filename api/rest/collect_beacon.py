"""The JSON beacons of /collect: what a browser saw, and nothing it cannot see.

A beacon is a page view or a CTA click. A person, an account, a time or a form type in one is
refused (422, each field named) and raised as ForgedBeaconError, so the blueprint counts it
for operators (api/rest/collect_refusals.py); properties are only the campaign, the referrer,
the visitor id and the CTA clicked; the page URL and referrer keep only the `utm_*` of their
query. The form posts, limits and the route itself are api/rest/collect.py's.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from flask import Response, current_app, json, request

from api.errors import ApiError, invalid_payload, too_large
from api.rest.json_body import parse_json
from api.rest.signals import queue_events
from backends.ports import SignalQueue
from schemas.errors import Issue
from schemas.signals.bodies import CollectBody
from schemas.signals.events import (
    SITE_FIELDS,
    SITE_SOURCE,
    UTM_FIELDS,
    VISITOR_ID,
    NewEvent,
    normalize_event,
    row_id_for,
)

__all__ = [
    "BEACON_TYPES",
    "FORM_TYPES",
    "IDENTIFY",
    "MAX_BEACON_BYTES",
    "ForgedBeaconError",
    "beacon_visitor",
    "browser_facts",
    "campaign_url",
    "read_beacon_body",
    "record_beacon",
    "recorded",
]

FORM_TYPES = frozenset({"lead_form", "newsletter_signup", "briefing_registration", "book_call"})
# The beacon's `identify()`: a form the visitor sends, so it names a person and is counted as
# a form; it needs no page.
IDENTIFY = "identify"
# What a browser sees for itself: a page it showed, a button clicked on it.
BEACON_TYPES = frozenset({"page_view", "cta_click"})
_BEACON_FIELDS = frozenset({"id", "type", "page", "properties"})
# What only a form the visitor sends (a person, an account) or the server (the time) may say.
_NOT_SEEN_BY_A_BROWSER = ("person", "account", "occurred_at")
_BEACON_PROPERTIES = (*SITE_FIELDS, "cta_label", "cta_href")
_NOT_SEEN = "a beacon says what the browser saw: a person comes from a form, the time is ours"
_BEACON_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_BEACON_BYTES = 16 * 1024


def beacon_visitor(body: dict[str, Any]) -> str | None:
    properties = body.get("properties")
    visitor = properties.get("visitor_id") if isinstance(properties, dict) else None
    return visitor if isinstance(visitor, str) and VISITOR_ID.match(visitor) else None


def read_beacon_body() -> dict[str, Any]:
    data = request.get_data()
    if len(data) > MAX_BEACON_BYTES:
        raise too_large(
            "A beacon is at most 16 KiB",
            [Issue(field="", code="too_long", message="at most 16 KiB")],
        )
    body = parse_json(data)
    if not isinstance(body, dict):
        issue = Issue(field="", code="invalid_type", message="a JSON object")
        raise invalid_payload([issue], "Send a JSON object")
    return body


class ForgedBeaconError(Exception):
    """A beacon that tried to say what no browser sees (a person, an account, a time, a form
    type): the 422 to answer, and the fields, for the operators' count."""

    def __init__(self, refusal: ApiError, fields: str) -> None:
        super().__init__(fields)
        self.refusal = refusal
        self.fields = fields


def record_beacon(signal_queue: SignalQueue, body: dict[str, Any], now: datetime) -> Response:
    """Store a page view or a CTA click. Raises: ApiError 422, ForgedBeaconError."""
    # Every fault in one answer: the beacon's own checks here, the event's fields below.
    issues: list[Issue] = []
    beacon_id = body.get("id")
    if beacon_id is not None and not (isinstance(beacon_id, str) and _BEACON_ID.match(beacon_id)):
        issues.append(_issue("id", "invalid_format", "8-64 letters, digits, - or _"))
    forged = [name for name in _NOT_SEEN_BY_A_BROWSER if name in body]
    issues += [_issue(name, "not_allowed", _NOT_SEEN) for name in forged]
    kind = body.get("type")
    if isinstance(kind, str) and (kind in FORM_TYPES or kind == IDENTIFY):
        forged.append("type")
        issues.append(_issue("type", "form_only", "a form the visitor sends, never a beacon"))
    elif not isinstance(kind, str) or kind not in BEACON_TYPES:
        code = "missing" if kind is None else "invalid_type"
        issues.append(_issue("type", code, "one of " + ", ".join(sorted(BEACON_TYPES))))
    issues += [
        _issue(name, "unknown_field", "unknown field")
        for name in body
        if name not in _BEACON_FIELDS and name not in _NOT_SEEN_BY_A_BROWSER
    ]
    properties = body.get("properties")
    if isinstance(properties, dict):
        allowed = ", ".join(_BEACON_PROPERTIES)
        issues += [
            _issue(f"properties.{name}", "unknown_field", f"one of {allowed}")
            for name in properties
            if name not in _BEACON_PROPERTIES
        ]
    seen: dict[str, Any] = {name: body[name] for name in ("page", "properties") if name in body}
    # A beacon without an id is named by its content and day (the JSON only built then).
    row_id = beacon_id or row_id_for(json.dumps(seen, sort_keys=True), now.date().isoformat())
    raw: dict[str, Any] = {
        **seen,
        "occurred_at": now.isoformat(),
        # A refused type's stand-in, so the other fields are still checked in the same answer.
        "type": kind if isinstance(kind, str) and kind in BEACON_TYPES else "page_view",
        "source": SITE_SOURCE,
        "row_id": row_id if isinstance(row_id, str) else "",
    }
    event = normalize_event(raw, now=now)
    if isinstance(event, list) or issues:
        issues += event if isinstance(event, list) else []
        refusal = invalid_payload(issues, "The beacon failed validation")
        if forged:
            raise ForgedBeaconError(refusal, ", ".join(forged))
        raise refusal
    event = browser_facts(event)
    queue_events(signal_queue, [event])
    return recorded(event.id)


def browser_facts(event: NewEvent) -> NewEvent:
    """A collected event as stored: its page URL and referrer keep only the campaign
    (`utm_*`) of their query, so an address or a token in a link never reaches the stream."""
    page = event.page
    if page.url is not None:
        page = page.model_copy(update={"url": campaign_url(page.url)})
    properties = event.properties
    referrer = properties.get("referrer")
    if isinstance(referrer, str):
        properties = {**properties, "referrer": campaign_url(referrer)}
    return event.model_copy(update={"page": page, "properties": properties})


def campaign_url(url: str) -> str:
    """`url` without its fragment and with only the `utm_*` fields of its query."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL (an unclosed IPv6 bracket): nothing of it is kept
        return ""
    kept = [(k, v) for k, v in parse_qsl(parts.query) if k in UTM_FIELDS]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))


def recorded(event_id: str) -> Response:
    return current_app.response_class(
        CollectBody(id=event_id, recorded=True).model_dump_json(),
        status=202,
        mimetype="application/json",
    )


def _issue(field_name: str, code: str, message: str) -> Issue:
    return Issue(field=field_name, code=code, message=message)
