"""POST /api/public/v1/collect: the site's own form posts and beacons, no key.

No key means any script can post here, so collect takes only what a browser can honestly say:
a JSON beacon is a page view or a CTA click (what the browser saw; a person, an account, a
time or a form type in one is a 422, counted as `forged_beacon`), and only a form post names a
person (a landing page form, or the beacon's `identify()`, which posts as a form). The time of
every event is the server's. Origin-checked (Origin or Referer must be this service's host or
one of COLLECT_ALLOWED_ORIGINS, else 403) and rate-limited per process, keyed by the client
address (FORWARDED_FOR_HOPS picks it from X-Forwarded-For in gcp mode; the IP only as a salted
hash, never logged raw; 429 with Retry-After). Form posts and beacons without a visitor id get
20 a minute per address whatever visitor id they carry; beacons with a visitor id get 60 a
minute per visitor (COLLECT_LIMIT_VISITOR) and 1,200 a minute per address
(COLLECT_LIMIT_ADDRESS: an office behind one address reads many pages; a flood from one
address is still refused). Every refusal is counted and logged (api/rest/collect_refusals.py);
the beacons' own checks are api/rest/collect_beacon.py's.
A landing page form post (no JavaScript needed) answers 303 to `/p/{slug}?submitted=1`, or to
`/p/{slug}?error=invalid_<field>#leadform` naming the first visible field refused (`email`,
`name`, `company`), or to `?error=rate_limited#leadform` over the rate limit and
`?error=unavailable#leadform` while the ingest queue is down (both with Retry-After; a post
naming no page gets the 429, or the 422 of a form naming no page); a hidden field out of
shape (no visitor typed it) is a 422; a JSON beacon and an identify answer 202 (or the queue's
503). Event ids are `site:<hash of the submission and its day>` (or the beacon's own `id`), so
a repeated delivery is stored once. Site events keep the UTM fields, referrer and visitor id as
properties: a form takes them from its hidden fields (the beacon script adds them) or else
from the query of the page URL its Referer carries.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import Blueprint, Response, request
from werkzeug.datastructures import Headers

from api.config import AppConfig
from api.errors import ApiError, forbidden, invalid_payload, rate_limited, unsupported_media_type
from api.rate_limits import WindowCounter
from api.rest.collect_beacon import (
    FORM_TYPES,
    IDENTIFY,
    ForgedBeaconError,
    beacon_visitor,
    browser_facts,
    read_beacon_body,
    record_beacon,
    recorded,
)
from api.rest.collect_refusals import CollectRefusals, RefusalReason
from api.rest.signals import queue_events
from backends.ports import SignalQueue
from schemas.errors import Issue
from schemas.signals.events import (
    SITE_FIELDS,
    SITE_SOURCE,
    UTM_FIELDS,
    normalize_email,
    normalize_event,
    row_id_for,
)

logger = logging.getLogger(__name__)

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FORM_LIMIT = 20  # forms and id-less beacons a minute per client address


@dataclass(frozen=True)
class CollectLimits:
    """Forms and id-less beacons per address; page views per visitor id and per address: a
    minute's window each, counted by api/rate_limits.py's one limiter."""

    forms: WindowCounter
    visitors: WindowCounter
    addresses: WindowCounter

    @classmethod
    def of(cls, *, per_visitor: int, per_address: int) -> CollectLimits:
        def window(policy: str, quota: int) -> WindowCounter:
            return WindowCounter(policy=policy, quota=quota, window_seconds=60)

        return cls(
            forms=window("collect_forms", FORM_LIMIT),
            visitors=window("collect_visitors", per_visitor),
            addresses=window("collect_addresses", per_address),
        )


def create_collect_blueprint(
    config: AppConfig,
    *,
    signal_queue: SignalQueue,
    clock: Callable[[], datetime],
    refusals: CollectRefusals | None = None,
) -> Blueprint:
    """The collect route for this deployment's origin, queueing what it accepts on
    `signal_queue` and dating it by `clock`."""
    bp = Blueprint("collect", __name__, url_prefix="/api/public/v1")
    hosts = {urlsplit(o).netloc.lower() for o in (config.base_url, *config.collect_allowed_origins)}
    per_visitor, per_address = config.collect_limits
    rate = CollectLimits.of(per_visitor=per_visitor, per_address=per_address)
    salt = secrets.token_bytes(16)  # per process: client hashes can't be reversed by lookup
    refused = refusals or CollectRefusals()

    def hashed(key: str) -> str:
        return hashlib.sha256(salt + key.encode()).hexdigest()[:16]

    def check_rate(
        key: str, limiter: WindowCounter, now: datetime, *, reason: RefusalReason, client: str
    ) -> None:
        verdict = limiter.hit(hashed(key), now=now.timestamp())
        if not verdict.allowed:
            refused.count(reason, client_hash=hashed(client))
            raise rate_limited("Too many submissions", headers={"Retry-After": str(verdict.reset)})

    @bp.post("/collect")
    def collect() -> Response:
        now = clock()
        headers = request.headers
        address = request.remote_addr or ""  # in gcp mode, ProxyFix's (api/app.py)
        if _origin_host(headers) not in hosts:
            refused.count("foreign_origin", client_hash=hashed(address))
            raise forbidden("Collect accepts posts from this site only")
        mimetype = request.mimetype
        if mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            # Every form post names a person: one address gets the form limit, whatever
            # visitor ids it sends.
            try:
                check_rate(address, rate.forms, now, reason="over_form_limit", client=address)
            except ApiError as err:
                return _form_rate_limited(err)
            return _form(signal_queue, config, now)
        if mimetype in ("application/json", "text/plain"):
            try:
                body = read_beacon_body()
            except ApiError:
                check_rate(
                    address, rate.forms, now, reason="over_form_limit", client=address
                )  # a bad body counts too
                raise
            visitor = beacon_visitor(body)
            if visitor is None:
                check_rate(address, rate.forms, now, reason="over_form_limit", client=address)
            else:
                check_rate(
                    "v:" + visitor, rate.visitors, now, reason="over_visitor_limit", client=address
                )
                check_rate(
                    address, rate.addresses, now, reason="over_address_limit", client=address
                )
            try:
                return record_beacon(signal_queue, body, now)
            except ForgedBeaconError as err:
                refused.count("forged_beacon", client_hash=hashed(address), detail=err.fields)
                raise err.refusal from None
        check_rate(address, rate.forms, now, reason="over_form_limit", client=address)
        raise unsupported_media_type("Send a form post or a JSON beacon")

    return bp


def site_properties(form: Any, referer: str) -> dict[str, str]:
    """UTM fields, referrer and visitor id of a form post: its own (hidden) fields first, else
    the UTM query of the page URL the post's Referer names (the no-JavaScript case)."""
    found = {k: str(form.get(k)).strip()[:1000] for k in SITE_FIELDS if form.get(k)}
    if not any(k in found for k in UTM_FIELDS) and referer:
        try:
            query = parse_qs(urlsplit(referer).query)
        except ValueError:  # a Referer that is not a URL (an unclosed IPv6 bracket)
            query = {}
        found |= {k: query[k][0][:1000] for k in UTM_FIELDS if query.get(k) and query[k][0]}
    return found


