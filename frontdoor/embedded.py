"""build_backends for BACKEND=embedded: every port on one SQLite file and folders in DATA_DIR.

Queued work (generation jobs, signal ingest, webhook attempts) waits on disk in the queue
table and runs on worker threads of this process; the CDN only logs its purges and mail goes
to an outbox folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from backends.bundle import Backends
from backends.clock import utc_now
from backends.content_files import load_catalog
from backends.embedded.blobs import LocalBlobStore
from backends.embedded.cdn import LoggingCdn
from backends.embedded.dead_letters import SqliteDeadLetters
from backends.embedded.experiments import SqliteExperimentStore
from backends.embedded.idempotency import SqliteIdempotencyStore
from backends.embedded.job_queue import DurableJobQueue
from backends.embedded.jobs import SqliteJobStore
from backends.embedded.keys import SqliteKeyStore
from backends.embedded.mail import OutboxMailer
from backends.embedded.oauth import SqliteOAuthStore
from backends.embedded.pages import SqlitePageStore
from backends.embedded.queue_table import QueueTable, queue_database
from backends.embedded.queues import DurableQueue
from backends.embedded.signals import SqliteSignalStore
from backends.embedded.sqlite import SqliteDatabase
from backends.embedded.suppressions import SqliteSuppressionStore
from backends.embedded.tasks import DurableTaskQueue
from backends.embedded.variants import SqliteVariantStore
from backends.embedded.webhooks import SqliteWebhookStore
from frontdoor.delivery_wiring import DeliveryPorts, delivery_options, webhook_secrets_box
from frontdoor.generation_wiring import ASSETS_PREFIX, JobRecoveryTimer, start_embedded_workers
from frontdoor.settings import Settings
from frontdoor.suppression_key import suppression_key
from schemas.catalog import Catalog
from schemas.signals.events import IngestMessage
from workers.ingest import decode_ingest_message, store_ingest_messages

INGEST_QUEUE = "ingest"
# Queued ingest messages one worker takes at once (a page view per message, or up to 500
# events: 16,000 at most, stored in ~1-2 s, well within a lease), and how long it lets page
# views gather after a claim that did not fill the batch.
INGEST_BATCH = 32
INGEST_LINGER_SECONDS = 0.02


def build_dead_letters(settings: Settings) -> SqliteDeadLetters:
    """The dead letters of the ingest, generation and tasks queues, in DATA_DIR's queue file."""
    return SqliteDeadLetters(QueueTable(queue_database(Path(settings.data_dir))))


def build_backends(
    settings: Settings, *, catalog: Catalog | None = None, start_workers: bool = True
) -> Backends:
    """Every port of an embedded process, OAuth included; its queue workers started unless
    `start_workers=False` (the operator CLI: queued work waits on disk for the servers; the
    served worker calls `Backends.start_workers` once its app is built)."""
    catalog = catalog or load_catalog(settings.content_dir)
    data_dir = Path(settings.data_dir)
    db = SqliteDatabase(data_dir / "frontdoor.sqlite3")
    queue_table = QueueTable(queue_database(data_dir))
    signals = SqliteSignalStore(db)
    suppressions = SqliteSuppressionStore(db, key=suppression_key(settings))
    closers: list[Callable[[], None]] = []

    options = delivery_options(settings)
    webhooks = SqliteWebhookStore(db, box=webhook_secrets_box(settings))
    tasks = DurableTaskQueue(
        queue_table,
        retry_delays=options.retry_delays,
        lease_seconds=settings.queue_lease_seconds,
    )
    starters: list[Callable[[], None]] = [tasks.start]
    closers.append(tasks.close)  # stopped after the ingest queue that feeds it
    delivery = DeliveryPorts.over(
        webhooks=webhooks,
        tasks=tasks,
        options=options,
        accounts=signals.get_account,
        people=signals.get_person,
    )

    # The stand-in for the Pub/Sub push to the ingest worker: on disk before the 202.
    ingest = DurableQueue(
        # One thread per process: the store's writes are serialised by SQLite anyway, and a
        # second writer only waits on the lock (measured by bench_signals). It takes what is
        # due, up to INGEST_BATCH messages, and stores their events together (fewer commits).
        queue_table,
        INGEST_QUEUE,
        threads=1,
        batch=INGEST_BATCH,
        linger_seconds=INGEST_LINGER_SECONDS,
        lease_seconds=settings.queue_lease_seconds,
    )

    def store(messages: list[IngestMessage]) -> None:  # then their webhook deliveries
        store_ingest_messages(
            messages, signals=signals, deliveries=delivery.deliveries, suppressions=suppressions
        )

    starters.append(lambda: ingest.start_batches(decode_ingest_message, store))
    closers.append(ingest.close)

    jobs = SqliteJobStore(db)
    job_queue = DurableJobQueue(
        queue_table, threads=settings.generation_threads, lease_seconds=settings.job_lease_seconds
    )
    recovery = JobRecoveryTimer(
        settings, jobs=jobs, job_queue=job_queue, delivery=delivery, clock=utc_now
    )
    backends = Backends(
        catalog=catalog,
        keys=SqliteKeyStore(db),
        cdn=LoggingCdn(),
        mailer=OutboxMailer(data_dir / "outbox"),
        pages=SqlitePageStore(
            db,
            keep_versions=settings.page_history_limit,
            quota_bytes=settings.page_storage_quota_bytes,
            existing_owner=settings.existing_pages_owner,
        ),
        variants=SqliteVariantStore(db),
        idempotency=SqliteIdempotencyStore(db),
        signals=signals,
        signal_queue=ingest,
        webhooks=webhooks,
        tasks=tasks,
        deliveries=delivery.deliveries,
        delivery_options=options,
        jobs=jobs,
        job_queue=job_queue,
        # A site path, not an origin: records stay right on any port or host, however moved.
        blobs=LocalBlobStore(data_dir / "assets", base_url=ASSETS_PREFIX),
        oauth=SqliteOAuthStore(db),
        suppressions=suppressions,
        experiments=SqliteExperimentStore(db),
        closers=(*closers, job_queue.close, recovery.close),
        # Job recovery runs at start and on a timer: no job stays queued or running forever.
        starters=(*starters, lambda: start_embedded_workers(settings, backends), recovery.start),
    )
    if start_workers:
        backends.start_workers()
    return backends
