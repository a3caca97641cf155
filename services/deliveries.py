"""Webhook deliveries: fan an event out to endpoints, schedule a job's callback, run one
attempt, replay.

The shell around services/delivery_policy.py and services/job_callbacks.py. Every attempt is its
own task on the TaskQueue that calls POST /internal/deliveries/{id}/attempt; the attempt checks
the target (SSRF guard), signs afresh (Standard Webhooks timestamps expire after 5 minutes),
POSTs with httpx to the checked address, records the outcome and queues the next attempt as a
new task. Tasks carry the attempt number, so a task run twice changes nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from backends.ports import (
    ConflictError,
    Delivery,
    DeliveryOptions,
    HttpTask,
    JobStore,
    NotFoundError,
    TaskQueue,
    WebhookEndpoint,
    WebhookStore,
)
from schemas.content.jobs import JobRecord
from schemas.signals.events import Event
from schemas.signals.evidence import EvidenceRecord
from schemas.signals.rollups import (
    TYPE_STAGE,
    AccountRollup,
    AccountSummary,
    PersonRollup,
    account_summary,
    person_summary,
)
from schemas.signals.webhooks import DeliveryAccount, DeliveryEnvelope, DeliveryPerson
from services.delivery_policy import (
    AttemptResult,
    classify,
    delivery_id_for,
    endpoint_wants,
    next_delivery_state,
    replayed,
    signing_secrets,
)
from services.job_callbacks import callback_delivery, callback_target, is_callback
from services.signing import sign_headers
from services.slack_messages import slack_message
from services.target_guard import (
    SafeTarget,
    UnresolvedTargetError,
    UnsafeTargetError,
    check_target,
    system_resolver,
)

logger = logging.getLogger(__name__)

ATTEMPT_PATH = "/internal/deliveries/{delivery_id}/attempt"
INTERNAL_TOKEN_HEADER = "X-Frontdoor-Internal-Token"  # noqa: S105  # a header name
USER_AGENT = "frontdoor-webhooks/1"
AccountLookup = Callable[[str], AccountRollup | None]
PersonLookup = Callable[[str], PersonRollup | None]
ACCOUNT_PATH = "/api/public/v1/signals/accounts/{domain}"


@dataclass(frozen=True)
class Context:
    """The account and person of one event as they stood when its deliveries were made."""

    account: AccountSummary | None = None
    person: DeliveryPerson | None = None


def is_fresh(event: Event, *, now: datetime, window: timedelta) -> bool:
    """An event alerts only if it was not imported and happened within the window before now."""
    return not event.imported and now - event.occurred_at <= window


@dataclass(frozen=True)
class Target:
    """Where one attempt goes and the secrets that sign it."""

    url: str
    secrets: list[str]


class WebhookDeliveries:
    """The ingest worker's SignalDeliveries: each stored event to every matching endpoint, with
    its account and person as they stand once the batch is stored."""

    def __init__(
        self,
        *,
        webhooks: WebhookStore,
        tasks: TaskQueue,
        options: DeliveryOptions,
        clock: Callable[[], datetime],
        accounts: AccountLookup | None = None,
        people: PersonLookup | None = None,
    ) -> None:
        self._webhooks = webhooks
        self._tasks = tasks
        self._options = options
        self._clock = clock
        self._accounts = accounts
        self._people = people

    def enqueue_for_event(self, event: Event) -> None:
        """Schedule the event's deliveries (idempotent per event id)."""
        self.enqueue_for_events([event])

    def enqueue_for_events(self, events: Sequence[Event]) -> None:
        """Each event's deliveries, the endpoints read once; nothing to do without any.

        Roll-ups are read once per account and person of the batch, and only for events some
        endpoint takes.
        """
        endpoints = [e for e in self._webhooks.list_endpoints() if e.active]
        if not endpoints:
            return
        now = self._clock()
        accounts: dict[str, AccountRollup | None] = {}
        people: dict[str, PersonRollup | None] = {}

        def account(domain: str) -> AccountRollup | None:
            if domain not in accounts:
                accounts[domain] = self._accounts(domain) if self._accounts else None
            return accounts[domain]

        def person(email: str) -> PersonRollup | None:
            if email not in people:
                people[email] = self._people(email) if self._people else None
            return people[email]

        for event in events:
            fresh = is_fresh(event, now=now, window=self._options.fresh_window)
            schedule_deliveries(
                event.model_dump(mode="json"),
                webhooks=self._webhooks,
                tasks=self._tasks,
                options=self._options,
                now=now,
                reached_stage=partial(_reached_stage, event, account) if fresh else _no_stage,
                endpoints=endpoints,
                fresh=fresh,
                context=partial(_context, event, account, person, now),
            )


