"""What the authorization server's endpoints read of a request: the body, at most FORM_LIMIT
bytes, read once; its form (or /authorize's query) as one value per parameter (RFC 6749
§3.1: a parameter sent without a value is omitted, and none may be sent twice)."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl

from starlette.requests import Request

from api.oauth.refusals import OAuthError

FORM_LIMIT = 64 * 1024  # bytes of a POST to /authorize, /token, /revoke or /register


async def read_body(request: Request, *, limit: int = FORM_LIMIT) -> bytes:
    """The whole body. Raises: OAuthError (413) once it passes `limit` bytes, before the rest
    is read: a registration that large would not fit a Firestore document either."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_form(request: Request) -> dict[str, str]:
    """The POSTed form. Raises: OAuthError (413 past FORM_LIMIT, 400 when not a form)."""
    body = await read_body(request)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise OAuthError(400, "invalid_request", "the form is not UTF-8") from err
    return parameters(parse_qsl(text, keep_blank_values=True))


def parameters(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """One value per parameter, blank ones left out. Raises: OAuthError (400) for a parameter
    sent twice, which RFC 6749 §3.1 forbids (two readers could take different ones)."""
    found: dict[str, str] = {}
    twice: list[str] = []
    for name, value in pairs:
        if not value:
            continue
        if name in found:
            twice.append(name)
        found[name] = value
    if twice:
        names = ", ".join(sorted(set(twice)))
        raise OAuthError(400, "invalid_request", f"sent more than once: {names}")
    return found


def missing(params: dict[str, str], names: Iterable[str]) -> None:
    """Raises: OAuthError (400 invalid_request) naming every one of `names` not in `params`."""
    absent = [name for name in names if name not in params]
    if absent:
        raise OAuthError(400, "invalid_request", f"required: {', '.join(absent)}")


def _too_large(limit: int) -> OAuthError:
    return OAuthError(413, "invalid_request", f"the request body is over {limit} bytes")
