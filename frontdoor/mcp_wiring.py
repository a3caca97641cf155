"""Wiring of the ASGI side: the OAuth store adapter and the MCP app's view of the settings."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from api.mcp_app import McpConfig
from api.oauth_config import OAuthConfig
from backends.ports import OAuthStore
from frontdoor.settings import Settings


def build_oauth_store(settings: Settings) -> OAuthStore:
    """The built-in authorization server's store: Firestore when BACKEND=gcp, else SQLite."""
    if settings.backend == "gcp":
        # Imported here so that embedded runs never load the cloud clients.
        from backends.gcp.firestore import firestore_client
        from backends.gcp.oauth import FirestoreOAuthStore

        client = firestore_client(
            project=settings.google_cloud_project, database=settings.firestore_database
        )
        return FirestoreOAuthStore(client)
    from backends.embedded.oauth import SqliteOAuthStore
    from backends.embedded.sqlite import SqliteDatabase

    return SqliteOAuthStore(SqliteDatabase(Path(settings.data_dir) / "frontdoor.sqlite3"))


def mcp_config(settings: Settings) -> McpConfig:
    """The MCP app's view of the settings: external IdP when OAUTH_ISSUER is set."""
    base = settings.base_url
    oauth = OAuthConfig(
        issuer=base,
        resource=f"{base}/mcp",
        access_token_ttl=timedelta(seconds=settings.oauth_access_token_ttl),
        allow_http_loopback_cimd=settings.oauth_allow_http_cimd,
        # Firestore calls go to a worker thread; SQLite reads are cheaper than the hop.
        offload_store_calls=settings.backend == "gcp",
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
    )