def _no_stage() -> str | None:
    return None


def _reached_stage(event: Event, account_of: AccountLookup) -> str | None:
    """The stage this event took its account to (its roll-up says the stage was reached when
    the event happened), else None."""
    domain = event.account.domain
    account = account_of(domain) if domain else None
    if account is None or account.stage_reached_at != event.occurred_at:
        return None
    # The event must show that stage itself: a CRM export stamps a day's touches with one
    # time, and a page view of the same time as the hand-raise reached nothing.
    shown = TYPE_STAGE[event.type]
    by_pages = account.stage == "engaged" and bool(event.page.path)  # a 3rd distinct page
    return account.stage if shown == account.stage or by_pages else None


def _context(
    event: Event,
    account_of: AccountLookup,
    person_of: PersonLookup,
    now: datetime,
) -> Context:
    """The event's account and person summaries at `now`. A delivery quotes no one's words but
    the delivered event's own: erasing a person erases the deliveries of their events, and no
    other delivery keeps what they wrote."""
    domain, email = event.account.domain, event.person.email
    account = account_of(domain) if domain else None
    person = person_of(email) if email else None
    account_view = None
    if account is not None:
        own = dataclasses.replace(
            account,
            stage_event=_own_words(account.stage_event, event.id),
            last_event=_own_words(account.last_event, event.id),
        )
        account_view = account_summary(own, now=now)
    person_view = None
    if person is not None:
        summary = person_summary(person, now=now)
        person_view = DeliveryPerson(
            email=summary.email,
            name=summary.name,
            stage=summary.stage,
            stage_reached_at=summary.stage_reached_at,
            score=summary.score,
            trend=summary.trend,
        )
    return Context(account=account_view, person=person_view)


def _own_words(record: EvidenceRecord | None, event_id: str) -> EvidenceRecord | None:
    if record is None or record.get("id") == event_id or not record.get("words"):
        return record
    return {**record, "words": None}


def _delivered_account(summary: AccountSummary | None) -> DeliveryAccount | None:
    if summary is None:
        return None
    return DeliveryAccount(
        domain=summary.domain,
        name=summary.name,
        stage=summary.stage,
        stage_reached_at=summary.stage_reached_at,
        stage_event=summary.stage_event,
        score=summary.score,
        trend=summary.trend,
        reasons=summary.reasons,
    )


