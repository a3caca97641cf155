"""Helpers for Content API tests: a page that passes the gate, a CDN that records, headers."""

from __future__ import annotations

import threading
from typing import Any

from tests.conftest import CONTENT_KEY

PAGES = "/api/public/content/pages"
AUTH = {"x-api-key": CONTENT_KEY}


def page_body(slug: str = "growth-audit", **fields: Any) -> dict[str, Any]:
    """A page that passes schema and gate; keyword arguments replace top-level fields."""
    body: dict[str, Any] = {
        "slug": slug,
        "title": "A growth audit in two weeks",
        "description": "What we check, what you get, and what it costs.",
        "cta_label": "Book a call",
        "cta_href": "/book",
        "blocks": [
            {
                "type": "hero",
                "title": "Find the leaks",
                "sub": "For heads of growth at B2B SaaS companies.",
            },
            {"type": "faq", "items": [{"q": "How long?", "a": "Two weeks."}]},
        ],
    }
    body.update(fields)
    return body


class RecordingCdn:
    """A Cdn that remembers what it was told to purge, and can hold a purge until released."""

    def __init__(self, *, hold: bool = False) -> None:
        self.paths: list[str] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self._hold = hold

    def purge(self, path: str) -> None:
        self.paths.append(path)
        if self._hold:
            self.entered.set()
            self.release.wait(10)
