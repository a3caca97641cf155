"""ETag comparison for conditional requests (RFC 9110 13.1.1 If-Match, 13.1.2 If-None-Match).

`*` matches any current representation. If-Match compares strongly (a `W/` tag never matches);
If-None-Match weakly (`W/"x"` matches `"x"`). A tag is matched only as sent, quotes included:
`v3` does not name `"v3"` (werkzeug's `parse_etags` would accept it; the docs promise the quoted
form, content-api.md "The stored record").
"""

from __future__ import annotations


def etag_listed(header: str | None, etag: str, *, weak: bool = True) -> bool:
    """Whether a conditional header (a list of tags, or `*`) names `etag`, a strong tag."""
    if not header:
        return False
    if header == etag:  # the common case: the one tag a client was given, sent back
        return True
    if header.strip() == "*":
        return True
    for candidate in (part.strip() for part in header.split(",")):
        if candidate == etag or (weak and candidate.removeprefix("W/") == etag):
            return True
    return False
