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
address is still refused). Every refusal is counted and logged (api/rest/collect_refusals.py).
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
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit, urlunsplit

from flask import Blueprint, Response, current_app, json, request
from werkzeug.datastructures import Headers

from api.config import AppConfig
from api.errors import ApiError, unsupported_media_type
from api.rest.collect_refusals import CollectRefusals, RefusalReason
from api.rest.json_body import parse_json
from api.rest.signals import queue_events
from backends.bundle import Backends
from schemas.errors import Issue
from schemas.signals.bodies import CollectBody
from schemas.signals.events import (
    SITE_FIELDS,
    SITE_SOURCE,
    UTM_FIELDS,
    VISITOR_ID,
    NewEvent,
    normalize_email,
    normalize_event,
    row_id_for,
)

logger = logging.getLogger(__name__)

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
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_BEACON_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_BEACON_BYTES = 16 * 1024


@dataclass
class RateLimiter:
    """Fixed-window counts per client hash, in this process's memory."""

    limit: int = 20
    window: timedelta = timedelta(minutes=1)
    _hits: dict[str, tuple[datetime, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def retry_after(self, client: str, *, now: datetime) -> int | None:
        """Count one hit; the seconds to wait if the client is over its limit."""
        with self._lock:
            if len(self._hits) > 10_000:
                self._hits = {k: v for k, v in self._hits.items() if v[0] + self.window > now}
            start, count = self._hits.get(client, (now, 0))
            if start + self.window <= now:
                start, count = now, 0
            self._hits[client] = (start, count + 1)
            if count + 1 > self.limit:
                return max(1, int((start + self.window - now).total_seconds() + 0.999))
            return None


@dataclass
class CollectLimits:
    """Forms and id-less beacons per address; page views per visitor id and per address."""

    forms: RateLimiter = field(default_factory=RateLimiter)
    visitors: RateLimiter = field(default_factory=lambda: RateLimiter(limit=60))
    addresses: RateLimiter = field(default_factory=lambda: RateLimiter(limit=1200))


def create_collect_blueprint(
    config: AppConfig,
    *,
    backends: Backends,
    limiter: RateLimiter | None = None,
    limits: CollectLimits | None = None,
    refusals: CollectRefusals | None = None,
) -> Blueprint:
    """The collect route for this deployment's origin."""
    bp = Blueprint("collect", __name__, url_prefix="/api/public/v1")
    hosts = {urlsplit(o).netloc.lower() for o in (config.base_url, *config.collect_allowed_origins)}
    per_visitor, per_address = config.collect_limits
    rate = limits or CollectLimits(
        forms=limiter or RateLimiter(),
        visitors=RateLimiter(limit=per_visitor),
        addresses=RateLimiter(limit=per_address),
    )
    salt = secrets.token_bytes(16)  # per process: client hashes can't be reversed by lookup
    refused = refusals or CollectRefusals()

    def hashed(key: str) -> str:
        return hashlib.sha256(salt + key.encode()).hexdigest()[:16]

    def check_rate(
        key: str, limiter: RateLimiter, now: datetime, *, reason: RefusalReason, client: str
    ) -> None:
        wait = limiter.retry_after(hashed(key), now=now)
        if wait is not None:
            refused.count(reason, client_hash=hashed(client))
            raise ApiError(
                429, "rate_limited", "Too many submissions", headers={"Retry-After": str(wait)}
            )

    @bp.post("/collect")
    def collect() -> Response:
        now = backends.clock()
        headers = request.headers
        address = _client_ip(config, headers)
        if _origin_host(headers) not in hosts:
            refused.count("foreign_origin", client_hash=hashed(address))
            raise ApiError(403, "forbidden", "Collect accepts posts from this site only")
        mimetype = request.mimetype
        if mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            # Every form post names a person: one address gets the form limit, whatever
            # visitor ids it sends.
            try:
                check_rate(address, rate.forms, now, reason="over_form_limit", client=address)
            except ApiError as err:
                return _form_rate_limited(err)
            return _form(backends, config, now)
        if mimetype in ("application/json", "text/plain"):
            try:
                body = _beacon_body()
            except ApiError:
                check_rate(
                    address, rate.forms, now, reason="over_form_limit", client=address
                )  # a bad body counts too
                raise
            visitor = _visitor(body)
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
                return _beacon(backends, body, now)
            except ForgedBeaconError as err:
                refused.count("forged_beacon", client_hash=hashed(address), detail=err.fields)
                raise err.refusal from None
        check_rate(address, rate.forms, now, reason="over_form_limit", client=address)
        raise unsupported_media_type("Send a form post or a JSON beacon")

    return bp


def _visitor(body: dict[str, Any]) -> str | None:
    properties = body.get("properties")
    visitor = properties.get("visitor_id") if isinstance(properties, dict) else None
    return visitor if isinstance(visitor, str) and VISITOR_ID.match(visitor) else None


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


def _client_ip(config: AppConfig, headers: Headers) -> str:
    # Embedded mode listens to its clients directly; in gcp mode our own proxies append to
    # X-Forwarded-For and only their entries can be trusted.
    hops = config.forwarded_for_hops if config.mode == "gcp" else 0
    return client_address(headers.get("X-Forwarded-For", ""), request.remote_addr or "", hops=hops)


def client_address(forwarded_for: str, peer: str, *, hops: int) -> str:
    """The client's address: the `hops`-th X-Forwarded-For entry from the end, else the peer.

    Each trusted proxy appends what it saw; everything to the left of the entries they wrote
    is the client's own claim and spoofable. The Google external Application Load Balancer
    appends `<client>,<load balancer>`, so behind it the client is 2 from the end; a bare
    Cloud Run URL appends `<client>` (1). 0 ignores the header. A header with fewer entries
    than that did not come through those proxies: the peer address is used.
    """
    entries = [p.strip() for p in forwarded_for.split(",")] if forwarded_for.strip() else []
    if hops < 1 or len(entries) < hops or not entries[-hops]:
        return peer
    return entries[-hops]


def _form(backends: Backends, config: AppConfig, now: datetime) -> Response:
    form = request.form
    if form.get("type") == IDENTIFY:
        return _identify(backends, now)
    slug = form.get("page", "").strip()
    if not _SLUG.match(slug) or len(slug) > 80:
        issue = Issue(field="page", code="invalid_format", message="the slug of a /p/ page")
        raise ApiError(422, "invalid_payload", "The form names no page", issues=[issue])
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
        queue_events(backends, [_browser_facts(event)])
    except ApiError as err:
        if err.status != 503:
            raise
        return _back_to_form(slug, "unavailable", err)  # nothing was queued
    logger.info("collect %s on %s", kind, slug, extra={"event_id": event.id})
    return _see_other(f"{path}?submitted=1")


def _identify(backends: Backends, now: datetime) -> Response:
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
    event = _browser_facts(event)
    queue_events(backends, [event])
    logger.info("collect identify", extra={"event_id": event.id})
    return _recorded(event.id)


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
    return ApiError(422, "invalid_payload", "The form failed validation", issues=issues)


def _beacon_body() -> dict[str, Any]:
    data = request.get_data()
    if len(data) > MAX_BEACON_BYTES:
        raise ApiError(
            413,
            "payload_too_large",
            "A beacon is at most 16 KiB",
            issues=[Issue(field="", code="too_long", message="at most 16 KiB")],
        )
    body = parse_json(data)
    if not isinstance(body, dict):
        issue = Issue(field="", code="invalid_type", message="a JSON object")
        raise ApiError(422, "invalid_payload", "Send a JSON object", issues=[issue])
    return body


class ForgedBeaconError(Exception):
    """A beacon that tried to say what no browser sees (a person, an account, a time, a form
    type): the 422 to answer, and the fields, for the operators' count."""

    def __init__(self, refusal: ApiError, fields: str) -> None:
        super().__init__(fields)
        self.refusal = refusal
        self.fields = fields


def _beacon(backends: Backends, body: dict[str, Any], now: datetime) -> Response:
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
        refusal = ApiError(422, "invalid_payload", "The beacon failed validation", issues=issues)
        if forged:
            raise ForgedBeaconError(refusal, ", ".join(forged))
        raise refusal
    event = _browser_facts(event)
    queue_events(backends, [event])
    return _recorded(event.id)


def _browser_facts(event: NewEvent) -> NewEvent:
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


def _recorded(event_id: str) -> Response:
    return current_app.response_class(
        CollectBody(id=event_id, recorded=True).model_dump_json(),
        status=202,
        mimetype="application/json",
    )


def _issue(field_name: str, code: str, message: str) -> Issue:
    return Issue(field=field_name, code=code, message=message)


def _see_other(location: str) -> Response:
    """303 back to the page: the browser shows the thank-you (or error) state, no script needed."""
    return Response(status=303, headers={"Location": location, "Cache-Control": "no-store"})
