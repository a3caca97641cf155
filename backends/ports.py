"""The ports: one small Protocol per need, their value types and the errors adapters raise.

Adapters translate client exceptions into these errors; nothing here does I/O.
Each section belongs to one capability; keep edits inside your section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

from schemas.jobs import JobRecord
from schemas.signal_rollups import AccountRollup, PersonRollup, Stage
from schemas.signals import Event, NewEvent, Position

__all__ = [
    "ApiKeyRecord",
    "Cdn",
    "ConflictError",
    "IdempotencyBegin",
    "IdempotencyStore",
    "KeyStore",
    "Mailer",
    "NotFoundError",
    "PageList",
    "PageStatus",
    "PageStore",
    "PortError",
    "Scope",
    "StoredPage",
    "StoredResponse",
    "UnavailableError",
]


class PortError(Exception):
    """Base of every error an adapter raises."""


class NotFoundError(PortError):
    """The record asked for does not exist."""


class ConflictError(PortError):
    """The write lost a race or would overwrite what it must not (a version check failed)."""


class UnavailableError(PortError):
    """The backend cannot answer now; the caller may retry."""


# --- keys (issue 3) -------------------------------------------------------------------

Scope = Literal["content", "signals", "ingest"]
SCOPES: tuple[Scope, ...] = ("content", "signals", "ingest")


@dataclass(frozen=True)
class ApiKeyRecord:
    """A partner key as stored: the secret only as its hash."""

    key_id: str
    partner: str
    scope: Scope
    secret_hash: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class KeyStore(Protocol):
    """Partner API keys, hashed at rest."""

    def add_key(self, record: ApiKeyRecord) -> None:
        """Store a new key. Raises: ConflictError if the key id exists."""

    def get_key(self, key_id: str) -> ApiKeyRecord | None:
        """The key with this id, revoked or not."""

    def revoke_key(self, key_id: str, *, now: datetime) -> ApiKeyRecord:
        """Mark a key revoked (idempotent). Raises: NotFoundError."""

    def list_keys(self) -> list[ApiKeyRecord]:
        """Every key, oldest first."""


# --- cdn (issue 4; the Cloud CDN adapter comes with issue 8) ----------------------------


class Cdn(Protocol):
    """The cache in front of public pages."""

    def purge(self, path: str) -> None:
        """Invalidate one path, e.g. /p/launch."""


# --- mail (issue 7) --------------------------------------------------------------------


class Mailer(Protocol):
    """Outbound mail (sign-in codes)."""

    def send(self, *, to: str, subject: str, text: str) -> None:
        """Send one plain-text message."""


# --- pages, idempotency (issue 4) ------------------------------------------------------

PageStatus = Literal["draft", "published", "unpublished"]
PAGE_STATUSES: tuple[PageStatus, ...] = ("draft", "published", "unpublished")
PageSource = Literal["api", "generate"]


@dataclass(frozen=True)
class StoredPage:
    """A landing page as stored: its validated input as JSON plus what the service adds.

    `page_input` is the SitePageInput as plain JSON (a dict), kept exactly as merged so that a
    PATCH (JSON merge patch) applies over it. `version` starts at 1 and grows by one per write.
    """

    slug: str
    version: int
    status: PageStatus
    source: PageSource
    page_input: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None = None
    hero_image_url: str | None = None
    gate_passed: bool = True
    gate_ruleset: str = ""


@dataclass(frozen=True)
class PageList:
    """One page of a listing, newest first; `next_cursor` is None on the last page."""

    pages: tuple[StoredPage, ...]
    next_cursor: str | None = None


class PageStore(Protocol):
    """Landing pages by slug, with optimistic concurrency on `version`."""

    def get_page(self, slug: str) -> StoredPage | None:
        """The page with this slug, in any status."""

    def list_pages(
        self, *, status: PageStatus | None = None, cursor: str | None = None, limit: int = 50
    ) -> PageList:
        """Pages newest first (by `updated_at`, then slug). Raises: ValueError on a bad cursor."""

    def save_page(self, page: StoredPage, *, expected_version: int) -> StoredPage:
        """Create or replace atomically if the stored version is `expected_version` (0: absent).

        Raises: ConflictError if another write got there first; nothing is changed then.
        """


IDEMPOTENCY_TTL = timedelta(hours=24)
# A request that began but never completed (its process died) frees its key after this.
IDEMPOTENCY_LEASE = timedelta(minutes=5)

IdempotencyState = Literal["new", "in_flight", "replay", "mismatch"]


@dataclass(frozen=True)
class StoredResponse:
    """The first response to an idempotent request, replayed for repeats."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IdempotencyBegin:
    """What `begin` found: go ahead (`new`), wait (`in_flight`), replay, or a different body."""

    state: IdempotencyState
    response: StoredResponse | None = None