def _origin_host(headers: Headers) -> str:
    source = headers.get("Origin") or headers.get("Referer") or ""
    try:
        return urlsplit(source).netloc.lower() if source != "null" else ""
    except ValueError:  # not a URL (an unclosed IPv6 bracket): no origin
        return ""


def _form(signal_queue: SignalQueue, config: AppConfig, now: datetime) -> Response:
    form = request.form
    if form.get("type") == IDENTIFY:
        return _identify(signal_queue, now)
    slug = form.get("page", "").strip()
    if not _SLUG.match(slug) or len(slug) > 80:
        issue = Issue(field="page", code="invalid_format", message="the slug of a /p/ page")
        raise invalid_payload([issue], "The form names no page")
    if form.get("website"):
        logger.info("collect honeypot filled; dropped", extra={"slug": slug})
        return _see_other(f"/p/{slug}?submitted=1")
    kind = form.get("type", "lead_form")
    email, name, company = (form.get(k, "").strip() for k in ("email", "name", "company"))
    path = f"/p/{slug}"
    raw = {
        "source": SITE_SOURCE,
        "row_id": row_id_for(kind, email.lower(), slug, name, company, now.date().isoformat()),
        "type": kind,
        "occurred_at": now.isoformat(),
        "person": {"email": email or None, "name": name or None},
        "account": {"name": company or None},
        "page": {"url": f"{config.base_url}{path}", "path": path},
        "properties": site_properties(form, request.headers.get("Referer", "")),
    }
    if kind not in FORM_TYPES:
        raise _refused_form([Issue(field="type", code="invalid_type", message="a form type")])
    event = normalize_event(raw, now=now)
    issues = event if isinstance(event, list) else []
    refused = {_VISIBLE_FIELDS[i.field] for i in issues if i.field in _VISIBLE_FIELDS}
    if len(email) > 254 or normalize_email(email) is None:  # also when another field failed first
        refused.add("email")
    if refused:
        first = next(name for name in _VISIBLE_FIELDS.values() if name in refused)
        return _see_other(f"{path}?error=invalid_{first}#leadform")
    if isinstance(event, list):  # only hidden fields failed: no visitor typed them
        raise _refused_form([i.model_copy(update={"field": _form_name(i.field)}) for i in event])
    try:
        queue_events(signal_queue, [browser_facts(event)])
    except ApiError as err:
        if err.status != 503:
            raise
        return _back_to_form(slug, "unavailable", err)  # nothing was queued
    logger.info("collect %s on %s", kind, slug, extra={"event_id": event.id})
    return _see_other(f"{path}?submitted=1")


