"""build_backends(settings): the adapter family BACKEND names builds every port, once; and the
HTTP app's view of the settings.

One builder per family, each returning a complete Backends (OAuth included):
frontdoor/embedded.py (SQLite and folders in DATA_DIR) and frontdoor/gcp.py (Google Cloud),
imported only when chosen, so embedded runs never load the cloud clients.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import timedelta
from pathlib import Path

from api.config import AppConfig
from backends.bundle import Backends
from backends.ports import BOOTSTRAP_SCOPES, DeadLetters, Scope
from domain.arms import StopRule
from frontdoor.kept_secrets import kept_secret
from frontdoor.settings import Settings
from schemas.catalog import Catalog
from services.experiments import AllocatorSettings

logger = logging.getLogger(__name__)


def build_backends(
    settings: Settings, *, catalog: Catalog | None = None, start_workers: bool = True
) -> Backends:
    """The ports for this process: embedded adapters, or Google Cloud ones when BACKEND=gcp.

    `catalog`: the content already loaded from `settings.content_dir` (the served process's
    parent loads it to check it, and its worker inherits it); else it is loaded here.
    `start_workers=False` starts no queue worker and no job recovery: the operator CLI never
    does (queued work waits for the processes that serve); the served worker starts them with
    `Backends.start_workers` once its app is built.
    """
    if settings.backend == "gcp":
        from frontdoor import gcp

        return gcp.build_backends(settings, catalog=catalog, start_workers=start_workers)
    from frontdoor import embedded

    return embedded.build_backends(settings, catalog=catalog, start_workers=start_workers)


def build_dead_letters(settings: Settings) -> DeadLetters:
    """Where this family's queues hold their dead letters (the operator CLI's `queues`)."""
    if settings.backend == "gcp":
        from frontdoor import gcp

        return gcp.build_dead_letters(settings)
    from frontdoor import embedded

    return embedded.build_dead_letters(settings)


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
        collect_limits=(settings.collect_limit_visitor, settings.collect_limit_address),
        rate_limits={
            "content": settings.rate_limit_content,
            "content_admin": settings.rate_limit_content_admin,
            "signals": settings.rate_limit_signals,
            "ingest": settings.rate_limit_ingest,
            "public": settings.rate_limit_public,
        },
        rate_limit_window_seconds=settings.rate_limit_window_seconds,
        experiment=AllocatorSettings(
            min_share=settings.experiment_min_share,
            recompute_every=timedelta(seconds=settings.experiment_recompute_seconds),
            stop_rule=StopRule(
                probability=settings.experiment_stop_probability,
                min_conversions=settings.experiment_stop_min_conversions,
            ),
            auto_stop=settings.experiment_auto_stop,
        ),
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
