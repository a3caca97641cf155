"""Idempotency-Key on POST (IETF draft "The Idempotency-Key HTTP Header Field").

The first request with a key runs and its response (any status below 500) is kept 24 hours,
scoped to the partner key that sent it; a body over MAX_KEPT_BYTES is kept as a short body
that names its size and digest. A repeat with the same body gets that response again
with `Idempotent-Replayed: true`; a repeat while the first still runs gets 409
`idempotency_in_flight`; the same key with a different body gets 422 `idempotency_key_reused`.
A 5xx or a crash keeps nothing, so the retry runs. A blueprint builds its `Idempotency` from
the store and clock it receives.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from flask import Response, request

from api.errors import ApiError, bad_request, conflict, problem_response, refused_reuse
from backends.ports import IdempotencyStore, StoredResponse
from schemas.errors import Issue
from services.keys import Principal

HEADER = "Idempotency-Key"
_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
_REPLAYED_HEADERS = ("Content-Type", "ETag", "Location", "Retry-After")
# A first answer larger than this is not kept whole (a page record can pass 64 KiB): a repeat
# gets its status and headers with a short body (`_short_body`).
MAX_KEPT_BYTES = 64 * 1024
_MAX_KEPT_MEMBER = 1024  # characters of one member kept in a short body


@dataclass(frozen=True)
class Idempotency:
    """Idempotency-Key over one store of kept responses and the clock that dates them."""

    store: IdempotencyStore
    clock: Callable[[], datetime]

    def run(self, principal: Principal, payload: object, run: Callable[[], Response]) -> Response:
        """`run()` once per (partner key, Idempotency-Key); without the header it simply runs."""
        key = request.headers.get(HEADER)
        if key is None:
            return run()
        if not _KEY.match(key):
            raise bad_request(
                "invalid_idempotency_key",
                f"{HEADER} must be 1 to 255 visible ASCII characters",
                [
                    Issue(
                        field=HEADER,
                        code="invalid_format",
                        message="1 to 255 visible ASCII characters (a UUID is a good choice)",
                    )
                ],
            )
        store = self.store
        fingerprint = _fingerprint(payload)
        began = store.begin(
            scope=principal.key_id, key=key, fingerprint=fingerprint, now=self.clock()
        )
        if began.state == "in_flight":
            raise conflict(
                f"A request with this {HEADER} is still running; retry shortly",
                "idempotency_in_flight",
                headers={"Retry-After": "1"},
            )
        if began.state == "mismatch":
            raise refused_reuse(
                "idempotency_key_reused",
                f"This {HEADER} was used with a different body",
                [
                    Issue(
                        field=HEADER,
                        code="reused",
                        message="sent before with a different body; use a new key",
                    )
                ],
            )
        if began.state == "replay" and began.response is not None:
            return _replay(began.response)
        try:
            try:
                response = run()
            except ApiError as err:
                response = problem_response(err)
        except BaseException:
            store.release(scope=principal.key_id, key=key, fingerprint=fingerprint)
            raise
        if response.status_code >= 500:
            store.release(scope=principal.key_id, key=key, fingerprint=fingerprint)
            return response
        self._keep(principal, key, fingerprint, response)
        return response

    def keep_instead(self, principal: Principal, payload: object, response: Response) -> None:
        """Replace the kept first response of this request's key (a job that was abandoned and
        started again: repeats follow the new job, never the stale one)."""
        key = request.headers.get(HEADER)
        if key is not None and response.status_code < 500:
            self._keep(principal, key, _fingerprint(payload), response)

    def _keep(self, principal: Principal, key: str, fingerprint: str, response: Response) -> None:
        body = response.get_data()
        kept = StoredResponse(
            status=response.status_code,
            body=body if len(body) <= MAX_KEPT_BYTES else _short_body(body),
            headers=tuple(
                (name, response.headers[name])
                for name in _REPLAYED_HEADERS
                if name in response.headers
            ),
        )
        self.store.complete(
            scope=principal.key_id,
            key=key,
            fingerprint=fingerprint,
            response=kept,
            now=self.clock(),
        )


def _fingerprint(payload: object) -> str:
    """Method, path and the body as canonical JSON: key order and spacing do not matter."""
    body = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def _short_body(body: bytes) -> bytes:
    """What is kept of an answer over MAX_KEPT_BYTES: its top-level members that are neither
    lists nor objects (`ok`; an error's `error`, `message` and RFC 9457 members), and the size
    and SHA-256 of the whole body in `body_omitted`."""
    try:
        first = json.loads(body)
    except ValueError:
        first = None
    kept = {
        name: value
        for name, value in (first.items() if isinstance(first, dict) else ())
        if not isinstance(value, dict | list) and len(str(value)) <= _MAX_KEPT_MEMBER
    }
    kept["body_omitted"] = {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(kept).encode()


def _replay(stored: StoredResponse) -> Response:
    response = Response(stored.body, status=stored.status)
    for name, value in stored.headers:
        response.headers[name] = value
    response.headers["Idempotent-Replayed"] = "true"
    return response
