"""The MCP app's view of the settings (its OAuth store is `Backends.oauth`)."""

from __future__ import annotations

from datetime import timedelta

from api.oauth.config import OAuthConfig
from api.tools.mcp_app import McpConfig
from domain.staff import StaffDirectory
from frontdoor.settings import Settings


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