def schedule_deliveries(
    event: Mapping[str, Any],
    *,
    webhooks: WebhookStore,
    tasks: TaskQueue,
    options: DeliveryOptions,
    now: datetime,
    reached_stage: Callable[[], str | None] = _no_stage,
    endpoints: Sequence[WebhookEndpoint] | None = None,
    fresh: bool = True,
    context: Callable[[], Context] = Context,
) -> list[str]:
    """Create one delivery per interested endpoint and queue its first attempt; their ids.

    Idempotent: the delivery id comes from endpoint and event, and the task name dedupes.
    A Slack endpoint gets Slack's message format, and only for a `fresh` event (alerts are for
    touches that just happened); `reached_stage` is asked only when some endpoint alerts on
    stages, `context` (the account and person now) only when some endpoint takes the event.
    """
    event_id, event_type = str(event["id"]), str(event["type"])
    if endpoints is None:  # a batch's caller reads them once for all its events
        endpoints = webhooks.list_endpoints()
    stage = reached_stage() if any(e.stages and e.active for e in endpoints) else None
    wanted = [
        e
        for e in endpoints
        if endpoint_wants(e, event_type, reached_stage=stage) and (fresh or e.kind != "slack")
    ]
    if not wanted:
        return []
    found = context()
    envelope = DeliveryEnvelope(
        type=f"signal.{event_type}",
        timestamp=now,
        data=dict(event),
        fresh=fresh,
        account=_delivered_account(found.account),
        person=found.person,
    )
    standard = envelope.model_dump_json()
    scheduled = []
    for endpoint in wanted:
        payload = standard
        if endpoint.kind == "slack":
            alert = stage if stage in endpoint.stages else None
            message = slack_message(
                event,
                reached_stage=alert,
                account=found.account,
                timeline_url=_timeline_url(options, found.account),
            )
            payload = json.dumps(message, separators=(",", ":"))
        delivery = Delivery(
            delivery_id=delivery_id_for(endpoint_id=endpoint.endpoint_id, event_id=event_id),
            endpoint_id=endpoint.endpoint_id,
            event_id=event_id,
            event_type=event_type,
            payload=payload,
            status="pending",
            created_at=now,
            next_attempt_at=now,
        )
        if _add_and_enqueue(delivery, webhooks=webhooks, tasks=tasks, options=options):
            scheduled.append(delivery.delivery_id)
    return scheduled


def _timeline_url(options: DeliveryOptions, account: AccountSummary | None) -> str | None:
    if account is None or not options.public_base_url:
        return None
    return options.public_base_url + ACCOUNT_PATH.format(domain=account.domain)


def callback_notifier(
    *,
    webhooks: WebhookStore,
    tasks: TaskQueue,
    options: DeliveryOptions,
    base_url: str,
    clock: Callable[[], datetime],
) -> Callable[[JobRecord], None]:
    """The pipeline's `notify`: schedule the callback of a finished job, if it asked for one."""

    def notify(job: JobRecord) -> None:
        delivery = callback_delivery(job, base_url=base_url, now=clock())
        if delivery is None:
            return
        if _add_and_enqueue(delivery, webhooks=webhooks, tasks=tasks, options=options):
            logger.info("job %s callback scheduled", job.id, extra={"job_id": job.id})

    return notify


def _add_and_enqueue(
    delivery: Delivery, *, webhooks: WebhookStore, tasks: TaskQueue, options: DeliveryOptions
) -> bool:
    """Store a new delivery and queue its first attempt; False if it exists and has started.

    A repeat (a redelivered message, a job finished twice) keeps the stored delivery, its id
    and its payload; it only queues the first attempt again if none was made (the task name
    dedupes), in case the first run died between storing and queueing.
    """
    if not webhooks.add_delivery(delivery):
        stored = webhooks.get_delivery(delivery.delivery_id)
        if stored is None or stored.status != "pending" or stored.attempts > 0:
            return False
        delivery = stored
    enqueue_attempt(delivery, tasks=tasks, options=options)
    return True


def enqueue_attempt(delivery: Delivery, *, tasks: TaskQueue, options: DeliveryOptions) -> bool:
    """Queue the delivery's next attempt for its `next_attempt_at`; False if already queued."""
    attempt = delivery.attempts + 1
    body = {"delivery_id": delivery.delivery_id, "attempt": attempt, "replays": delivery.replays}
    return tasks.enqueue(
        internal_task(
            options,
            name=f"{delivery.delivery_id}-{delivery.replays}-{attempt}",
            path=ATTEMPT_PATH.format(delivery_id=delivery.delivery_id),
            body=body,
            at=delivery.next_attempt_at,
        )
    )


