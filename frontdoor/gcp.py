"""build_backends for BACKEND=gcp: Firestore, Pub/Sub, Cloud Tasks, Cloud Storage, Cloud CDN.

Imported only when BACKEND=gcp (frontdoor/wiring.py), so embedded runs never load the cloud
clients. Queued work runs where the push subscriptions and Cloud Tasks send it.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from google.cloud import storage  # type: ignore[attr-defined,unused-ignore]  # no stubs

from backends.bundle import Backends
from backends.clock import utc_now
from backends.content_files import load_catalog
from backends.embedded.cdn import LoggingCdn
from backends.gcp.blobs import GcsBlobStore
from backends.gcp.cdn import CloudCdn
from backends.gcp.dead_letters import PubSubDeadLetters
from backends.gcp.deadline import CallDeadline
from backends.gcp.experiments import FirestoreExperimentStore
from backends.gcp.firestore import firestore_client
from backends.gcp.idempotency import FirestoreIdempotencyStore
from backends.gcp.job_queue import PubSubJobQueue
from backends.gcp.jobs import FirestoreJobStore
from backends.gcp.keys import FirestoreKeyStore
from backends.gcp.mail import PubSubMailer
from backends.gcp.oauth import FirestoreOAuthStore
from backends.gcp.pages import FirestorePageStore
from backends.gcp.pubsub import PubSubPublisher
from backends.gcp.signals import FirestoreSignalStore
from backends.gcp.suppressions import FirestoreSuppressionStore
from backends.gcp.tasks import CloudTasksTaskQueue, cloud_tasks_client, queue_path
from backends.gcp.variants import FirestoreVariantStore
from backends.gcp.webhooks import FirestoreWebhookStore
from backends.ports import Cdn
from frontdoor.delivery_wiring import DeliveryPorts, delivery_options, webhook_secrets_box
from frontdoor.generation_wiring import JobRecoveryTimer, site_relative_url
from frontdoor.settings import Settings
from frontdoor.suppression_key import suppression_key
from schemas.catalog import Catalog


def build_dead_letters(settings: Settings) -> PubSubDeadLetters:
    """The dead letters of the ingest and generation topics, on their hold subscriptions."""
    return PubSubDeadLetters(
        project=settings.google_cloud_project or "",
        topics={"ingest": settings.signals_topic, "generation": settings.generation_topic},
        deadline=CallDeadline(settings.google_cloud_deadline),
    )


def build_backends(
    settings: Settings, *, catalog: Catalog | None = None, start_workers: bool = True
) -> Backends:
    """Every port of a Google Cloud process, OAuth included; job recovery started unless
    `start_workers=False` (the operator CLI; the served worker calls `Backends.start_workers`
    once its app is built)."""
    catalog = catalog or load_catalog(settings.content_dir)
    project = settings.google_cloud_project or ""
    client = firestore_client(
        project=settings.google_cloud_project, database=settings.firestore_database
    )
    deadline = CallDeadline(settings.google_cloud_deadline)
    closers: list[Callable[[], None]] = []
    signals = FirestoreSignalStore(client, deadline=deadline)

    options = delivery_options(settings)
    webhooks = FirestoreWebhookStore(client, deadline=deadline, box=webhook_secrets_box(settings))
    emulator = settings.cloud_tasks_emulator_host
    tasks = CloudTasksTaskQueue(
        lambda: cloud_tasks_client(emulator_host=emulator),
        queue_path=queue_path(
            project=project,
            location=settings.cloud_tasks_location,
            queue=settings.cloud_tasks_queue,
        ),
        oidc_service_account=settings.cloud_tasks_service_account,
        create_queue=bool(emulator),  # Terraform creates it in the cloud
        deadline=deadline,
    )
    closers.append(tasks.close)
    delivery = DeliveryPorts.over(
        webhooks=webhooks,
        tasks=tasks,
        options=options,
        accounts=signals.get_account,
        people=signals.get_person,
    )

    pages = FirestorePageStore(
        client,
        keep_versions=settings.page_history_limit,
        quota_bytes=settings.page_storage_quota_bytes,
        deadline=deadline,
    )
    pages.adopt_unowned_pages(settings.existing_pages_owner)
    jobs = FirestoreJobStore(client, deadline=deadline)
    job_queue = PubSubJobQueue(
        PubSubPublisher(project=project, topic=settings.generation_topic, deadline=deadline)
    )
    recovery = JobRecoveryTimer(
        settings, jobs=jobs, job_queue=job_queue, delivery=delivery, clock=utc_now
    )
    cdn: Cdn = LoggingCdn()
    if settings.cdn_url_map:
        host = urlsplit(settings.base_url).hostname
        cdn = CloudCdn(project=project, url_map=settings.cdn_url_map, host=host, deadline=deadline)
    backends = Backends(
        catalog=catalog,
        keys=FirestoreKeyStore(client, deadline=deadline),
        cdn=cdn,
        mailer=PubSubMailer(
            PubSubPublisher(project=project, topic=settings.mail_topic, deadline=deadline)
        ),
        pages=pages,
        variants=FirestoreVariantStore(client, deadline=deadline),
        idempotency=FirestoreIdempotencyStore(client, deadline=deadline),
        signals=signals,
        signal_queue=PubSubPublisher(
            project=project, topic=settings.signals_topic, deadline=deadline
        ),
        webhooks=webhooks,
        tasks=tasks,
        deliveries=delivery.deliveries,
        delivery_options=options,
        jobs=jobs,
        job_queue=job_queue,
        blobs=GcsBlobStore(
            storage.Client(project=project),
            bucket_name=settings.blobs_bucket or f"{project}-assets",
            public_base_url=site_relative_url(
                settings.blobs_public_base_url, settings.public_base_url
            ),
            deadline=deadline,
        ),
        oauth=FirestoreOAuthStore(client, deadline=deadline),
        suppressions=FirestoreSuppressionStore(
            client, key=suppression_key(settings), deadline=deadline
        ),
        experiments=FirestoreExperimentStore(client, deadline=deadline),
        closers=(*closers, recovery.close),
        # At start and on a timer: no job stays queued or running forever.
        starters=(recovery.start,),
    )
    if start_workers:
        backends.start_workers()
    return backends
