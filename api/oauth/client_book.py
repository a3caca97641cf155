"""The built-in authorization server's clients over the OAuthStore: lookup, registration,
expiry.

A registered (DCR) client gets no token for `unused_client_ttl` and is forgotten; each token
moves that on, never to before its newest refresh token ends. A Client ID Metadata Document
is fetched on first use and cached for CIMD_CACHE. Secrets are kept only as sha256 hashes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeVar
from urllib.parse import urlsplit

from mcp.server.auth.provider import RegistrationError
from mcp.shared.auth import OAuthClientInformationFull

from api.oauth.clients import (
    LOOPBACK_HOSTS,
    KnownClient,
    MetadataDocumentError,
    RegisteredClient,
    fetch_metadata_document,
    is_metadata_document_url,
)
from api.oauth.config import OAuthConfig, call_store, sha256_hex
from backends.ports import OAuthClientRecord, OAuthStore

logger = logging.getLogger(__name__)
T = TypeVar("T")

CIMD_CACHE = timedelta(minutes=10)
GRANT_TYPES = ("authorization_code", "refresh_token")
CLIENT_NAME_MAX = 200


class ClientBook:
    """The provider's clients (BuiltinOAuthProvider.get_client and register_client)."""

    def __init__(
        self, store: OAuthStore, config: OAuthConfig, *, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock

    async def io(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        return await call_store(self.config.offload_store_calls, fn, *args, **kwargs)

    async def get(self, client_id: str) -> RegisteredClient | None:
        """The client, or None once forgotten; a metadata document URL is fetched when stale."""
        known = await self.find(client_id)
        return None if known is None else known.client

    async def find(self, client_id: str) -> KnownClient | None:
        """The client and its secret's hash, as `get` finds it."""
        record = await self.io(self.store.get_client, client_id)
        is_document = is_metadata_document_url(
            client_id, allow_http_loopback=self.config.allow_http_loopback_cimd
        )
        now = self.clock()
        if record is not None and (
            (record.expires_at is not None and record.expires_at <= now)
            or (is_document and record.created_at < now - CIMD_CACHE)
        ):
            record = None
        if record is not None:
            return await self._known(record)
        if not is_document:
            return None
        try:
            client = await fetch_metadata_document(
                client_id,
                default_scope=" ".join(self.config.scopes),
                allow_loopback=self.config.allow_http_loopback_cimd,
            )
        except MetadataDocumentError as err:
            logger.info("client metadata document refused: %s", err)
            return None
        await self._save(client, expires_at=self.clock() + CIMD_CACHE)
        return KnownClient(client)

    async def _known(self, record: OAuthClientRecord) -> KnownClient:
        """The client of a stored record, with its secret's hash."""
        client = RegisteredClient.model_validate_json(record.information)
        if client.client_secret is not None:
            # A row written before secrets were hashed: hash it now and drop the plain one.
            record = replace(
                record,
                information=client.model_dump_json(exclude={"client_secret"}, exclude_none=True),
                secret_hash=sha256_hex(client.client_secret),
            )
            await self.io(self.store.save_client, record)
            logger.info("hashed a stored client secret", extra={"client_id": record.client_id})
            client = client.model_copy(update={"client_secret": None})
        return KnownClient(client, record.secret_hash)

    async def register(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or ():
            parts = urlsplit(str(uri))
            if parts.scheme != "https" and not (
                parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
            ):
                raise RegistrationError(
                    "invalid_redirect_uri", "redirect URIs must be https or http loopback"
                )
            if parts.fragment or str(uri).endswith("#"):
                raise RegistrationError(
                    "invalid_redirect_uri",
                    "a redirect URI has no fragment (RFC 6749 section 3.1.2)",
                )
        unsupported = sorted(set(client_info.grant_types) - set(GRANT_TYPES))
        if unsupported:
            raise RegistrationError(
                "invalid_client_metadata",
                f"grant_types may hold only {', '.join(GRANT_TYPES)}, not {', '.join(unsupported)}",
            )
        name = client_info.client_name or ""
        if len(name) > CLIENT_NAME_MAX or any(not ch.isprintable() for ch in name):
            raise RegistrationError(
                "invalid_client_metadata",
                f"client_name is at most {CLIENT_NAME_MAX} printable characters "
                "(the consent page shows it)",
            )
        if "refresh_token" not in client_info.grant_types:
            # The SDK answers with this same object, so the client learns of the grant.
            client_info.grant_types = [*client_info.grant_types, "refresh_token"]
        secret = client_info.client_secret  # in the 201 response once, never stored
        await self._save(
            client_info,
            secret_hash=sha256_hex(secret) if secret else None,
            expires_at=self.clock() + self.config.unused_client_ttl,
        )

    async def keep(self, client_id: str, now: datetime) -> None:
        """Push a registered client's expiry to cover the tokens just issued (CIMD clients
        keep their cache expiry). At most one write a day per client: only a move of more
        than a day is saved."""
        if is_metadata_document_url(
            client_id, allow_http_loopback=self.config.allow_http_loopback_cimd
        ):
            return
        keep_until = now + max(self.config.unused_client_ttl, self.config.refresh_token_ttl)
        record = await self.io(self.store.get_client, client_id)
        if record is None or (
            record.expires_at is not None and keep_until - record.expires_at <= timedelta(days=1)
        ):
            return
        await self.io(self.store.save_client, replace(record, expires_at=keep_until))

    async def _save(
        self,
        client: OAuthClientInformationFull,
        *,
        secret_hash: str | None = None,
        expires_at: datetime | None = None,
    ) -> None:
        record = OAuthClientRecord(
            client_id=client.client_id,
            information=client.model_dump_json(exclude={"client_secret"}, exclude_none=True),
            created_at=self.clock(),
            secret_hash=secret_hash,
            expires_at=expires_at,
        )
        await self.io(self.store.save_client, record)
