"""Signal API under /api/public/v1/signals: the stream, roll-ups, lookups, batch ingest, erasure.

Reads take the signals key (`x-api-key` or `Authorization: Bearer`); ingest and erasure take
the ingest key. Ingest validates and publishes to the queue; the ingest worker stores.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, request

from api.auth import KeyCheck
from api.errors import (
    answer_unavailable,
    bad_request,
    invalid_payload,
    too_large,
    unavailable,
)
from api.rest.json_body import parse_json
from api.rest.signal_access import require_unlimited_signals_key
from api.rest.signal_query import (
    encode_account_cursor,
    parse_account_query,
    parse_latest_query,
    parse_stream_query,
    refuse_parameters,
)
from backends.ports import (
    PageStore,
    SignalQueue,
    SignalStore,
    SuppressionStore,
    UnavailableError,
    WebhookStore,
)
from schemas.errors import Issue
from schemas.signals.bodies import (
    AccountsBody,
    EraseBody,
    IngestBody,
    Refused,
    StreamBody,
)
from schemas.signals.events import (
    MAX_BATCH,
    SITE_SOURCE,
    NewEvent,
    Position,
    encode_cursor,
    normalize_domain,
    normalize_email,
    normalize_event,
)
from services import signal_reads
from services import signals as signals_service
from services.signal_visibility import read_visible_stream, visibility_of
from services.signals import email_hash
from services.suppressions import SUPPRESSED, held_events

logger = logging.getLogger(__name__)
LATEST_EMPTY_MARGIN = timedelta(minutes=5)
_SITE_RESERVED = Issue(
    field="source",
    code="reserved",
    message=f"{SITE_SOURCE!r} is the site's own forms and beacons; name your system instead",
)


def _json(model: Any, status: int = 200) -> Response:
    return current_app.response_class(
        model.model_dump_json(), status=status, mimetype="application/json"
    )


@dataclass(frozen=True)
class SignalPorts:
    """What the Signal API works on: the stored events and the ingest queue, the webhooks and
    suppressions an erasure reaches, the pages a partner's limited key may see, the clock."""

    signals: SignalStore
    signal_queue: SignalQueue
    webhooks: WebhookStore
    suppressions: SuppressionStore
    pages: PageStore
    clock: Callable[[], datetime]