def internal_task(
    options: DeliveryOptions, *, name: str, path: str, body: object, at: datetime | None
) -> HttpTask:
    """A task that calls this service's internal route `path` at `at` (None: at once) with a
    JSON `body`, presenting the internal token the route checks."""
    return HttpTask(
        name=name,
        url=options.attempt_base_url + path,
        body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", INTERNAL_TOKEN_HEADER: options.internal_token},
        schedule_time=at,
    )


def attempt_delivery(
    delivery_id: str,
    *,
    attempt: int,
    replays: int,
    webhooks: WebhookStore,
    jobs: JobStore,
    tasks: TaskQueue,
    options: DeliveryOptions,
    now: datetime,
) -> Delivery | None:
    """Run attempt number `attempt` of a delivery, record it and queue the next; the delivery.

    A task for an attempt already made, for a finished delivery, or for a delivery erased
    meanwhile (a person's erasure removes their deliveries while an attempt may be in flight)
    changes nothing (None); an endpoint deleted meanwhile is not disabled.
    Raises: UnavailableError (the task queue retries the task).
    """
    delivery = webhooks.get_delivery(delivery_id)
    if delivery is None or delivery.replays != replays or delivery.status != "pending":
        return None
    if delivery.attempts + 1 != attempt:
        if delivery.attempts == attempt:  # recorded, but the next task may not be queued yet
            enqueue_attempt(delivery, tasks=tasks, options=options)
        return None
    endpoint = None if is_callback(delivery) else webhooks.get_endpoint(delivery.endpoint_id)
    target = _target(delivery, endpoint, jobs=jobs, now=now)
    checked = target if isinstance(target, str) else check_delivery_target(target, options=options)
    if isinstance(checked, str):  # nothing to send to: failed at once, no retries, no probe
        result = AttemptResult(status_code=None, error=checked)
        updated = next_delivery_state(delivery, result, now=now, delays=())
    else:
        result = send_delivery(delivery, checked, options=options, now=now)
        updated = next_delivery_state(delivery, result, now=now, delays=options.retry_delays)
    try:
        webhooks.update_delivery(
            updated, if_attempts=delivery.attempts, if_replays=delivery.replays
        )
    except ConflictError:
        return None  # a concurrent run of the same task recorded it first
    except NotFoundError:
        logger.info("delivery %s erased during its attempt; not recorded", delivery_id)
        return None
    if endpoint is not None and classify(result) == "gone":
        _disable_gone(webhooks, endpoint.endpoint_id, now=now)
    if updated.status == "pending":
        enqueue_attempt(updated, tasks=tasks, options=options)
    logger.info(
        "delivery %s attempt %d: %s",
        delivery_id,
        attempt,
        updated.status,
        extra={"delivery_id": delivery_id, "status_code": result.status_code},
    )
    if updated.status == "failed":
        logger.warning(
            "delivery %s failed for good: %s",
            delivery_id,
            updated.last_error,
            # terraform/monitoring.tf counts these; partners list and replay failed webhook
            # deliveries, operators find failed callbacks under endpoint CALLBACK_ENDPOINT
            extra={
                "delivery_id": delivery_id,
                "endpoint_id": updated.endpoint_id,
                "event": "delivery_failed",
            },
        )
    return updated


def _disable_gone(webhooks: WebhookStore, endpoint_id: str, *, now: datetime) -> None:
    try:
        webhooks.disable_endpoint(endpoint_id, reason="receiver answered 410 Gone", now=now)
    except NotFoundError:
        return  # deleted by its partner meanwhile: nothing left to disable
    logger.info("webhook endpoint %s disabled: 410 Gone", endpoint_id)


def replay_delivery(
    delivery: Delivery,
    *,
    webhooks: WebhookStore,
    tasks: TaskQueue,
    options: DeliveryOptions,
    now: datetime,
) -> Delivery:
    """Send a delivery again now, from its first attempt (same `webhook-id`).

    A pending one waiting for a retry starts its new round at once; the retry task already
    queued carries the old round and changes nothing. Raises: ConflictError if it changed
    meanwhile, NotFoundError if it was erased meanwhile.
    """
    again = replayed(delivery, now=now)
    webhooks.update_delivery(again, if_attempts=delivery.attempts, if_replays=delivery.replays)
    enqueue_attempt(again, tasks=tasks, options=options)
    return again


