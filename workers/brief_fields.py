"""What a brief decides on every page written for it, whoever wrote it (the built-in composer
or a model): the page's slug, whether it goes live, that it has no schedule of its own, and
the alt text of the hero image drawn for it. One function, which the composer and the job's
steps both call, so the two can never disagree; a writer's own values for these are replaced.
"""

from __future__ import annotations

from typing import Any

from schemas.content.jobs import GenerationBrief
from schemas.content.schedule import SCHEDULE_FIELDS
from workers.imaging.compositions import hero_alt


def with_brief_fields(
    payload: dict[str, Any], brief: GenerationBrief, *, live: bool
) -> dict[str, Any]:
    """`payload` with the brief's slug; `is_published` as the brief's `publish` when `live`
    (the page), left out when not (a variant: whether it is live is its page's); no
    `publish_at` or `unpublish_at` (the brief decides when the page goes live); and, when the
    brief draws a hero image, its alt text on a hero that has none."""
    fixed = {**payload, "slug": brief.slug}
    fixed.pop("is_published", None)
    if live:
        fixed["is_published"] = brief.publish
    for name in SCHEDULE_FIELDS.values():
        fixed.pop(name, None)
    blocks = fixed.get("blocks")
    if brief.generate_image and isinstance(blocks, list) and blocks:
        hero = blocks[0]
        if isinstance(hero, dict) and hero.get("type") == "hero" and not hero.get("imageAlt"):
            fixed["blocks"] = [{**hero, "imageAlt": hero_alt(brief)}, *blocks[1:]]
    return fixed
