"""The MCP app's view of the settings (its OAuth store is `Backends.oauth`)."""

from __future__ import annotations

from datetime import timedelta

from api.config import AppConfig
from api.oauth.config import OAuthConfig
from api.rate_limits import WindowCounter
from api.tools.mcp_app import McpConfig
from api.tools.page_tools import PagePorts
from backends.bundle import Backends
from domain.staff import StaffDirectory
from frontdoor.settings import Settings
from frontdoor.wiring import app_config


def mcp_config(settings: Settings) -> McpConfig:
    """The MCP app's view of the settings: external IdP when OAUTH_ISSUER is set."""
    base = settings.base_url
    staff = StaffDirectory.of(
        domains=settings.staff_email_domains,
        emails=settings.staff_emails,
        claim=settings.oauth_staff_claim,
    )
    oauth = OAuthConfig(
        issuer=base,
        resource=f"{base}/mcp",
        access_token_ttl=timedelta(seconds=settings.oauth_access_token_ttl),
        allow_http_loopback_cimd=settings.oauth_allow_http_cimd,
        refresh_retry_grace=timedelta(seconds=settings.oauth_refresh_retry_seconds),
        codes_per_email_and_address=settings.oauth_signin_codes_per_email_and_address,
        codes_per_email=settings.oauth_signin_codes_per_email,
        codes_per_address=settings.oauth_signin_codes_per_address,
        codes_per_signin=settings.oauth_signin_codes_per_signin,
        # Embedded mode listens to its clients directly; in gcp mode only our own proxies'
        # X-Forwarded-For entries are trusted (as the REST side reads them).
        forwarded_for_hops=settings.forwarded_for_hops if settings.backend == "gcp" else 0,
        # Firestore calls go to a worker thread; SQLite reads are cheaper than the hop.
        offload_store_calls=settings.backend == "gcp",
        staff=staff,
    )
    return McpConfig(
        base_url=base,
        allowed_hosts=tuple(settings.allowed_hosts),
        allowed_origins=tuple(settings.mcp_allowed_origins),
        local=settings.backend == "embedded",
        oauth=None if settings.oauth_issuer else oauth,
        external_issuer=settings.oauth_issuer,
        jwks_url=settings.oauth_jwks_url,
        audience=settings.oauth_audience,
        staff=staff,
    )


def signin_limit(settings: Settings) -> WindowCounter | None:
    """Requests per client address to /authorize and the sign-in pages (RATE_LIMIT_SIGNIN per
    RATE_LIMIT_WINDOW_SECONDS, counted in this process), or None when turned off."""
    if settings.rate_limit_signin == 0:
        return None
    return WindowCounter(
        policy="signin",
        quota=settings.rate_limit_signin,
        window_seconds=settings.rate_limit_window_seconds,
    )


def page_ports(
    settings: Settings, backends: Backends, *, config: AppConfig | None = None
) -> PagePorts:
    """The staff page tools' ports: the page and job stores, the records' links and preview
    secret as the HTTP app's `config` has them, and the partner staff drafts belong to."""
    config = config or app_config(settings)
    return PagePorts(
        pages=backends.pages,
        signals=backends.signals,
        jobs=backends.jobs,
        job_queue=backends.job_queue,
        clock=backends.clock,
        base_url=config.base_url,
        preview_secret=config.preview_secret,
        partner=settings.staff_pages_partner,
        wait_seconds=config.generate_wait_seconds,
    )
