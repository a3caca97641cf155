"""build_backends(settings): choose every adapter once, by configuration."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from api.config import AppConfig
from backends.bundle import Backends, utc_now
from backends.content_files import load_catalog
from backends.embedded.cdn import LoggingCdn
from backends.embedded.idempotency import SqliteIdempotencyStore
from backends.embedded.keys import SqliteKeyStore
from backends.embedded.mail import OutboxMailer
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.pages import SqlitePageStore
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.ports import (
    BOOTSTRAP_SCOPES,
    Cdn,
    IdempotencyStore,
    KeyStore,
    Mailer,
    OAuthStore,
    PageStore,
    Scope,
    SignalDeliveries,
    SignalQueue,
    SignalStore,
)
from frontdoor.delivery_wiring import build_delivery_ports
from frontdoor.generation import (
    GenerationBackends,
    JobRecoveryTimer,
    embedded_generation,
    gcp_generation,
    start_embedded_workers,
)
from frontdoor.kept_secrets import kept_secret
from frontdoor.settings import Settings
from schemas.catalog import Catalog
from workers.ingest import handle_ingest_message

logger = logging.getLogger(__name__)

INGEST_QUEUE = "ingest"


def build_backends(
    settings: Settings, *, catalog: Catalog | None = None, start_workers: bool = True
) -> Backends:
    """The ports for this process: embedded adapters, or Google Cloud ones when BACKEND=gcp.

    `catalog`: the content already loaded from `settings.content_dir` (the served process's
    parent loads it to check it, and its worker inherits it); else it is loaded here.
    `start_workers=False` (the operator CLI) starts no queue worker and no job recovery:
    queued work waits on disk for the processes that serve.
    """
    catalog = catalog or load_catalog(settings.content_dir)
    data_dir = Path(settings.data_dir)
    keys: KeyStore
    closers: list[Callable[[], None]] = []
    if settings.backend == "gcp":
        # Imported here so that embedded runs never load the cloud clients.
        from backends.gcp.firestore import firestore_client
        from backends.gcp.idempotency import FirestoreIdempotencyStore
        from backends.gcp.keys import FirestoreKeyStore
        from backends.gcp.oauth import FirestoreOAuthStore
        from backends.gcp.pages import FirestorePageStore

        client = firestore_client(
            project=settings.google_cloud_project, database=settings.firestore_database
        )
        keys = FirestoreKeyStore(client)
        oauth: OAuthStore = FirestoreOAuthStore(client)
        generation = gcp_generation(settings, client)
        firestore_pages = FirestorePageStore(client, keep_versions=settings.page_history_limit)
        firestore_pages.adopt_unowned_pages(settings.existing_pages_owner)
        pages: PageStore = firestore_pages
        idempotency: IdempotencyStore = FirestoreIdempotencyStore(client)
        from backends.gcp.pubsub import PubSubPublisher
        from backends.gcp.signals import FirestoreSignalStore

        signals: SignalStore = FirestoreSignalStore(client)
        signal_queue: SignalQueue = PubSubPublisher(
            project=settings.google_cloud_project or "", topic=settings.signals_topic
        )
        delivery = build_delivery_ports(
            settings, clock=utc_now, firestore_client=client, accounts=signals.get_account
        )
        closers.extend(delivery.closers)
        cdn, mailer = _gcp_edges(settings)
    else:
        db = SqliteDatabase(data_dir / "frontdoor.sqlite3")
        queue_table = QueueTable(queue_database(data_dir))
        generation = embedded_generation(settings, db, queue_table)
        keys = SqliteKeyStore(db)
        oauth = SqliteOAuthStore(db)
        pages = SqlitePageStore(
            db,
            keep_versions=settings.page_history_limit,
            existing_owner=settings.existing_pages_owner,
        )
        idempotency = SqliteIdempotencyStore(db)
        signals = SqliteSignalStore(db)
        delivery = build_delivery_ports(
            settings,
            clock=utc_now,
            db=db,
            queue_table=queue_table,
            start_workers=start_workers,
            accounts=signals.get_account,
        )
        closers.extend(delivery.closers)  # stopped after the ingest queue that feeds it
        # Embedded stand-in for the Pub/Sub push to the ingest worker: on disk before the 202.
        ingest = DurableQueue(
            # One thread per process: the store's writes are serialised by SQLite anyway, and
            # a second writer only waits on the lock (measured by bench_signals).
            queue_table,
            INGEST_QUEUE,
            threads=1,
            lease_seconds=settings.queue_lease_seconds,
        )
        if start_workers:
            ingest.start(lambda data: _ingest(data, signals, delivery.deliveries))
        signal_queue = ingest
        closers.append(ingest.close)
        cdn, mailer = LoggingCdn(), OutboxMailer(data_dir / "outbox")
    recovery = JobRecoveryTimer(
        settings,
        jobs=generation.jobs,
        job_queue=generation.job_queue,
        delivery=delivery,
        clock=utc_now,
    )
    backends = Backends(
        catalog=catalog,
        keys=keys,
        cdn=cdn,
        mailer=mailer,
        pages=pages,
        idempotency=idempotency,
        signals=signals,
        signal_queue=signal_queue,
        webhooks=delivery.webhooks,
        tasks=delivery.tasks,
        deliveries=delivery.deliveries,
        delivery_options=delivery.options,
        jobs=generation.jobs,
        job_queue=generation.job_queue,
        blobs=generation.blobs,
        oauth=oauth,
        closers=(*closers, _close_job_queue(generation), recovery.close),
    )
    if start_workers:
        start_embedded_workers(settings, backends)  # no-op unless the job queue is in-process
        recovery.start()  # at start and on a timer: no job stays queued or running forever
    return backends


def _gcp_edges(settings: Settings) -> tuple[Cdn, Mailer]:
    """Cloud CDN purges (when a URL map is configured) and mail through the mailer topic."""
    from backends.gcp.cdn import CloudCdn
    from backends.gcp.mail import PubSubMailer
    from backends.gcp.pubsub import PubSubPublisher

    project = settings.google_cloud_project or ""
    cdn: Cdn = LoggingCdn()
    if settings.cdn_url_map:
        host = urlsplit(settings.base_url).hostname
        cdn = CloudCdn(project=project, url_map=settings.cdn_url_map, host=host)
    mailer = PubSubMailer(PubSubPublisher(project=project, topic=settings.mail_topic))
    return cdn, mailer


def _close_job_queue(generation: GenerationBackends) -> Callable[[], None]:
    close: Callable[[], None] = getattr(generation.job_queue, "close", lambda: None)
    return close


def _ingest(data: bytes, signals: SignalStore, deliveries: SignalDeliveries) -> None:
    """The embedded ingest worker's handler: store, then queue webhook deliveries (issue 6B)."""
    handle_ingest_message(data, signals=signals, deliveries=deliveries)