class IdempotencyStore(Protocol):
    """Idempotency-Key records, scoped per partner key, kept IDEMPOTENCY_TTL from the first use."""

    def begin(self, *, scope: str, key: str, fingerprint: str, now: datetime) -> IdempotencyBegin:
        """Claim the key for this request fingerprint (atomically), or report what holds it."""

    def complete(
        self, *, scope: str, key: str, fingerprint: str, response: StoredResponse, now: datetime
    ) -> None:
        """Store the first response of a claimed key so repeats replay it."""

    def release(self, *, scope: str, key: str, fingerprint: str) -> None:
        """Give up a claim that produced no response to keep (a crash or a 5xx), so a retry runs."""


# --- jobs, job queue, blobs, tasks (issue 5) -------------------------------------------

__all__ += ["Blob", "BlobStore", "JobChange", "JobQueue", "JobStore"]

JobChange = Callable[[JobRecord], JobRecord]


class JobStore(Protocol):
    """Generation jobs, each updated only by read-modify-write in one transaction."""

    def create_job(self, job: JobRecord) -> None:
        """Store a new job. Raises: ConflictError if its id exists."""

    def get_job(self, job_id: str) -> JobRecord | None:
        """The job with this id, if any."""

    def update_job(self, job_id: str, change: JobChange) -> JobRecord:
        """Apply `change` to the stored job atomically and store what it returns.

        `change` is pure and may run more than once (a retried transaction); it raises to
        abort without writing. Raises: NotFoundError, and whatever `change` raises.
        """

    def wait_finished(self, job_id: str, seconds: float) -> JobRecord | None:
        """The job once finished, or as stored when `seconds` have passed; None if unknown.

        SQLite wakes on the finishing write of an in-process worker; Firestore polls.
        """


class JobQueue(Protocol):
    """Hands a job id to the generation workers (Pub/Sub, or in-process threads)."""

    def publish_job(self, job_id: str) -> None:
        """Enqueue one job. Raises: UnavailableError."""

    def wait(self, seconds: float) -> None:
        """Block up to `seconds`; in-process queues return early when a delivery finishes."""


@dataclass(frozen=True)
class Blob:
    """A stored object: its bytes and how to serve them."""

    data: bytes
    content_type: str
    cache_control: str


class BlobStore(Protocol):
    """Public files such as hero images; served at /assets/ or by Cloud Storage and CDN."""

    def put_blob(self, name: str, blob: Blob) -> str:
        """Store (or overwrite) `name`; its public URL. Raises: UnavailableError."""

    def get_blob(self, name: str) -> Blob | None:
        """The object called `name`, if stored."""


# --- signals (issue 6) -----------------------------------------------------------------

__all__ += [
    "AccountQuery",
    "SignalDeliveries",
    "SignalQueue",
    "SignalStore",
    "StoreResult",
    "StreamPage",
    "StreamQuery",
]


