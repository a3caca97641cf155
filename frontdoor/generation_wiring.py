"""Wiring for generation (briefs to pages): the author and imager chosen by settings, the ports one
generation run gets, the embedded workers and the job recovery timer. The job, queue and blob
adapters are built by the adapter family's builder (frontdoor/embedded.py, frontdoor/gcp.py).

Model clients are built here, once per process, and only for the model that is configured.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from api.built_once import BuiltOnce
from backends.bundle import Backends
from backends.embedded.job_queue import DurableJobQueue
from backends.lease_holders import holder_gone, new_holder
from backends.ports import JobQueue, JobStore
from frontdoor.delivery_wiring import DeliveryPorts
from frontdoor.settings import Settings
from gate.check import check_page, ruleset
from services.deliveries import callback_notifier
from services.payload_bounds import PAGE_BOUNDS, bound_payload
from workers.job_recovery import recover_stale_jobs

if TYPE_CHECKING:
    from pydantic import SecretStr

    from schemas.catalog import Catalog
    from schemas.content.jobs import GenerationBrief
    from workers.authoring.base import Author
    from workers.imaging.base import HeroImager
    from workers.pipeline import GenerationPorts

logger = logging.getLogger(__name__)

ASSETS_PREFIX = "/assets"


def site_relative_url(url: str, public_base_url: str) -> str:
    """A blob URL prefix on the service's own origin as a site path (`/assets`), so stored
    records outlive a change of host or port; the API makes it absolute when it serves them."""
    if public_base_url and url.startswith(public_base_url + "/"):
        return url[len(public_base_url) :]
    return url


def start_embedded_workers(settings: Settings, backends: Backends) -> None:
    """Start the in-process generation workers on the finished Backends.

    The writer, the imager and the pipeline are built for the first job, as the functions
    targets build theirs for the first event: a start loads none of them (bench_startup).
    """
    queue = backends.job_queue
    if not isinstance(queue, DurableJobQueue):
        return
    ports = BuiltOnce(lambda: generation_ports(settings, backends))
    lease = timedelta(seconds=settings.job_lease_seconds)

    def handle(data: bytes) -> None:
        from workers.generation_handler import handle_generation  # with the first job

        # One worker id per delivery: two deliveries of one job are two lease holders.
        handle_generation(data, ports=ports.get(), worker=new_holder(), lease=lease)

    def dead_letter(data: bytes) -> None:
        from workers.generation_handler import handle_dead_letter  # with the first job

        handle_dead_letter(data, ports=ports.get())

    queue.start(handle, on_dead_letter=dead_letter)


def generation_ports(settings: Settings, backends: Backends) -> GenerationPorts:
    """What the pipeline needs, from Backends and the configured models."""
    # Here, not at the top: an embedded start builds the pipeline for its first job only.
    from workers.authoring.pricing import company_terms
    from workers.pipeline import GenerationPorts

    brand = backends.catalog.brand
    published = company_terms(backends.catalog.company)

    def gate(payload: dict[str, Any], brief: GenerationBrief) -> list[Any]:
        # A model's draft is bounded as a partner's page is, before the gate reads it.
        bounded = bound_payload(payload, PAGE_BOUNDS)
        if bounded.whole:
            return list(bounded.issues)
        return [
            *bounded.issues,
            *check_page(bounded.payload, brand=brand, brief=brief, published=published),
        ]

    return GenerationPorts(
        jobs=backends.jobs,
        pages=backends.pages,
        variants=backends.variants,
        blobs=backends.blobs,
        author=build_author(settings, catalog=backends.catalog),
        imager=build_imager(settings),
        brand=brand,
        company=backends.catalog.company,
        gate=gate,
        ruleset=ruleset(brand),
        clock=backends.clock,
        page_changed=backends.page_changes,
        holder_gone=holder_gone,
        notify=callback_notifier(
            webhooks=backends.webhooks,
            tasks=backends.tasks,
            options=backends.delivery_options,
            base_url=settings.base_url,
            clock=backends.clock,
        ),
    )


def build_author(settings: Settings, *, catalog: Catalog | None = None) -> Author:
    """The configured writer: the template (drawing also on `catalog`'s research, blog and
    careers), or a model adapter with its client."""
    key = settings.author_api_key.get_secret_value() if settings.author_api_key else None
    timeout = settings.author_timeout_seconds
    if settings.author_model == "openai":
        import openai

        from workers.authoring.openai_chat import OpenAIChatAuthor

        client = openai.OpenAI(
            base_url=settings.author_base_url,
            api_key=key or "unset",
            timeout=timeout,
            max_retries=0,
        )
        return OpenAIChatAuthor(client, model=settings.author_model_name or "gpt-4.1-mini")
    if settings.author_model == "anthropic":
        import anthropic

        from workers.authoring.anthropic_messages import AnthropicAuthor

        aclient = anthropic.Anthropic(
            base_url=settings.author_base_url, api_key=key, timeout=timeout, max_retries=0
        )
        return AnthropicAuthor(aclient, model=settings.author_model_name or "claude-sonnet-5")
    if settings.author_model == "gemini":
        from workers.authoring.gemini_vertex import GeminiAuthor

        return GeminiAuthor(
            _genai_client(settings, settings.author_base_url, settings.author_api_key),
            model=settings.author_model_name or "gemini-2.5-flash",
        )
    from workers.authoring.library import library_of  # loaded by the first job, as above
    from workers.authoring.template import TemplateWriter

    return TemplateWriter(library=None if catalog is None else library_of(catalog))


def build_imager(settings: Settings) -> HeroImager:
    """The configured hero imager: procedural, or Imagen on Vertex AI."""
    if settings.image_model == "imagen":
        from workers.imaging.imagen import ImagenImager

        return ImagenImager(
            _genai_client(settings, settings.image_base_url, settings.image_api_key),
            model=settings.image_model_name,
        )
    from workers.imaging.procedural import ProceduralImager  # loaded by the first job, as above

    return ProceduralImager()


def _genai_client(settings: Settings, base_url: str | None, api_key: SecretStr | None) -> Any:
    """A Vertex AI client: express mode with an API key, else the service account (ADC)."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=base_url, timeout=int(settings.author_timeout_seconds * 1000)
    )
    key = api_key.get_secret_value() if api_key else None
    if key:  # Vertex AI express mode
        return genai.Client(vertexai=True, api_key=key, http_options=options)
    return genai.Client(
        vertexai=True,
        project=settings.google_cloud_project,
        location=settings.vertex_location,
        http_options=options,
    )


class JobRecoveryTimer:
    """Runs job recovery at start and every `settings.job_recovery_seconds` on a thread."""

    def __init__(
        self,
        settings: Settings,
        *,
        jobs: JobStore,
        job_queue: JobQueue,
        delivery: DeliveryPorts,
        clock: Callable[[], datetime],
    ) -> None:
        notify = callback_notifier(
            webhooks=delivery.webhooks,
            tasks=delivery.tasks,
            options=delivery.options,
            base_url=settings.base_url,
            clock=clock,
        )
        self._run_once = partial(
            recover_stale_jobs,
            jobs=jobs,
            job_queue=job_queue,
            lease=timedelta(seconds=settings.job_lease_seconds),
            max_requeues=settings.job_max_requeues,
            notify=notify,
            holder_gone=holder_gone,
        )
        self._clock = clock
        self._every = settings.job_recovery_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="job-recovery", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def recover_now(self) -> tuple[int, int]:
        """One pass: (queued again, abandoned)."""
        return self._run_once(now=self._clock())

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            try:
                self.recover_now()
            except Exception:  # the timer's top level: a store that is down, try next time
                logger.exception("job recovery failed")
            if self._stop.wait(self._every):
                return