def _identify(signal_queue: SignalQueue, now: datetime) -> Response:
    """The beacon's `identify()`, sent when the visitor sends a form of the site's own: links
    the browser's visitor id to the address the visitor typed (202, as a beacon)."""
    form = request.form
    email, visitor = form.get("email", "").strip(), form.get("visitor_id", "").strip()
    raw = {
        "source": SITE_SOURCE,
        "row_id": row_id_for(IDENTIFY, email.lower(), visitor, now.date().isoformat()),
        "type": IDENTIFY,
        "occurred_at": now.isoformat(),
        "person": {"email": email or None},
        "properties": site_properties(form, request.headers.get("Referer", "")),
    }
    event = normalize_event(raw, now=now)
    issues = (
        [i.model_copy(update={"field": _form_name(i.field)}) for i in event]
        if isinstance(event, list)
        else []
    )
    if not visitor:
        issues.append(Issue(field="visitor_id", code="missing", message="the beacon's visitor id"))
    if isinstance(event, list) or issues:
        raise _refused_form(issues)
    event = browser_facts(event)
    queue_events(signal_queue, [event])
    logger.info("collect identify", extra={"event_id": event.id})
    return recorded(event.id)


# The visible fields of the lead form, in their order on the page, by the event field each fills.
_VISIBLE_FIELDS = {"person.email": "email", "person.name": "name", "account.name": "company"}


def _form_rate_limited(err: ApiError) -> Response:
    """A form post over the limit goes back to its page, whose form says to wait a minute (a
    visitor's browser would show a problem document as raw JSON); Retry-After stays on the
    answer. A post that names no page gets the 429 itself."""
    slug = request.form.get("page", "").strip()
    if not _SLUG.match(slug) or len(slug) > 80:
        raise err
    return _back_to_form(slug, "rate_limited", err)


def _back_to_form(slug: str, error: str, err: ApiError) -> Response:
    """303 to the page's form in its `error` state (`rate_limited`, or `unavailable` while the
    ingest queue is down), with the refusal's Retry-After."""
    answer = _see_other(f"/p/{slug}?error={error}#leadform")
    answer.headers["Retry-After"] = err.headers["Retry-After"]
    return answer


def _form_name(event_field: str) -> str:
    """The form field behind an event field: `properties.utm_source` came from `utm_source`,
    `person.email` from `email`."""
    if event_field == "person.email":
        return "email"
    return event_field.removeprefix("properties.")


def _refused_form(issues: list[Issue]) -> ApiError:
    return invalid_payload(issues, "The form failed validation")


def _see_other(location: str) -> Response:
    """303 back to the page: the browser shows the thank-you (or error) state, no script needed."""
    return Response(status=303, headers={"Location": location, "Cache-Control": "no-store"})