@dataclass(frozen=True)
class StreamQuery:
    """One read of the stream, bounds on `recorded_at` already resolved by the caller.

    `forward`: walk up from `after` and return the oldest `limit` events after it (newest
    first); otherwise the newest `limit` events at or after `after` (a days window, or all).
    """

    after: Position | None = None
    until: datetime | None = None  # exclusive
    forward: bool = False
    types: tuple[str, ...] = ()
    domain: str | None = None
    email: str | None = None
    words: tuple[str, ...] = ()  # every word must match
    limit: int = 100


@dataclass(frozen=True)
class StreamPage:
    """Events newest first; `last` is where a poller continues (None: stay at `after`)."""

    events: list[Event]
    has_more: bool
    last: Position | None = None


@dataclass(frozen=True)
class AccountQuery:
    """The accounts list: recently active (by `last_recorded_at`) at or above a stage."""

    active_since: datetime
    stages: tuple[Stage, ...] = ()  # empty: any stage
    limit: int = 50


@dataclass(frozen=True)
class StoreResult:
    """The stored form of every event of a batch (recorded_at set) and which ones are new."""

    events: list[Event]
    new_ids: frozenset[str]


class SignalStore(Protocol):
    """Signal events once by id, the gapless stream over them, and their roll-ups."""

    def store_events(self, events: Sequence[NewEvent]) -> StoreResult:
        """Store each event once by id and fold it into its roll-ups in the same transaction.

        Raises: UnavailableError when the backend cannot commit now (retry the whole batch).
        """

    def read_stream(self, query: StreamQuery) -> StreamPage:
        """Settled events only, ordered by recorded_at then id."""

    def get_account(self, domain: str) -> AccountRollup | None:
        """One account's roll-up, if seen."""

    def list_accounts(self, query: AccountQuery) -> tuple[list[AccountRollup], bool]:
        """Accounts most recently active first, and whether more matched than `limit`."""

    def get_person(self, email: str) -> PersonRollup | None:
        """One person's roll-up, if seen."""

    def erase_person(self, email: str) -> list[str]:
        """Remove a person's events and roll-up contributions; the ids of the events removed."""


class SignalQueue(Protocol):
    """Carries encoded IngestMessages from the API to the ingest worker (Pub/Sub in gcp)."""

    def publish(self, data: bytes) -> None:
        """Queue one message. Raises: UnavailableError."""


class SignalDeliveries(Protocol):
    """The seam to outbound webhooks: called by the ingest worker for each stored event.

    Called again for the same event when a message is redelivered or a source re-sends an
    id, so it must be idempotent per event id.
    """

    def enqueue_for_event(self, event: Event) -> None:
        """Queue deliveries of this event to every matching endpoint."""


# --- oauth (issue 7) -------------------------------------------------------------------

OAuthTokenKind = Literal["access", "refresh"]


@dataclass(frozen=True)
class OAuthClientRecord:
    """A registered OAuth client: its RFC 7591 information as a JSON document.

    `information` never holds the client secret: `secret_hash` is its sha256 hex digest.
    `expires_at` is set on cached Client ID Metadata Documents only (registered clients
    do not expire); stores may delete a row once it has passed.
    """

    client_id: str
    information: str
    created_at: datetime
    secret_hash: str | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True)
class PendingAuthorization:
    """An /authorize request waiting for its person to sign in and consent.

    `request` is the validated authorization request as JSON; `otp_hash` and `csrf_hash`
    are sha256 hex digests, never the secrets themselves.
    """

    tx_id: str
    client_id: str
    request: str
    csrf_hash: str
    expires_at: datetime
    email: str | None = None
    otp_hash: str | None = None
    otp_attempts: int = 0
    subject: str | None = None


@dataclass(frozen=True)
class AuthorizationCodeRecord:
    """An issued authorization code, stored by the sha256 of the code."""

    code_hash: str
    client_id: str
    subject: str
    scopes: tuple[str, ...]
    code_challenge: str
    redirect_uri: str
    redirect_uri_provided_explicitly: bool
    resource: str
    expires_at: datetime
    used_at: datetime | None = None