def create_signals_blueprint(*, ports: SignalPorts, keys: KeyCheck) -> Blueprint:
    """The Signal API routes."""
    bp = Blueprint("signals", __name__, url_prefix="/api/public/v1/signals")
    answer_unavailable(bp, "The signal store is unavailable; retry")

    @bp.get("")
    def read_stream() -> Response:
        principal = keys.require("signals", allow_bearer=True)
        parsed = parse_stream_query(request.args, now=ports.clock())
        visibility = visibility_of(
            limits=principal.limits, partner=principal.partner, pages=ports.pages
        )
        if visibility is None:
            page = ports.signals.read_stream(parsed.query)
        else:
            page = read_visible_stream(
                signals=ports.signals, query=parsed.query, visibility=visibility
            )
        cursor = encode_cursor(page.last or parsed.start)
        return _json(StreamBody(events=page.events, next_since=cursor, has_more=page.has_more))

    @bp.get("/latest")
    def read_latest() -> Response:
        """The newest events now (newest first), and the cursor to poll on from the newest."""
        keys.require("signals", allow_bearer=True)
        query = parse_latest_query(request.args)
        page = ports.signals.read_stream(query)
        # With none matching, a poll starts a little back: on Google Cloud an event of the last
        # seconds may still be settling, and it must not fall behind the cursor.
        start = Position(recorded_at=ports.clock() - LATEST_EMPTY_MARGIN)
        cursor = encode_cursor(page.last or start)
        return _json(StreamBody(events=page.events, next_since=cursor, has_more=page.has_more))

    @bp.get("/accounts")
    def list_accounts() -> Response:
        require_unlimited_signals_key(keys, "account roll-ups count every event")
        now = ports.clock()
        query = parse_account_query(request.args, now=now)
        summaries, has_more, last = signal_reads.list_accounts(
            signals=ports.signals, query=query, now=now
        )
        cursor = encode_account_cursor(query.sort, last) if last is not None else None
        return _json(AccountsBody(accounts=summaries, has_more=has_more, next_cursor=cursor))

    @bp.get("/accounts/<raw_domain>")
    def get_account(raw_domain: str) -> Response:
        require_unlimited_signals_key(keys, "account roll-ups count every event")
        refuse_parameters(request.args)
        domain = normalize_domain(raw_domain)
        if domain is None:
            issue = Issue(
                field="domain", code="invalid_domain", message="a domain such as acme.com"
            )
            raise bad_request("invalid_domain", "Give a domain such as acme.com", [issue])
        return _json(
            signal_reads.account_story(signals=ports.signals, domain=domain, now=ports.clock())
        )

    @bp.get("/people/<raw_email>")
    def get_person(raw_email: str) -> Response:
        require_unlimited_signals_key(keys, "person roll-ups count every event")
        email = _email(raw_email)
        return _json(
            signal_reads.person_story(signals=ports.signals, email=email, now=ports.clock())
        )

    @bp.delete("/people/<raw_email>")
    def erase_person(raw_email: str) -> Response:
        principal = keys.require("ingest", allow_bearer=True)
        email = _email(raw_email)
        erased = signals_service.erase_person(
            signals=ports.signals,
            webhooks=ports.webhooks,
            suppressions=ports.suppressions,
            email=email,
            now=ports.clock(),
        )
        logger.info(
            "erased person %s: %d events and %d webhook deliveries removed",
            email_hash(email),
            erased.events_removed,
            erased.deliveries_removed,
            extra={"person_hash": email_hash(email), "key_id": principal.key_id},
        )
        return _json(EraseBody(erased=True, events_removed=erased.events_removed))

    @bp.post("/events")
    def ingest_events() -> Response:
        keys.require("ingest", allow_bearer=True)
        raw_events, imported = _batch(request.get_data())
        now = ports.clock()
        accepted: list[NewEvent] = []
        at: list[int] = []  # each accepted event's index in the batch
        refused: list[Refused] = []
        for index, raw in enumerate(raw_events):
            if isinstance(raw, dict) and raw.get("source") == SITE_SOURCE:
                refused.append(Refused(index=index, id=_raw_id(raw), issues=[_SITE_RESERVED]))
                continue
            result = normalize_event(raw, now=now)
            if isinstance(result, list):
                refused.append(Refused(index=index, id=_raw_id(raw), issues=result))
            else:
                if imported:
                    result = result.model_copy(update={"imported": True})
                accepted.append(result)
                at.append(index)
        held = held_events(accepted, suppressions=ports.suppressions)
        if held:  # erased addresses: refused by name until an operator lifts them
            refused += [Refused(index=at[n], id=accepted[n].id, issues=[SUPPRESSED]) for n in held]
            refused.sort(key=lambda r: r.index)
            accepted = [e for n, e in enumerate(accepted) if n not in held]
        if not accepted:
            issues = [
                Issue(
                    field=f"events.{r.index}.{i.field}".rstrip("."), code=i.code, message=i.message
                )
                for r in refused
                for i in r.issues
            ] or [Issue(field="events", code="too_few", message="at least 1 event")]
            raise invalid_payload(issues, "No event was accepted")
        queue_events(ports.signal_queue, accepted)
        ids = list(dict.fromkeys(e.id for e in accepted))
        return _json(IngestBody(accepted=ids, refused=refused), status=202)

    return bp


def queue_events(signal_queue: SignalQueue, events: list[NewEvent]) -> None:
    """Hand events to the ingest queue. Raises: ApiError 503 when the queue is down."""
    try:
        signals_service.queue_events(signal_queue=signal_queue, events=events)
    except UnavailableError as err:
        logger.warning("signal queue unavailable: %s", err)
        raise unavailable("Could not queue the events; retry") from err


def _email(raw: str) -> str:
    refuse_parameters(request.args)
    email = normalize_email(raw)
    if email is None:
        issue = Issue(field="email", code="invalid_email", message="an email address")
        raise bad_request("invalid_email", "Give an email address such as ada@acme.com", [issue])
    return email


def _batch(data: bytes) -> tuple[list[Any], bool]:
    """The batch's events and whether it is an import (`"import": true`: history, no alerts)."""
    body = parse_json(data)
    if not isinstance(body, dict) or not isinstance(events := body.get("events"), list):
        issue = Issue(field="events", code="missing", message="an array of events")
        raise invalid_payload([issue], 'Send {"events": [...]}')
    imported = body.get("import", False)
    if not isinstance(imported, bool):
        issue = Issue(field="import", code="invalid_type", message="true or false")
        raise invalid_payload([issue], '"import" is true or false')
    if unknown := sorted(set(body) - {"events", "import"}):
        # As for an event's own fields: a misspelt member is refused, never ignored.
        issues = [
            Issue(field=name, code="unknown_field", message="unknown field") for name in unknown
        ]
        raise invalid_payload(issues, 'Send {"events": [...]}')
    if len(events) > MAX_BATCH:
        issue = Issue(field="events", code="too_long", message=f"at most {MAX_BATCH} events")
        raise too_large(f"At most {MAX_BATCH} events per request", [issue])
    return events, imported


def _raw_id(raw: Any) -> str | None:
    if isinstance(raw, dict) and isinstance(raw.get("source"), str) and raw.get("row_id"):
        return f"{raw['source']}:{raw['row_id']}"
    return None
