"""LoggingCdn: embedded mode has no CDN in front, so a purge is a logged no-op."""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


class LoggingCdn:
    """Cdn with nothing to purge; it logs what a real CDN would invalidate."""

    def purge(self, path: str) -> None:
        logger.info("cdn purge %s (embedded: nothing cached in front)", path, extra={"path": path})
