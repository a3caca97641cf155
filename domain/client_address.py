"""The client's address behind our own proxies: which X-Forwarded-For entry to trust.

The authorization server's ASGI routes count requests per client address with it. The Flask
side takes the same entry with werkzeug's ProxyFix (api/app.py), which wraps WSGI apps only.
"""

from __future__ import annotations


def client_address(forwarded_for: str, peer: str, *, hops: int) -> str:
    """The client's address: the `hops`-th X-Forwarded-For entry from the end, else the peer.

    Each trusted proxy appends what it saw; everything to the left of the entries they wrote
    is the client's own claim and spoofable. The Google external Application Load Balancer
    appends `<client>,<load balancer>`, so behind it the client is 2 from the end; a bare
    Cloud Run URL appends `<client>` (1). 0 ignores the header. A header with fewer entries
    than that did not come through those proxies: the peer address is used.
    """
    entries = [p.strip() for p in forwarded_for.split(",")] if forwarded_for.strip() else []
    if hops < 1 or len(entries) < hops or not entries[-hops]:
        return peer
    return entries[-hops]
