"""The ports: one small Protocol per need, their value types and the errors adapters raise.

One module per capability; this package re-exports them all, so callers import from
`backends.ports`. Nothing here does I/O.
"""

from __future__ import annotations

from backends.ports.blobs import (
    Blob,
    BlobStore,
)
from backends.ports.cdn import (
    Cdn,
)
from backends.ports.dead_letters import (
    DeadLetter,
    DeadLetters,
)
from backends.ports.errors import (
    ConflictError,
    DeliverLaterError,
    NotFoundError,
    PortError,
    QuotaExceededError,
    UnavailableError,
)
from backends.ports.experiments import (
    ExperimentStore,
)
from backends.ports.idempotency import (
    IDEMPOTENCY_LEASE,
    IDEMPOTENCY_TTL,
    IdempotencyBegin,
    IdempotencyState,
    IdempotencyStore,
    StoredResponse,
    entry_id,
)
from backends.ports.jobs import (
    JobChange,
    JobQueue,
    JobStore,
)
from backends.ports.keys import (
    UNLIMITED,
    ApiKeyRecord,
    KeyLimits,
    KeyStore,
)
from backends.ports.mail import (
    Mailer,
)
from backends.ports.oauth import (
    AuthorizationCodeRecord,
    OAuthClientRecord,
    OAuthStore,
    OAuthTokenKind,
    OAuthTokenRecord,
    PendingAuthorization,
)
from backends.ports.pages import (
    PAGE_STATUSES,
    VERSION_SOURCES,
    PageList,
    PageSource,
    PageStatus,
    PageStore,
    StoredPage,
    VersionList,
    VersionSource,
)
from backends.ports.signals import (
    AccountPosition,
    AccountQuery,
    AccountSort,
    SignalDeliveries,
    SignalQueue,
    SignalStore,
    StoreResult,
    StreamPage,
    StreamQuery,
)
from backends.ports.suppressions import (
    SuppressionStore,
)
from backends.ports.variants import (
    StoredAllocation,
    StoredVariant,
    VariantLimitError,
    VariantStore,
)
from backends.ports.webhooks import (
    DELIVERY_STATUSES,
    Delivery,
    DeliveryOptions,
    DeliveryStatus,
    HttpTask,
    TaskQueue,
    WebhookEndpoint,
    WebhookSecret,
    WebhookStore,
)
from domain.scopes import (
    BOOTSTRAP_SCOPES,
    SCOPES,
    BootstrapScope,
    Scope,
)

__all__ = [
    "BOOTSTRAP_SCOPES",
    "DELIVERY_STATUSES",
    "IDEMPOTENCY_LEASE",
    "IDEMPOTENCY_TTL",
    "PAGE_STATUSES",
    "SCOPES",
    "UNLIMITED",
    "VERSION_SOURCES",
    "AccountPosition",
    "AccountQuery",
    "AccountSort",
    "ApiKeyRecord",
    "AuthorizationCodeRecord",
    "Blob",
    "BlobStore",
    "BootstrapScope",
    "Cdn",
    "ConflictError",
    "DeadLetter",
    "DeadLetters",
    "DeliverLaterError",
    "Delivery",
    "DeliveryOptions",
    "DeliveryStatus",
    "ExperimentStore",
    "HttpTask",
    "IdempotencyBegin",
    "IdempotencyState",
    "IdempotencyStore",
    "JobChange",
    "JobQueue",
    "JobStore",
    "KeyLimits",
    "KeyStore",
    "Mailer",
    "NotFoundError",
    "OAuthClientRecord",
    "OAuthStore",
    "OAuthTokenKind",
    "OAuthTokenRecord",
    "PageList",
    "PageSource",
    "PageStatus",
    "PageStore",
    "PendingAuthorization",
    "PortError",
    "QuotaExceededError",
    "Scope",
    "SignalDeliveries",
    "SignalQueue",
    "SignalStore",
    "StoreResult",
    "StoredAllocation",
    "StoredPage",
    "StoredResponse",
    "StoredVariant",
    "StreamPage",
    "StreamQuery",
    "SuppressionStore",
    "TaskQueue",
    "UnavailableError",
    "VariantLimitError",
    "VariantStore",
    "VersionList",
    "VersionSource",
    "WebhookEndpoint",
    "WebhookSecret",
    "WebhookStore",
    "entry_id",
]
