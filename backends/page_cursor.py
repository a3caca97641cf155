"""The opaque list cursors both page stores share: the last row's (updated_at, slug) for the
pages list, and the last version number shown for a page's history."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime

from domain.numbers import ascii_whole_number


def encode_cursor(updated_at: datetime, slug: str) -> str:
    """A cursor that resumes after this row."""
    raw = json.dumps([updated_at.astimezone(UTC).isoformat(), slug]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The row a cursor points after. Raises: ValueError for a cursor we did not issue."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, slug = json.loads(raw)
        when = datetime.fromisoformat(stamp)
    except (binascii.Error, ValueError, TypeError) as err:
        raise ValueError("not a cursor this service issued") from err
    if not isinstance(slug, str) or when.tzinfo is None:
        raise ValueError("not a cursor this service issued")
    try:
        # A forged time at the edge of the range (year 1 at +14:00) has no UTC equivalent.
        return when.astimezone(UTC), slug
    except OverflowError as err:
        raise ValueError("not a cursor this service issued") from err


def decode_version_cursor(cursor: str) -> int:
    """The version a history cursor continues below. Raises: ValueError if not ours."""
    version = ascii_whole_number(cursor, max_digits=10)
    if version is None or not 1 <= version <= 10**9:
        raise ValueError("not a cursor this service issued")
    return version
