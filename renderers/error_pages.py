"""The pages that a problem body's `type` names: `{base_url}/errors/{code}`, one per error code.

Pure: the code, its status and title (api/errors.py's table) go in, a small HTML page comes out.
"""

from __future__ import annotations

from html import escape

from renderers.assets import favicon_asset

__all__ = ["ADVICE", "render_error_page"]

ADVICE: dict[str, str] = {
    "invalid_query": "A query parameter is malformed. `issues[]` names each one; fix and retry.",
    "invalid_domain": "The domain in the path is not a domain such as `acme.com`.",
    "invalid_email": "The email address in the path is not a valid address.",
    "invalid_json": "The body is not valid JSON (or uses `NaN`). Send a JSON object.",
    "unauthorized": "Send a valid key of this surface's scope in `x-api-key`. Keys of another "
    "scope, revoked keys and typos all answer 401; retrying will not help.",
    "forbidden": "The request's origin may not call this route.",
    "not_found": "No such route or record. Public reads of an unknown slug answer "
    '`{"error": "not_found", "slug"}`.',
    "method_not_allowed": "The route exists but not for this method; the `Allow` header lists "
    "the methods it takes.",
    "precondition_failed": "`If-Match` does not name the current ETag: the record changed since "
    "you read it. Read it again, reapply your change, and retry.",
    "idempotency_in_flight": "The first request with this `Idempotency-Key` is still running. "
    "Retry after a pause; you will get its result.",
    "idempotency_key_reused": "This `Idempotency-Key` was used with a different body. Use a new "
    "key for a new request.",
    "payload_too_large": "The body is over the size limit. Send less.",
    "unsupported_media_type": "Send `content-type: application/json` (or the media types the "
    "OpenAPI document lists for this operation).",
    "invalid_payload": "The body failed the schema or the brand gate. Every failure is in "
    "`issues[]` as `{field, code, message}`; fix them all and send again.",
    "rate_limited": "Too many requests for this key (or, on public reads, this address). Wait "
    "`Retry-After` seconds, then retry; `RateLimit` and `RateLimit-Policy` say how much is left.",
    "storage_quota_exceeded": "Your pages and their kept versions hold your storage quota, so "
    "this write, which would add to them, changed nothing. Waiting frees nothing: ask us to "
    "raise the quota.",
    "experiment_ended": "The page's experiment already ended with another winner, and the page "
    "holds that winner's content. Nothing was changed. To test again, set the page's allocation "
    "(PUT .../allocation): that starts the next experiment.",
    "slug_taken": "Another partner owns a page with this slug. Pages are each partner's own: "
    "choose another slug. Nothing was changed and no job was queued.",
    "model_failed": "The authoring model failed. `retryable: true`: it is safe to retry once.",
    "internal": "Something failed on our side and is logged with the request id in `instance`. "
    "Retry with back-off; quote `instance` if it persists.",
    "unavailable": "A backend is down for a moment. Retry with back-off.",
}


def render_error_page(code: str, *, status: str, title: str, base_url: str) -> str:
    """One error code explained: status, meaning and what to do."""
    advice = ADVICE.get(code, title)
    text = escape(advice).replace("`", "")
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(code)}: {escape(title)}</title>\n"
        f'<link rel="icon" href="{favicon_asset().href}" type="image/svg+xml">\n'
        "<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;"
        "padding:0 1rem;line-height:1.6;color:#17212b;background:#faf8f4}"
        "code{background:#f1ede6;padding:0 .25em}a{color:#b3471d}</style>\n"
        "</head>\n<body>\n<main>\n"
        f"<h1><code>{escape(code)}</code></h1>\n"
        f"<p><strong>{escape(status)}</strong>: {escape(title)}</p>\n"
        f"<p>{text}</p>\n"
        f'<p>All error codes: <a href="{escape(base_url)}/developers#errors">developer portal</a>'
        f' · <a href="{escape(base_url)}/AGENTS.md">AGENTS.md</a></p>\n'
        "</main>\n</body>\n</html>\n"
    )
