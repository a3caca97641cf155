"""What a partner reads of a stored page: its record (with a signed preview link for a draft)
and its ETag. Pure; how writes change a page is schemas/page_changes.py.
"""

from __future__ import annotations

from api.previews import make_preview_token, preview_expiry
from backends.ports import StoredPage
from schemas.content import GateResult, PageRecord


def page_record(page: StoredPage, *, base_url: str, preview_secret: bytes) -> PageRecord:
    """What read, list and write operations answer for one stored page."""
    preview_url = None
    if page.status == "draft":
        token = make_preview_token(
            page.slug, page.version, preview_expiry(page.updated_at), preview_secret
        )
        preview_url = f"{base_url}/p/{page.slug}?preview={token}"
    return PageRecord.model_validate(
        {
            **page.page_input,
            "is_published": page.status == "published",
            "status": page.status,
            "url": f"{base_url}/p/{page.slug}",
            "version": page.version,
            "source": page.source,
            "hero_image_url": page.hero_image_url,
            "created_at": page.created_at,
            "updated_at": page.updated_at,
            "published_at": page.published_at,
            "gate": GateResult(passed=page.gate_passed, ruleset=page.gate_ruleset),
            "preview_url": preview_url,
        }
    )


def etag(page: StoredPage) -> str:
    """The strong ETag of a page's record: one per version (versions never repeat for a slug)."""
    return f'"v{page.version}"'