@dataclass(frozen=True)
class OAuthTokenRecord:
    """An access or refresh token, stored by the sha256 of the token.

    `grant_id` ties every token of one authorization together (revocation of one revokes
    all); `parent_hash` is the refresh token this one replaced.
    """

    token_hash: str
    kind: OAuthTokenKind
    client_id: str
    subject: str
    scopes: tuple[str, ...]
    resource: str
    grant_id: str
    expires_at: datetime
    parent_hash: str | None = None
    revoked_at: datetime | None = None


class OAuthStore(Protocol):
    """All state of the built-in authorization server, shared by every process.

    Rows past their `expires_at` are deleted some time later (SQLite: on later writes;
    Firestore: TTL policies), so readers treat expired rows as absent.
    """

    def save_client(self, record: OAuthClientRecord) -> None:
        """Store or replace a client."""

    def get_client(self, client_id: str) -> OAuthClientRecord | None:
        """The client with this id, if registered."""

    def save_pending(self, pending: PendingAuthorization) -> None:
        """Store or replace a pending authorization."""

    def get_pending(self, tx_id: str) -> PendingAuthorization | None:
        """The pending authorization with this id (expired ones included)."""

    def delete_pending(self, tx_id: str) -> None:
        """Forget a pending authorization (idempotent)."""

    def add_code(self, record: AuthorizationCodeRecord) -> None:
        """Store a new code. Raises: ConflictError if its hash exists."""

    def get_code(self, code_hash: str) -> AuthorizationCodeRecord | None:
        """The code with this hash, used or not."""

    def use_code(self, code_hash: str, *, now: datetime) -> AuthorizationCodeRecord:
        """Mark a code used, atomically. Raises: NotFoundError; ConflictError if used."""

    def add_token(self, record: OAuthTokenRecord) -> None:
        """Store a new token. Raises: ConflictError if its hash exists."""

    def get_token(self, token_hash: str) -> OAuthTokenRecord | None:
        """The token with this hash, revoked or not."""

    def revoke_token(self, token_hash: str, *, now: datetime) -> None:
        """Revoke one token (idempotent; unknown hashes are ignored)."""

    def revoke_grant(self, grant_id: str, *, now: datetime) -> None:
        """Revoke every token of one grant (idempotent)."""

    def count_hit(self, bucket: str, *, window_start: datetime) -> int:
        """Count one hit in `bucket` for the window starting at `window_start`; the new total.

        Windows are at most a day long: a counter may be deleted a day after its start.
        """


# --- tasks, webhooks (issue 6B) ----------------------------------------------------------

__all__ += [
    "Delivery",
    "DeliveryOptions",
    "DeliveryStatus",
    "HttpTask",
    "TaskQueue",
    "WebhookEndpoint",
    "WebhookSecret",
    "WebhookStore",
]


@dataclass(frozen=True)
class HttpTask:
    """One outbound HTTP POST, run at `schedule_time` (or at once); `name` dedupes enqueues."""

    name: str
    url: str
    body: bytes
    headers: dict[str, str] = field(repr=False)
    schedule_time: datetime | None = None


class TaskQueue(Protocol):
    """Outbound HTTP tasks, at least once: the queue retries a task until it answers 2xx."""

    def enqueue(self, task: HttpTask) -> bool:
        """Queue one task; False if one of this name was queued before. Raises: UnavailableError."""


@dataclass(frozen=True)
class WebhookSecret:
    """One `whsec_` signing secret.

    Kept in clear because signing needs it: a secret at rest, protected by the store's access
    control (Firestore IAM; the DATA_DIR database file in embedded mode), never logged or listed.
    """

    value: str = field(repr=False)
    created_at: datetime
    expires_at: datetime | None = None  # set when rotated out: the end of the overlap


