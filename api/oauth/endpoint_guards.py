"""ASGI wrappers that close the MCP SDK's gaps on the authorization server's endpoints.

Each wraps one SDK handler (api/oauth/routes.py mounts them) or, for StoreOutage and the 405
shape, the whole ASGI side (api/tools/mcp_app.py): a body limit; /authorize's unknown clients,
a code_challenge without its method; /token's grant types, `resource`
and HTTP Basic; /revoke's public clients; registrations per address; RFC 6749's characters in
every error_description; /authorize's errors answered, never redirected to a redirect URI no
person has confirmed; an OAuth store outage as 503 `temporarily_unavailable`.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.oauth.address_limits import address_key
from api.oauth.clients import basic_client_id, presented_client_secrets, secrets_in_request
from api.oauth.config import RETRY_AFTER_SECONDS
from api.oauth.provider import (
    BuiltinOAuthProvider,
    authorize_method_named,
    token_request_resource,
)
from backends.ports import UnavailableError

logger = logging.getLogger(__name__)
GRANT_TYPES = ("authorization_code", "refresh_token")
FORM_LIMIT = 64 * 1024  # bytes of a POST to /authorize, /token, /revoke or /register
# What RFC 6749 §4.1.2.1 does not allow in an error_description.
_DESCRIPTION_UNSAFE = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")


def error_description(text: str) -> str:
    """`text` as RFC 6749 §4.1.2.1 allows an error_description: printable ASCII without `"`
    or `\\`; lines joined with `; `."""
    lines = (line.strip() for line in text.splitlines())
    joined = "; ".join(line for line in lines if line).replace('"', "'").replace("\\", "/")
    return _DESCRIPTION_UNSAFE.sub("", joined)


class StoreOutage:
    """An outage of the OAuth store (the port's UnavailableError) on any route answers 503
    `temporarily_unavailable` with Retry-After, RFC 6749's shape, instead of a 500: the
    OAuth endpoints, the sign-in pages and /mcp, whose token check reads the store. An
    agent backs off and retries; it must not take the answer for a bad token or client."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except UnavailableError as err:
            if started:
                raise
            logger.warning("oauth store unavailable on %s: %s", scope.get("path"), err)
            body = {
                "error": "temporarily_unavailable",
                "error_description": "the authorization store is unavailable; retry shortly",
            }
            headers = {"Retry-After": RETRY_AFTER_SECONDS, "Cache-Control": "no-store"}
            if "origin" in Headers(scope=scope):  # every route here is open to any origin
                headers["Access-Control-Allow-Origin"] = "*"
                headers["Access-Control-Expose-Headers"] = "Retry-After"
            await JSONResponse(body, status_code=503, headers=headers)(scope, receive, send)


def oauth_method_refusal(_text: str, scope: Scope, headers: Headers) -> dict[str, Any]:
    allowed = headers.get("allow", "")
    return {
        "error": "invalid_request",
        "error_description": f"{scope['method']} is not allowed on {scope['path']}; "
        f"allowed: {allowed}",
    }


class AuthorizeRequest:
    """/authorize, by GET or by POST: an unknown client_id gets 401 invalid_client, so the
    client registers again (the SDK answers a POST 400 invalid_request); a code_challenge
    sent without code_challenge_method (which RFC 7636 §4.3 reads as `plain`, and the SDK as
    S256) is marked for the provider, which refuses it; an error the SDK would send back to
    the client's redirect URI is answered here instead (see _errors_shown). Mounted inside
    BodyLimit, so a POST's body is at most FORM_LIMIT bytes here."""

    def __init__(self, app: ASGIApp, provider: BuiltinOAuthProvider) -> None:
        self.app = app
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope.get("method")
        if method == "POST":
            body = await read_body(receive, FORM_LIMIT) or b""
            receive = replayed(body, receive)
            query = parse_qs(body.decode("latin-1"))
        elif method == "GET":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        else:
            query = {}
        client_id = (query.get("client_id") or [""])[0]
        if client_id and await self.provider.get_client(client_id) is None:
            await oauth_error(
                scope, receive, send, 401, "invalid_client", "unknown client_id; register again"
            )
            return
        named = "code_challenge_method" in query or "code_challenge" not in query
        marked = authorize_method_named.set(named)
        try:
            await self.app(scope, receive, self._errors_shown(send))
        finally:
            authorize_method_named.reset(marked)

    def _errors_shown(self, send: Send) -> Send:
        """An error the SDK sends back to the client's redirect URI is answered here instead:
        400 (503 with Retry-After for temporarily_unavailable) with `error` and an
        `error_description` in the characters RFC 6749 allows. No person has confirmed that
        redirect URI yet (anyone may register one), so redirecting would make this server an
        open redirector (RFC 9700 §4.11.2). Only consent, which names the redirect host, sends
        the person back, with `code` or `access_denied`."""
        shown = False

        async def without_redirect(message: Message) -> None:
            nonlocal shown
            if message["type"] == "http.response.start" and message["status"] in (302, 303):
                target = urlsplit(MutableHeaders(scope=message).get("location", ""))
                query = dict(parse_qsl(target.query, keep_blank_values=True))
                if "error" in query:
                    shown = True
                    await _error_shown(send, query["error"], query.get("error_description", ""))
                    return
            elif shown:
                return  # the redirect's own (empty) body
            await send(message)

        return without_redirect


async def _error_shown(send: Send, error: str, description: str) -> None:
    body = json.dumps(
        {"error": error, "error_description": error_description(description)}
    ).encode()
    unavailable = error == "temporarily_unavailable"
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if unavailable:
        headers.append((b"retry-after", RETRY_AFTER_SECONDS.encode()))
    status = 503 if unavailable else 400
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None once it passes `limit` bytes."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
        if size > limit:
            return None
    return b"".join(chunks)


def replayed(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the handler `body` once, then the connection's own messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def oauth_error(
    scope: Scope, receive: Receive, send: Send, status: int, error: str, description: str
) -> None:
    """An RFC 6749 §5.2 error answer."""
    body = {"error": error, "error_description": description}
    await JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})(
        scope, receive, send
    )


