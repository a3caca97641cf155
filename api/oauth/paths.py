"""The exact paths of the built-in authorization server: its endpoints and its sign-in
pages. api/tools/mcp_paths.py adds them to the ASGI side's paths when this server is on."""

from __future__ import annotations

SIGNIN_PATH, CODE_PATH, CONSENT_PATH = "/oauth/signin", "/oauth/code", "/oauth/consent"
AUTHORIZATION_SERVER_PATHS = frozenset(
    {
        "/.well-known/oauth-authorization-server",
        "/authorize",
        "/token",
        "/register",
        "/revoke",
        SIGNIN_PATH,
        CODE_PATH,
        CONSENT_PATH,
    }
)
