"""PageChanges: who hears that a page changed. The page use cases (services/pages.py) and the
generation worker tell it the slug after every write; the pages blueprint listens, so its
lookup memo forgets, and the CDN's copy of `/p/{slug}` is purged. One per process: built with
the process's ports (backends.bundle) and shared by every writer in it."""

from __future__ import annotations

import logging
from collections.abc import Callable

from backends.ports import Cdn, UnavailableError

__all__ = ["PageChanges"]

logger = logging.getLogger(__name__)


class PageChanges:
    """Who hears that a page changed (services/pages.py tells it the slug after every write):
    this process's /p/ lookup memo once the pages blueprint listens, then the CDN purge of
    `/p/{slug}`. Every listener runs before the purge. The write has been stored by then, so a
    purge the CDN refuses is logged for operators and never fails the write: answering an error
    would invite a retry of a write that succeeded (and a job would store its page again). The
    CDN serves the old version until the page's s-maxage runs out."""

    def __init__(self, cdn: Cdn) -> None:
        self._cdn = cdn
        self._listeners: list[Callable[[str], None]] = []

    def listen(self, listener: Callable[[str], None]) -> None:
        """Call `listener` with the slug of every later change."""
        self._listeners.append(listener)

    def __call__(self, slug: str) -> None:
        for listener in self._listeners:
            listener(slug)
        try:
            self._cdn.purge(f"/p/{slug}")
        except UnavailableError:
            logger.exception(
                "cdn purge of /p/%s failed; the CDN serves the old version until s-maxage",
                slug,
                extra={"slug": slug},
            )