async def too_large(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    await oauth_error(
        scope, receive, send, 413, "invalid_request", f"the request body is over {limit} bytes"
    )


class BodyLimit:
    """A POST body over `limit` bytes gets 413 invalid_request before the handler reads it:
    the SDK's form parser answers a field past 1 MiB with 400 server_error (and logs an
    error), and a registration that large would not fit a Firestore document."""

    def __init__(self, app: ASGIApp, *, limit: int = FORM_LIMIT) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, self.limit)
        if body is None:
            await too_large(scope, receive, send, self.limit)
            return
        await self.app(scope, replayed(body, receive), send)


class FormRequest:
    """Buffers a POSTed form, reads and amends it as below, then replays it to the handler.

    /token: the SDK handler drops `resource`, so it is handed to the provider here; a grant
    type it does not serve gets `unsupported_grant_type` (RFC 6749 §5.2), where the SDK
    answered invalid_request with its parser's words.
    /token and /revoke: the client secrets sent, for the provider's hash check; a client
    that authenticates with HTTP Basic alone (RFC 6749 §2.3.1) has its `client_id` added to
    the form, which the SDK reads it from.
    /revoke: the SDK requires a `client_secret` field even from public clients (RFC 7009
    sends none), so an absent one is added empty; its 401 says `unauthorized_client`, which
    RFC 7009 §2.2.1 (by RFC 6749 §5.2) and /token call `invalid_client` (JsonRefusalText
    renames it). Mounted inside BodyLimit, so the body is at most FORM_LIMIT bytes here.
    """

    def __init__(self, app: ASGIApp, *, revoke: bool = False) -> None:
        self.app = app
        self.revoke = revoke

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, FORM_LIMIT) or b""
        form = parse_qs(body.decode("latin-1"))
        if not self.revoke:
            grant = (form.get("grant_type") or [""])[0]
            if not grant:
                await oauth_error(
                    scope, receive, send, 400, "invalid_request", "grant_type is required"
                )
                return
            if grant not in GRANT_TYPES:
                await oauth_error(
                    scope,
                    receive,
                    send,
                    400,
                    "unsupported_grant_type",
                    f"grant_type must be one of: {', '.join(GRANT_TYPES)}",
                )
                return
        if self.revoke and "client_secret" not in form:
            body += b"&client_secret=" if body else b"client_secret="
        authorization = Headers(scope=scope).get("authorization", "")
        basic_id = basic_client_id(authorization)
        if basic_id and not form.get("client_id"):
            body += (b"&" if body else b"") + urlencode({"client_id": basic_id}).encode()
        resources = form.get("resource") or []
        token = token_request_resource.set(resources[0] if resources else None)
        sent = presented_client_secrets.set(secrets_in_request(form, authorization))
        try:
            await self.app(scope, replayed(body, receive), send)
        finally:
            token_request_resource.reset(token)
            presented_client_secrets.reset(sent)


