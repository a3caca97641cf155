"""What a partner reads of a stored page: its record (with a signed preview link for a draft),
a kept version of it, and its ETag. Pure; how writes change a page is schemas/content/changes.py.

Stored records hold no origin of ours: a hero image on this service is kept as a site path
(`/assets/...`) and every URL is made absolute here, from the serving process's configured
public base URL (never the request's Host), so a record written by the CLI, a worker or
another instance reads right everywhere.
"""

from __future__ import annotations

from backends.ports import StoredPage
from renderers.safe_urls import absolute_url
from schemas.content.pages import GateResult, PageRecord, VersionRecord
from services.previews import make_preview_token, preview_expiry


def page_record(
    page: StoredPage, *, base_url: str, preview_secret: bytes, with_preview: bool = True
) -> PageRecord:
    """What read, list and write operations answer for one stored page."""
    preview_url = None
    if page.status in ("draft", "scheduled") and with_preview:
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
            "hero_image_url": absolute_url(page.hero_image_url, base_url=base_url),
            "created_at": page.created_at,
            "updated_at": page.updated_at,
            "published_at": page.published_at,
            "gate": GateResult(passed=page.gate_passed, ruleset=page.gate_ruleset),
            "preview_url": preview_url,
            "partner": page.owner or None,
        }
    )


def version_record(page: StoredPage, *, base_url: str) -> VersionRecord:
    """One kept version: who wrote it and how, and the page as it was (no preview link)."""
    return VersionRecord(
        version=page.version,
        status=page.status,
        source=page.edit_source,
        partner=page.editor,
        key_id=page.editor_key_id,
        saved_at=page.updated_at,
        page=page_record(page, base_url=base_url, preview_secret=b"", with_preview=False),
    )


def version_etag(version: int) -> str:
    """The strong ETag of any versioned record (a page, a variant, an allocation): one per
    version, since versions never repeat for a slug."""
    return f'"v{version}"'


def etag(page: StoredPage) -> str:
    """The strong ETag of a page's record."""
    return version_etag(page.version)
