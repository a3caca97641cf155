"""Who writes: the editor a page write is made by, and that a generation job keeps whole from
the request that started it to the worker that stores its page.

A pure value: the page use cases (services/pages.py) take it, the job record
(schemas/content/jobs.py) stores it as one nested value.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.pages import StoredPage


@dataclass(frozen=True)
class Editor:
    """Who writes: a partner's key, or an admin (a `content_admin` key, the operator CLI)."""

    partner: str
    key_id: str
    admin: bool = False

    def sees(self, page: StoredPage) -> bool:
        """True if this editor may read and change `page`."""
        return self.admin or page.owner == self.partner
