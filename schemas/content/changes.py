"""How a write moves a stored page: replace (POST), merge patch (PATCH), unpublish (DELETE),
restore (an old version again).

Pure: the Content API views and the generation pipeline do the I/O around these; the record a
partner reads is services/page_records.py.

Statuses: POST gives `published`, or `draft` with `is_published: false`; PATCH with
`is_published: false` takes a published page to `unpublished` and leaves drafts drafts; DELETE
gives `unpublished`; `is_published: true` (POST or PATCH) publishes again.
"""

from dataclasses import replace
from datetime import datetime
from typing import Any

from domain.pages import PageSource, PageStatus, StoredPage
from schemas.content.pages import SitePageInput


def stored_input(page: SitePageInput) -> dict[str, Any]:
    """The input as kept: JSON, unset optional fields left out so merge patches stay small."""
    return page.model_dump(mode="json", exclude_none=True)


def replaced(
    current: StoredPage | None,
    page: SitePageInput,
    *,
    source: PageSource,
    ruleset: str,
    now: datetime,
    hero_image_url: str | None = None,
) -> StoredPage:
    """The page a POST (or a generated page) stores over `current`, if any."""
    status: PageStatus = "published" if page.is_published else "draft"
    return StoredPage(
        slug=page.slug,
        version=(current.version if current else 0) + 1,
        status=status,
        source=source,
        page_input=stored_input(page),
        created_at=current.created_at if current else now,
        updated_at=now,
        published_at=_published_at(current, status, now),
        hero_image_url=hero_image_url or _hero_image(page),
        gate_passed=True,
        gate_ruleset=ruleset,
    )


def patched(current: StoredPage, page: SitePageInput, *, ruleset: str, now: datetime) -> StoredPage:
    """The page a PATCH stores: the merged input; the status follows `is_published`."""
    status: PageStatus
    if page.is_published:
        status = "published"
    else:
        status = "unpublished" if current.status == "published" else current.status
    hero = _hero_image(page) if current.source == "api" else current.hero_image_url
    return replace(
        current,
        version=current.version + 1,
        status=status,
        page_input=stored_input(page),
        updated_at=now,
        published_at=_published_at(current, status, now),
        hero_image_url=hero,
        gate_passed=True,
        gate_ruleset=ruleset,
    )


def unpublished(current: StoredPage, *, now: datetime) -> StoredPage:
    """The page DELETE stores: off `/p/{slug}`, still readable, `is_published: false`."""
    return replace(
        current,
        version=current.version + 1,
        status="unpublished",
        page_input={**current.page_input, "is_published": False},
        updated_at=now,
    )


def restored(current: StoredPage, old: StoredPage, *, ruleset: str, now: datetime) -> StoredPage:
    """The page a restore stores: version `old` again (input, status, hero), as a new version."""
    return replace(
        old,
        version=current.version + 1,
        created_at=current.created_at,
        updated_at=now,
        published_at=_published_at(current, old.status, now),
        gate_passed=True,
        gate_ruleset=ruleset,
        owner=current.owner,
    )


def merge_patch(target: object, patch: object) -> object:
    """RFC 7396 JSON merge patch: objects merge, `null` removes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    merged: dict[str, Any] = dict(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = merge_patch(merged.get(name), value)
    return merged


def _published_at(current: StoredPage | None, status: PageStatus, now: datetime) -> datetime | None:
    previous = current.published_at if current else None
    if status != "published":
        return previous
    return previous if current is not None and current.status == "published" else now


def _hero_image(page: SitePageInput) -> str | None:
    hero = page.blocks[0]
    image = getattr(hero, "imageUrl", None)
    return image if isinstance(image, str) else None