def app_config(settings: Settings) -> AppConfig:
    """The HTTP app's view of the settings."""
    bootstrap: dict[Scope, str] = {}
    for scope in BOOTSTRAP_SCOPES:
        secret = getattr(settings, f"{scope}_api_key")
        if secret is not None:
            bootstrap[scope] = secret.get_secret_value()
    return AppConfig(
        base_url=settings.base_url,
        mode=settings.backend,
        bootstrap_keys=bootstrap,
        allowed_hosts=tuple(settings.allowed_hosts),
        preview_secret=_preview_secret(settings),
        generate_wait_seconds=settings.generate_wait_seconds,
        oauth_issuer=settings.oauth_issuer,
        forwarded_for_hops=settings.forwarded_for_hops,
        beacon_consent=settings.beacon_consent == "required",
        collect_allowed_origins=tuple(settings.collect_allowed_origins),
        rate_limits={
            "content": settings.rate_limit_content,
            "content_admin": settings.rate_limit_content_admin,
            "signals": settings.rate_limit_signals,
            "ingest": settings.rate_limit_ingest,
            "public": settings.rate_limit_public,
        },
        rate_limit_window_seconds=settings.rate_limit_window_seconds,
    )


def _preview_secret(settings: Settings) -> bytes:
    """PREVIEW_SECRET; else one kept in DATA_DIR (embedded) or derived from the content key."""
    if settings.preview_secret is not None:
        return settings.preview_secret.get_secret_value().encode()
    if settings.backend == "embedded":
        path = Path(settings.data_dir) / "preview_secret"
        return kept_secret(path, lambda: secrets.token_hex(32)).encode()
    if settings.content_api_key is not None:
        # Every instance derives the same secret, so links work across Cloud Run instances.
        key = settings.content_api_key.get_secret_value().encode()
        return hashlib.sha256(b"frontdoor-preview\n" + key).digest()
    logger.warning("PREVIEW_SECRET is unset: draft preview links last only as long as this process")
    return secrets.token_bytes(32)
