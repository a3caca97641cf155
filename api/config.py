"""AppConfig: what the HTTP app knows of its deployment (frontdoor builds it from Settings)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from backends.ports import Scope
from services.experiments import AllocatorSettings


@dataclass(frozen=True)
class AppConfig:
    """Plain values for create_app; secrets kept out of repr."""

    base_url: str
    mode: str = "embedded"
    bootstrap_keys: Mapping[Scope, str] = field(default_factory=dict, repr=False)
    max_body_bytes: int = 2 * 1024 * 1024
    allowed_hosts: tuple[str, ...] = ()
    # HMAC key of draft preview links (services/previews.py)
    preview_secret: bytes = field(default=b"", repr=False)
    # POST generate waits this long for the job to finish before answering 202 (poll the job)
    generate_wait_seconds: float = 25.0
    # External OAuth issuer (OAUTH_ISSUER); None means the built-in authorization server
    oauth_issuer: str | None = None
    # X-Forwarded-For entries our own proxies append, gcp mode (FORWARDED_FOR_HOPS; ProxyFix)
    forwarded_for_hops: int = 2
    # The beacon waits for consent (BEACON_CONSENT=required); other sites allowed to collect
    beacon_consent: bool = False
    collect_allowed_origins: tuple[str, ...] = ()
    # /collect's page views a minute per visitor id and per address (COLLECT_LIMIT_*)
    collect_limits: tuple[int, int] = (60, 1200)
    # Requests per window per key (by scope) and per client address (`public`); 0 is off
    rate_limits: Mapping[str, int] = field(default_factory=dict)
    rate_limit_window_seconds: int = 60
    # A page experiment's adaptive allocation and stop rule (EXPERIMENT_*)
    experiment: AllocatorSettings = field(default_factory=AllocatorSettings)
