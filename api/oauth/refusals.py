"""The authorization server's refusals: RFC 6749 §5.2's JSON answer, raised as an OAuthError by
whatever decides it and answered by the endpoint, its error_description in the characters
RFC 6749 allows."""

from __future__ import annotations

import re
from collections.abc import Mapping

from starlette.responses import JSONResponse

# An answer of the authorization server is never cached (RFC 6749 §5.1, RFC 7591 §3.2.1).
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
# What RFC 6749 §4.1.2.1 does not allow in an error_description.
_DESCRIPTION_UNSAFE = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")


def error_description(text: str) -> str:
    """`text` as RFC 6749 §4.1.2.1 allows an error_description: printable ASCII without `"`
    or `\\`; lines joined with `; `."""
    lines = (line.strip() for line in text.splitlines())
    joined = "; ".join(line for line in lines if line).replace('"', "'").replace("\\", "/")
    return _DESCRIPTION_UNSAFE.sub("", joined)


class OAuthError(Exception):
    """A request the authorization server refuses: `status`, RFC 6749's `error` and a
    description, with `headers` besides the no-store ones."""

    def __init__(
        self,
        status: int,
        error: str,
        description: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {error}")
        self.status = status
        self.error = error
        self.description = description
        self.headers = dict(headers or {})

    def answer(self) -> JSONResponse:
        body = {"error": self.error, "error_description": error_description(self.description)}
        return JSONResponse(body, status_code=self.status, headers={**NO_STORE, **self.headers})