def _target(
    delivery: Delivery, endpoint: WebhookEndpoint | None, *, jobs: JobStore, now: datetime
) -> Target | str:
    """The delivery's target: its endpoint's, or its job's for a callback; else why none."""
    if is_callback(delivery):
        found = callback_target(jobs.get_job(delivery.event_id))
        return "job_deleted" if found is None else Target(url=found[0], secrets=found[1])
    if endpoint is None or not endpoint.active:
        return "endpoint_deleted" if endpoint is None else "endpoint_disabled"
    return Target(url=endpoint.url, secrets=signing_secrets(endpoint.secrets, now=now))


@dataclass(frozen=True)
class CheckedTarget:
    """A target the SSRF guard let through: where to connect, and the secrets that sign."""

    safe: SafeTarget | None  # None: a name with no address now (retried, nothing sent)
    secrets: list[str]
    unresolved: str = ""


def check_delivery_target(target: Target, *, options: DeliveryOptions) -> CheckedTarget | str:
    """The target checked now (resolved once, here), or why it is refused: `refused: ...`,
    recorded without any connection being made (a refused target fails at once; a name that
    does not resolve is retried, as DNS may answer later)."""
    try:
        safe = check_target(
            target.url,
            allow_loopback=options.allow_loopback,
            resolve=options.resolver or system_resolver,
            own_origins=options.own_origins,
        )
    except UnresolvedTargetError as err:
        return CheckedTarget(safe=None, secrets=target.secrets, unresolved=err.reason)
    except UnsafeTargetError as err:
        return f"refused: {err.reason}"
    return CheckedTarget(safe=safe, secrets=target.secrets)


def send_delivery(
    delivery: Delivery, target: CheckedTarget, *, options: DeliveryOptions, now: datetime
) -> AttemptResult:
    """POST the payload, signed now, to the addresses the guard checked (never resolved again).

    An error names what went wrong on our side of the wire (`timeout`, `connection failed`,
    `HTTP <code>`) and nothing the target said beyond its status code.
    """
    safe = target.safe
    if safe is None:
        return AttemptResult(status_code=None, error=target.unresolved)
    headers = sign_headers(
        msg_id=delivery.delivery_id, body=delivery.payload, secrets=target.secrets, now=now
    )
    headers.update({"Content-Type": "application/json", "User-Agent": USER_AGENT})
    url, extensions = _pinned(safe)
    headers["Host"] = safe.url.netloc
    import httpx  # loaded with the first delivery, not with the app (bench_startup)

    try:
        with httpx.Client(
            timeout=options.timeout_seconds, follow_redirects=False, trust_env=False
        ) as http:
            response = http.post(
                url, content=delivery.payload.encode(), headers=headers, extensions=extensions
            )
    except httpx.TimeoutException:
        return AttemptResult(status_code=None, error="timeout")
    except httpx.HTTPError:
        # One word for every failure before an answer: which one (refused, reset, not HTTP)
        # would tell a key holder what listens at an address.
        return AttemptResult(status_code=None, error="connection failed")
    code = response.status_code
    return AttemptResult(status_code=code, error=None if 200 <= code < 300 else f"HTTP {code}")


def _pinned(target: SafeTarget) -> tuple[str, dict[str, Any]]:
    """The URL with the checked address in place of the name; TLS still verifies the name."""
    address = target.addresses[0]
    host = f"[{address}]" if ":" in address else address
    path = target.url.path or "/"
    query = f"?{target.url.query}" if target.url.query else ""
    url = f"{target.url.scheme}://{host}:{target.port}{path}{query}"
    extensions: dict[str, Any] = {}
    if target.url.scheme == "https":
        extensions["sni_hostname"] = target.host
    return url, extensions