class JsonRefusalText:
    """A 4xx JSON answer of an OAuth endpoint with its error_description in the characters
    RFC 6749 §5.2 allows (the SDK joins its parser's messages with newlines); with `revoke`,
    a 401 `unauthorized_client` renamed `invalid_client` (client authentication failed,
    RFC 6749 §5.2, as /token says)."""

    def __init__(self, app: ASGIApp, *, revoke: bool = False) -> None:
        self.app = app
        self.revoke = revoke

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        held: Message | None = None
        chunks: list[bytes] = []

        async def rewritten(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and 400 <= message["status"] < 500:
                held = message
                return
            if held is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = self._body(b"".join(chunks), status=held["status"])
            headers = [(k, v) for k, v in held["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**held, "headers": headers})
            held = None
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, rewritten)

    def _body(self, body: bytes, *, status: int) -> bytes:
        try:
            doc = json.loads(body)
        except ValueError:
            return body
        if not isinstance(doc, dict):
            return body
        changed = dict(doc)
        if isinstance(doc.get("error_description"), str):
            changed["error_description"] = error_description(doc["error_description"])
        if self.revoke and status == 401 and doc.get("error") == "unauthorized_client":
            changed["error"] = "invalid_client"
        return body if changed == doc else json.dumps(changed).encode()


class NoStore:
    """`Cache-Control: no-store` and `Pragma: no-cache` on every answer (RFC 7591 §3.2.1 by
    RFC 6749 §5.1): /register's 201 holds a client secret, which no cache may keep."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def uncached(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Cache-Control"] = "no-store"
                headers["Pragma"] = "no-cache"
            await send(message)

        await self.app(scope, receive, uncached)


class RegistrationLimit:
    """Registrations per client address per hour; DCR stays open and cheap below that."""

    def __init__(self, app: ASGIApp, provider: BuiltinOAuthProvider) -> None:
        self.app = app
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "POST":
            now = self.provider.clock()
            window = now.replace(minute=0, second=0, microsecond=0)
            config = self.provider.config
            address = address_key(scope, forwarded_for_hops=config.forwarded_for_hops)
            bucket = f"register:{address}"
            hits = await self.provider.io(
                self.provider.store.count_hit, bucket, window_start=window
            )
            if hits > config.registrations_per_hour:
                retry = int((window + timedelta(hours=1) - now).total_seconds()) + 1
                body = {
                    "error": "rate_limited",
                    "error_description": "too many registrations; retry later",
                }
                headers = {"Retry-After": str(retry), "Cache-Control": "no-store"}
                await JSONResponse(body, status_code=429, headers=headers)(scope, receive, send)
                return
        await self.app(scope, receive, send)