@dataclass(frozen=True)
class WebhookEndpoint:
    """A partner's webhook target; `secrets[0]` is current, any others are in rotation overlap."""

    endpoint_id: str
    partner: str
    url: str
    types: tuple[str, ...]  # event types to send; empty means every type
    description: str
    secrets: tuple[WebhookSecret, ...]
    created_at: datetime
    disabled_at: datetime | None = None
    disabled_reason: str | None = None

    @property
    def active(self) -> bool:
        return self.disabled_at is None


DeliveryStatus = Literal["pending", "succeeded", "failed"]
DELIVERY_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "succeeded", "failed")


@dataclass(frozen=True)
class Delivery:
    """One event for one endpoint; its id is the `webhook-id`, the same on every attempt."""

    delivery_id: str
    endpoint_id: str
    event_id: str
    event_type: str
    payload: str = field(repr=False)  # the JSON body, fixed so every attempt signs the same bytes
    status: DeliveryStatus
    created_at: datetime
    attempts: int = 0
    replays: int = 0
    last_status_code: int | None = None
    last_error: str | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None


class WebhookStore(Protocol):
    """Webhook endpoints (with their signing secrets) and the deliveries made to them."""

    def add_endpoint(self, endpoint: WebhookEndpoint) -> None:
        """Store a new endpoint. Raises: ConflictError if its id exists."""

    def get_endpoint(self, endpoint_id: str) -> WebhookEndpoint | None:
        """The endpoint with this id, disabled or not."""

    def list_endpoints(self, *, partner: str | None = None) -> list[WebhookEndpoint]:
        """Every endpoint (of one partner, if given), oldest first."""

    def delete_endpoint(self, endpoint_id: str) -> None:
        """Remove an endpoint; its deliveries stay readable by id. Raises: NotFoundError."""

    def set_secrets(self, endpoint_id: str, secrets: tuple[WebhookSecret, ...]) -> WebhookEndpoint:
        """Replace the endpoint's secrets. Raises: NotFoundError."""

    def disable_endpoint(self, endpoint_id: str, *, reason: str, now: datetime) -> WebhookEndpoint:
        """Disable (idempotent: the first reason and time stay). Raises: NotFoundError."""

    def add_delivery(self, delivery: Delivery) -> bool:
        """Store a new delivery; False (and no change) if its id exists."""

    def get_delivery(self, delivery_id: str) -> Delivery | None:
        """The delivery with this id, if any."""

    def update_delivery(self, delivery: Delivery, *, if_attempts: int, if_replays: int) -> None:
        """Store `delivery` if the stored one still has these counts.

        Raises: ConflictError, NotFoundError.
        """

    def list_deliveries(
        self, endpoint_id: str, *, status: DeliveryStatus | None = None, limit: int = 100
    ) -> list[Delivery]:
        """One endpoint's deliveries, newest first, optionally of one status."""

    def erase_deliveries_for_events(self, event_ids: Sequence[str]) -> int:
        """Remove every delivery of these events (a person's erasure); how many were removed.

        Raises: UnavailableError.
        """


@dataclass(frozen=True)
class DeliveryOptions:
    """How delivery tasks reach this service and how deliveries behave (built by wiring)."""

    attempt_base_url: str  # this service's origin as the task queue reaches it
    internal_token: str = field(repr=False)  # the queue presents it on the internal attempt route
    retry_delays: tuple[timedelta, ...]  # waits before attempts 2, 3, ...; jittered per delivery
    allow_loopback: bool = False  # embedded mode: http to loopback receivers is allowed
    rotation_overlap: timedelta = timedelta(hours=24)
    timeout_seconds: float = 10.0
    # host, port -> addresses; None: the system resolver (tests pass a fixed hosts table)
    resolver: Callable[[str, int], list[str]] | None = field(
        default=None, repr=False, compare=False
    )
