"""The functions-framework targets: Pub/Sub push deliveries to the workers.

Each target wires its backends once, lazily on the first event, then hands the decoded
message to its worker. A worker that raises makes functions-framework answer 500, so Pub/Sub
delivers again; a worker that returns acks. Deploy with `--signature-type=cloudevent`.

  functions-framework --source=frontdoor/functions.py --target=generate_page
  functions-framework --source=frontdoor/functions.py --target=ingest_signals
"""

from __future__ import annotations

import base64
import binascii
import logging
from datetime import timedelta

import flask
import functions_framework
from cloudevents.http import CloudEvent

from api.built_once import BuiltOnce
from backends.bundle import Backends
from backends.lease_holders import new_holder
from domain.numbers import ascii_whole_number
from frontdoor.generation_wiring import generation_ports
from frontdoor.logs import configure_logging
from frontdoor.push_auth import PushVerifier
from frontdoor.settings import Settings
from frontdoor.wiring import build_backends
from workers.generation_handler import handle_dead_letter, handle_generation
from workers.ingest import handle_ingest_message
from workers.pipeline import GenerationPorts

logger = logging.getLogger(__name__)

_INT32_MAX = 2**31 - 1


def _build_settings() -> Settings:
    settings = Settings()
    configure_logging(level=settings.log_level, project=settings.google_cloud_project)
    return settings


# Each built on the first event that needs it; a build may ask for the ones before it.
_SETTINGS = BuiltOnce(_build_settings)
# A pushed worker is handed its work: no queue workers or job recovery of its own (the API
# process runs recovery).
_BACKENDS = BuiltOnce(lambda: build_backends(_SETTINGS.get(), start_workers=False))
_GENERATION = BuiltOnce(lambda: generation_ports(_SETTINGS.get(), _BACKENDS.get()))


def _build_push_verifier() -> PushVerifier:
    settings = _SETTINGS.get()
    return PushVerifier(
        audience=settings.push_oidc_audience or "",
        service_account=settings.push_service_account,
        jwks_url=settings.push_oidc_jwks_url,
    )


_PUSH_VERIFIER = BuiltOnce(_build_push_verifier)


def _settings() -> Settings:
    return _SETTINGS.get()


def _backends() -> Backends:
    return _BACKENDS.get()


def _generation() -> GenerationPorts:
    return _GENERATION.get()


def verify_push() -> None:
    """Refuse a push without Pub/Sub's OIDC token (401/403) when the check is configured.

    functions-framework calls the target inside the Flask request, and lets an HTTPException
    through to Flask, so the push gets a 4xx instead of a retry-inducing 500.
    """
    if not _settings().push_oidc_audience:
        return  # emulated mode (the Settings validator refuses this in the cloud)
    _PUSH_VERIFIER.get().verify(flask.request.headers.get("Authorization"))


def pubsub_message(cloud_event: CloudEvent) -> tuple[bytes | None, int | None]:
    """The message body and Pub/Sub's deliveryAttempt (absent on the emulator)."""
    data = cloud_event.data if isinstance(cloud_event.data, dict) else {}
    message = data.get("message") if isinstance(data.get("message"), dict) else {}
    attempt = data.get("deliveryAttempt") or (message or {}).get("deliveryAttempt")
    try:
        body = base64.b64decode((message or {}).get("data") or "", validate=True)
    except (binascii.Error, TypeError, ValueError):
        return None, None
    return body or None, delivery_attempt(attempt)


def delivery_attempt(raw: object) -> int | None:
    """A deliveryAttempt as Pub/Sub sends it (an int32 count): a JSON number or ASCII digits.

    Anything else (a negative number, a boolean, a fullwidth or superscript digit, which
    `str.isdigit` accepts, a number past the int32 range) is no count: None, and the delivery is
    handled as one that carries none.
    """
    if isinstance(raw, bool):
        return None
    if isinstance(raw, str):
        raw = ascii_whole_number(raw, max_digits=10)
    return raw if isinstance(raw, int) and 0 <= raw <= _INT32_MAX else None


@functions_framework.cloud_event
def generate_page(cloud_event: CloudEvent) -> None:
    """Generation worker: one job per message; raises to have it delivered again."""
    verify_push()
    body, attempt = pubsub_message(cloud_event)
    if body is None:
        logger.error("generation push without a message body acked")
        return
    handle_generation(
        body,
        ports=_generation(),
        worker=new_holder(),  # one per delivery: two deliveries in one process are two workers
        lease=timedelta(seconds=_settings().job_lease_seconds),
        delivery_attempt=attempt,
    )


@functions_framework.cloud_event
def generation_dead_letter(cloud_event: CloudEvent) -> None:
    """Dead-letter subscription of the generation topic: the job is marked failed."""
    verify_push()
    body, _ = pubsub_message(cloud_event)
    if body is None:
        logger.error("dead-letter push without a message body acked")
        return
    handle_dead_letter(body, ports=_generation())


@functions_framework.cloud_event
def ingest_signals(cloud_event: CloudEvent) -> None:
    """Signal ingest worker: store a batch of events once by id; raises to be delivered again."""
    verify_push()
    body, _ = pubsub_message(cloud_event)
    if body is None:
        logger.error("signal ingest push without a message body acked")
        return
    backends = _backends()
    handle_ingest_message(
        body,
        signals=backends.signals,
        deliveries=backends.deliveries,
        suppressions=backends.suppressions,
    )
